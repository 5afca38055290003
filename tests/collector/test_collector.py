"""The collector keeps the ads daemons send, answers queries, and forgets stale ads."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import trio

from condorx.client.collector import CollectorClient
from condorx.transport.connection import daemon_credentials, user_credentials
from condorx.transport.wire import RemoteError


def slot(name: str, state: str = "Unclaimed", **extra):
    ad = {
        "MyType": "Machine",
        "Name": name,
        "Machine": name.split("@")[-1],
        "OpSys": "LINUX",
        "Arch": "X86_64",
        "State": state,
        "Activity": "Idle",
        "LoadAvg": 0.25,
        "Memory": 2048,
        "EnteredCurrentActivity": 0,
    }
    ad.update(extra)
    return ad


def test_advertise_query_and_status(pool):
    pool.start("collector")
    daemon = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
    trio.run(daemon.advertise, [slot("slot1@a"), slot("slot2@a", "Claimed"), slot("slot1@b")])
    user = CollectorClient(pool.cfg, user_credentials(pool.cfg))
    rows = trio.run(user.query_rows, "machine", ["Name", "State"], 'Machine == "a"')
    assert rows == [["slot1@a", "Unclaimed"], ["slot2@a", "Claimed"]]
    out = pool.cli("condorx.cli.status").stdout
    assert "slot2@a" in out and "Claimed" in out
    total = [ln.split() for ln in out.splitlines() if ln.strip().startswith("Total")][-1]
    assert total[:5] == ["Total", "3", "0", "1", "2"]  # Total Owner Claimed Unclaimed
    # -total prints the same totals table, and only it.
    totals = pool.cli("condorx.cli.status", "-total").stdout
    assert "slot2@a" not in totals
    assert "Unclaimed" in totals and out.endswith(totals)
    af = pool.cli(
        "condorx.cli.status", "-af", "Name", "Memory * 2", "-constraint", 'State == "Claimed"'
    )
    assert af.stdout == "slot2@a 4096\n"
    # The qualifiers, as HTCondor's condor_status reads them: t for tabs, V quoted, l
    # labelled, h headings, `,` between fields.
    claimed = ["-constraint", 'State == "Claimed"']
    for quals, want in [
        ("t", "slot2@a\t4096\n"),
        ("V", '"slot2@a" 4096\n'),
        ("l", "Name = slot2@a Memory * 2 = 4096\n"),
        (",", "slot2@a, 4096\n"),
        ("h", "Name    Memory * 2\nslot2@a 4096      \n"),
    ]:
        got = pool.cli("condorx.cli.status", f"-af:{quals}", "Name", "Memory * 2", *claimed)
        assert got.stdout == want, quals
    # As HTCondor's: nothing matched, nothing printed (no heading, no totals), status 0.
    for view in ([], ["-total"], ["-schedd"], ["-negotiator"]):
        r = pool.cli("condorx.cli.status", *view, "-constraint", "false")
        assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_a_fresh_ad_replaces_the_old_and_stale_ads_expire(pool):
    pool.start("collector")
    daemon = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
    trio.run(daemon.advertise, [slot("slot1@a", ClassAdLifetime=1), slot("slot1@b")])
    trio.run(daemon.advertise, [slot("slot1@b", "Owner")])
    user = CollectorClient(pool.cfg, user_credentials(pool.cfg))
    trio.run(trio.sleep, 1.5)
    assert trio.run(user.query_rows, "machine", ["Name", "State"]) == [["slot1@b", "Owner"]]


def test_only_pool_daemons_may_advertise(pool):
    pool.start("collector")
    user = CollectorClient(pool.cfg, user_credentials(pool.cfg))
    with pytest.raises(RemoteError, match="needs ADVERTISE_STARTD permission"):
        trio.run(user.advertise, [slot("slot1@evil")])


def test_the_collector_stamps_who_sent_an_ad_and_when_over_what_the_ad_says(pool):
    pool.start("collector")
    daemon = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
    forged = slot("slot1@a", AuthenticatedIdentity="alice", LastHeardFrom=1)
    before = int(time.time())
    trio.run(daemon.advertise, [forged, slot("slot2@a")])
    user = CollectorClient(pool.cfg, user_credentials(pool.cfg))
    rows = trio.run(user.query_rows, "machine", ["AuthenticatedIdentity", "LastHeardFrom"])
    assert len(rows) == 2
    for identity, heard in rows:
        assert identity not in ("alice", None) and heard >= before
    assert rows[0][0] == rows[1][0]  # the sender's identity, whatever the ad claimed


def test_a_users_client_on_the_collectors_host_asks_over_its_local_socket(pool, monkeypatch):
    # The kernel vouches for the user there: no token is made (which would load
    # cryptography on every condor_status), and the TCP address is not needed.
    from condorx.client import collector
    from condorx.transport import locate

    pool.start("collector")
    trio.run(CollectorClient(pool.cfg, daemon_credentials(pool.cfg)).advertise, [slot("slot1@a")])
    monkeypatch.delenv("CONDORX_TOKEN", raising=False)
    made: list[object] = []
    monkeypatch.setattr(collector, "user_credentials", lambda cfg: made.append(cfg))
    published = Path(locate.collector_address_file(pool.cfg))
    address = published.read_text()
    published.unlink()  # only the socket can answer now
    try:
        user = CollectorClient(pool.cfg)
        assert trio.run(user.query_rows, "machine", ["Name"]) == [["slot1@a"]]
        # A user there is still no pool daemon.
        with pytest.raises(RemoteError, match="needs ADVERTISE_STARTD permission"):
            trio.run(user.advertise, [slot("slot1@evil")])
    finally:
        published.write_text(address)
    assert made == []


def test_a_socket_left_by_a_collector_since_gone_falls_back_to_its_address(pool, tmp_path):
    import socket

    from condorx.language.config import load_config

    pool.start("collector")
    trio.run(CollectorClient(pool.cfg, daemon_credentials(pool.cfg)).advertise, [slot("slot1@a")])
    dead = tmp_path / "collector.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(dead))  # bound, never listened on, closed: the file stays
    pool.config_file.write_text(pool.config_file.read_text() + f"COLLECTOR_SOCKET = {dead}\n")
    cfg = load_config(path=pool.config_file, environ=pool.env)
    assert dead.exists()
    rows = trio.run(CollectorClient(cfg).query_rows, "machine", ["Name"])
    assert rows == [["slot1@a"]]
