"""A job's account: switched to only when it is not the starter's own already (a switch
that changes nothing would cost the job its vfork start)."""

from __future__ import annotations

import os

from condorx.host.accounts import Account


def _me(**changes: object) -> Account:
    fields = {
        "name": "me",
        "uid": os.getuid(),
        "gid": os.getgid(),
        "groups": tuple(os.getgroups()),
        **changes,
    }
    return Account(**fields)  # type: ignore[arg-type]


def test_the_starters_own_account_needs_no_switch():
    assert _me().is_current() and _me().popen_options() == {}
    # The primary group among the supplementary ones or not: the same rights.
    assert _me(groups=(*os.getgroups(), os.getgid())).popen_options() == {}


def test_another_account_is_switched_to_in_full():
    other = _me(uid=os.getuid() + 1)
    assert not other.is_current()
    assert other.popen_options() == {
        "user": os.getuid() + 1,
        "group": os.getgid(),
        "extra_groups": list(os.getgroups()),
    }
    assert _me(gid=os.getgid() + 1).popen_options()["group"] == os.getgid() + 1
    extra = _me(groups=(*os.getgroups(), 4242))
    assert 4242 in extra.popen_options()["extra_groups"]
