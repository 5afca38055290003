"""Malformed requests get a clear error reply; the schedd keeps running and keeps its jobs."""

from __future__ import annotations

import pytest
import trio
from jobs import cluster, procs
from test_submit_query import _rows

from condorx.transport import wire
from condorx.transport.connection import Address, Credentials, connect


def test_a_malformed_expression_names_its_attribute_and_nothing_is_queued(schedd):
    bad = cluster(schedd.root, Requirements=wire.Expr("Memory >= * 2"))
    try:
        schedd.call(schedd.client().submit, bad, procs(2))
        raise AssertionError("the submission was accepted")
    except wire.RemoteError as e:
        assert "Requirements" in str(e)
    assert _rows(schedd, ["ClusterId"]) == []
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(1))
    assert _rows(schedd, ["ClusterId"]) == [[c]]


def test_bad_attribute_names_and_shapes_are_refused(schedd):
    for bad_cluster, bad_procs in (
        ({"not a name": 1}, [{}]),
        ({"Cmd": "/bin/true"}, "not a list"),
        ({"Cmd": {"nested": "map"}}, [{}]),
        ({"Cmd": "/bin/true"}, []),
    ):
        try:
            schedd.call(schedd.client().submit, bad_cluster, bad_procs)
            raise AssertionError(f"accepted {bad_cluster!r} {bad_procs!r}")
        except wire.RemoteError as e:
            assert e.kind == "bad-request", e


def test_an_oversized_message_is_refused_and_the_daemon_stays_up(schedd):
    address = Address(unix=str(schedd.root / "lock" / "schedd.sock"))

    async def go():
        ch = await connect(address, Credentials())
        await ch.request({"cmd": "submit", "cluster": {"Big": "x" * 2_000_000}, "procs": [{}]})

    with pytest.raises(wire.RemoteError, match="exceeds the limit of 1048576"):
        trio.run(go)
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(1))
    assert _rows(schedd, ["ClusterId"]) == [[c]]


def test_garbage_bytes_and_unknown_commands(schedd):
    address = Address(unix=str(schedd.root / "lock" / "schedd.sock"))

    async def go():
        ch = await connect(address, Credentials())
        await ch.send({"cmd": "frobnicate"})
        unknown = await ch.receive()
        await ch.stream.send_all(b"\x00\x00\x00\x03\xc1\xc1\xc1")
        garbage = await ch.receive()
        return unknown, garbage

    unknown, garbage = trio.run(go)
    assert "unknown command" in unknown["error"]["message"]
    assert garbage["ok"] is False and "malformed" in garbage["error"]["message"]
    assert _rows(schedd, ["ClusterId"]) == []
