"""Peers authenticate; a user acts only on their own jobs unless a queue super user."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest
import trio
from jobs import cluster, procs
from test_submit_query import _rows

from condorx.client.schedd import ScheddClient
from condorx.transport import locate, security, tokens
from condorx.transport.connection import Address, Credentials, connect
from condorx.transport.wire import RemoteError


def _tcp_client(s, user):
    key = Path(locate.pool_key_file(s.cfg)).read_bytes().strip()
    token = security.make_token(key, user)
    address = s.address_file.read_text().splitlines()[0]
    return ScheddClient(s.cfg, address, Credentials(token=token))


def test_another_user_cannot_remove_or_hold_your_job(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(1))
    mallory = _tcp_client(schedd, "mallory")
    reply = schedd.call(mallory.act, "remove", [f"{c}.0"], None, None)
    assert reply.denied == [f"{c}.0"] and reply.done == 0
    reply = schedd.call(mallory.act, "hold", [], "true", None)
    assert f"{c}.0" in reply.denied
    assert _rows(schedd, ["JobStatus", "Owner"], f"ClusterId == {c}") == [[1, getpass.getuser()]]


def test_a_token_users_jobs_are_theirs_and_a_super_user_may_act_on_them(schedd):
    mallory = _tcp_client(schedd, "mallory")
    c = schedd.call(mallory.submit, cluster(schedd.root), procs(1))
    assert _rows(schedd, ["Owner", "User"], f"ClusterId == {c}")[0][0] == "mallory"
    admin = _tcp_client(schedd, "queueadmin")
    assert schedd.call(admin.act, "hold", [f"{c}.0"], None, None).done == 1


def test_cli_over_tcp_with_a_token_of_another_user_is_refused(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(1))
    token = schedd.cli("condor_token_create", "-identity", "mallory").stdout.strip()
    assert tokens.decoded(token)[1]["sub"] == f"mallory@{schedd.cfg.get('UID_DOMAIN')}"
    env = {**schedd.env, "CONDORX_TOKEN": token}
    r = schedd.cli("condor_rm", f"{c}.0", env=env, check=False)
    assert r.returncode != 0 and r.stderr == f"Permission denied to remove job {c}.0\n"


def test_a_forged_token_is_refused(schedd):
    forged = security.make_token(b"not-the-pool-key", getpass.getuser())
    address = Address.parse(schedd.address_file.read_text())

    async def go():
        await connect(address, Credentials(token=forged))

    with pytest.raises(RemoteError, match="authentication failed"):
        trio.run(go)


def test_only_pool_daemons_may_report_exits(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(1))
    with pytest.raises(RemoteError, match="needs DAEMON permission, which ALLOW_DAEMON"):
        schedd.call(schedd.client().exited, f"{c}.0", 0)


def test_without_a_token_a_tcp_client_may_read_but_not_act(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(1))
    address = schedd.address_file.read_text().splitlines()[0]
    anonymous = ScheddClient(schedd.cfg, address, Credentials())

    async def read():
        rows = []
        async for chunk in anonymous.query_rows(["ClusterId"]):
            rows.extend(chunk)
        return rows

    assert schedd.call(read) == [[c]]
    with pytest.raises(RemoteError, match="needs an identity"):
        schedd.call(anonymous.act, "remove", [f"{c}.0"], None, None)
    with pytest.raises(RemoteError, match="needs an identity"):
        schedd.call(anonymous.submit, cluster(schedd.root), procs(1))


def test_the_audit_log_names_who_changed_the_queue_and_who_was_refused(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(2))
    mallory = _tcp_client(schedd, "mallory")
    schedd.call(mallory.act, "remove", [f"{c}.0"], None, None)
    schedd.call(schedd.client().act, "hold", [f"{c}.1"], None, None)
    forged = security.make_token(b"not-the-pool-key", "eve")
    with pytest.raises(RemoteError):
        trio.run(connect, Address.parse(schedd.address_file.read_text()), Credentials(forged))
    lines = Path(schedd.cfg.get("SCHEDD_AUDIT_LOG")).read_text().splitlines()  # SchedAuditLog
    me = getpass.getuser()
    assert any(f"schedd submit by {me} (unix, local) " in ln and "procs=<2>" in ln for ln in lines)
    [denied] = [ln for ln in lines if " act by mallory (token, 127.0.0.1:" in ln]
    assert f"action='remove' ids=['{c}.0']" in denied and f"done=0 denied=['{c}.0']" in denied
    assert any(f" act by {me} " in ln and "action='hold'" in ln for ln in lines)
    assert any("schedd refused authentication" in ln and "'eve'" in ln for ln in lines)


def test_only_a_queue_super_user_may_submit_jobs_for_another_owner(schedd):
    mallory = _tcp_client(schedd, "mallory")
    as_alice = {**cluster(schedd.root), "Owner": "alice"}
    with pytest.raises(RemoteError, match="mallory may not submit jobs as 'alice'"):
        schedd.call(mallory.submit, as_alice, procs(1))
    assert _rows(schedd, ["Owner"], 'Owner == "alice"') == []
    # Naming oneself is no claim at all.
    c = schedd.call(mallory.submit, {**cluster(schedd.root), "Owner": "mallory"}, procs(1))
    assert _rows(schedd, ["Owner"], f"ClusterId == {c}") == [["mallory"]]
    # A queue super user, only for an owner this schedd has seen submit (HTCondor's
    # owner history; QUEUE_SUPER_USER_MAY_IMPERSONATE widens it).
    admin = _tcp_client(schedd, "queueadmin")
    with pytest.raises(RemoteError, match="this schedd has not seen alice submit"):
        schedd.call(admin.submit, as_alice, procs(2))
    schedd.call(_tcp_client(schedd, "alice").submit, cluster(schedd.root), procs(1))
    c = schedd.call(admin.submit, as_alice, procs(2))
    rows = _rows(schedd, ["Owner", "User"], f"ClusterId == {c}")
    assert len(rows) == 2 and all(o == "alice" and u.startswith("alice@") for o, u in rows)
