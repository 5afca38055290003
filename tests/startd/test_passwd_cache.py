"""A startd that is root looks up a job owner's account at most once in
PASSWD_CACHE_REFRESH seconds, as HTCondor's passwd cache does; a lookup past that time
sees an account added or removed since."""

from __future__ import annotations

import pwd

from condorx.daemons.startd.runas import Accounts


def test_an_account_is_looked_up_once_per_refresh():
    here = {"alice"}
    asked: list[str] = []

    def lookup(name: str) -> object:
        asked.append(name)
        if name not in here:
            raise KeyError(name)
        return name

    accounts = Accounts(lookup)
    assert accounts.exists("alice", 300, now=1000.0) is True
    assert accounts.exists("bob", 300, now=1000.0) is False
    here = {"bob"}  # alice leaves, bob arrives: not seen within the refresh time
    assert accounts.exists("alice", 300, now=1299.9) is True
    assert accounts.exists("bob", 300, now=1299.9) is False
    assert asked == ["alice", "bob"]
    assert accounts.exists("alice", 300, now=1300.0) is False
    assert accounts.exists("bob", 300, now=1300.0) is True
    assert asked == ["alice", "bob", "alice", "bob"]


def test_the_machines_own_accounts():
    accounts = Accounts()
    assert accounts.exists(pwd.getpwuid(0).pw_name, 72000, now=0.0) is True
    assert accounts.exists("no-such-account-here", 72000, now=0.0) is False
