"""The command table and the typed requests: every request round-trips through its frame,
a field of the wrong type or a missing one is refused naming the command and the field,
and each permission admits exactly whom it says."""

from __future__ import annotations

import typing
from typing import Any

import pytest

from condorx import record
from condorx.daemons.core.server import Server
from condorx.errors import Refused
from condorx.transport import security, wire
from condorx.transport.peer import Peer
from condorx.transport.protocol import startd
from condorx.transport.protocol.message import Message, Reply
from condorx.transport.protocol.schedd import act, peers, query, submit
from condorx.transport.protocol.table import COMMANDS, Permission

SAMPLES: dict[Any, Any] = {
    str: "x",
    int: 7,
    float: 2.5,
    bool: True,
    bytes: b"x",
    list: [1],
    dict: {"a": 1},
}


def sample(cls: type[Any]) -> Any:
    """An instance with every field set to a value of its type."""
    # typing reads the annotations here (the protocol's modules import its names only
    # for type checkers): an oracle for the wire's own reading of them.
    hints = typing.get_type_hints(cls, localns={"Any": Any, "ClassVar": typing.ClassVar})
    values = {}
    for f in record.fields(cls):
        kind = hints[f.name]
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        if isinstance(kind, type(int | None)):
            kind = args[0]
        values[f.name] = SAMPLES.get(typing.get_origin(kind) or kind, "any")
    return cls(**values)


ALL = [c.request for commands in COMMANDS.values() for c in commands]


@pytest.mark.parametrize(
    "cls", ALL, ids=[f"{c.__module__.rsplit('.', 1)[1]}.{c.command}" for c in ALL]
)
def test_every_request_round_trips_through_its_frame(cls: type[Message]):
    req = sample(cls)
    frame = req.to_wire()
    assert frame["cmd"] == cls.command
    assert cls.from_wire(frame) == req


REPLIES = sorted({c.reply for commands in COMMANDS.values() for c in commands}, key=str)


@pytest.mark.parametrize("cls", REPLIES, ids=[c.__name__ for c in REPLIES])
def test_every_reply_round_trips_through_its_frame(cls: type[Reply]):
    reply = sample(cls)
    frame = reply.to_wire()
    assert frame["ok"] is True
    assert cls.from_wire(frame) == reply


def test_a_reply_of_the_wrong_shape_is_the_daemons_fault():
    with pytest.raises(wire.WireError, match="reply Submitted: 'cluster' must be an integer"):
        submit.Submitted.from_wire({"ok": True, "cluster": "12", "count": 1})
    with pytest.raises(wire.WireError, match="'slot' is missing"):
        startd.MatchTaken.from_wire({"ok": True})


def test_names_are_unique_within_each_daemon():
    for daemon, commands in COMMANDS.items():
        names = [c.name for c in commands]
        assert len(names) == len(set(names)), daemon


@pytest.mark.parametrize(
    ("cls", "frame", "message"),
    [
        (submit.Submit, {"procs": "not a list"}, "submit: 'procs' must be a list"),
        (submit.Submit, {}, "submit: 'procs' is missing"),
        (query.QueryJobs, {"limit": True}, "query: 'limit' must be an integer"),
        (act.Edit, {"attrs": [1, 2]}, "edit: 'attrs' must be a map"),
        (startd.Match, {"slot": "slot1@h", "claim_id": 12}, "match: 'claim_id' must be a string"),
        (startd.Vacate, {"fast": "yes"}, "vacate: 'fast' must be true or false"),
    ],
)
def test_a_wrong_field_is_refused_by_name(cls: type[Message], frame: dict[str, Any], message: str):
    with pytest.raises(Refused, match=message) as caught:
        cls.from_wire({"cmd": cls.command, **frame})
    assert caught.value.kind == "bad-request"


def test_none_is_not_sent_and_an_int_is_a_float_field():
    assert peers.Exited("1.0").to_wire() == {"cmd": "exited", "job": "1.0"}
    from condorx.transport.protocol.starter import StartJob

    got = StartJob.from_wire({"cmd": "run", "job": b"", "scratch": "/s", "heartbeat": 3})
    assert got.heartbeat == 3.0 and isinstance(got.heartbeat, float)


@record.record(frozen=True)
class _Odd(Message):
    command = "odd"
    items: set[int]  # a set has no form on the wire


@record.record(frozen=True)
class _Either(Message):
    command = "either"
    value: int | str  # a union of types takes any value


def test_a_field_type_the_wire_cannot_check_is_a_clear_error_and_a_union_takes_anything():
    with pytest.raises(TypeError, match=r"_Odd.items: set\[int\] is not a type the wire"):
        _Odd.from_wire({"cmd": "odd", "items": [1]})
    assert _Either.from_wire({"cmd": "either", "value": b"x"}).value == b"x"
    with pytest.raises(Refused, match="'value' is missing"):
        _Either.from_wire({"cmd": "either"})


@pytest.mark.parametrize(
    ("permission", "admitted"),
    [
        (Permission.READ, {"unauthenticated", "alice", "condor", "root"}),
        (Permission.WRITE, {"alice", "condor", "root"}),
        (Permission.DAEMON, {"condor"}),
        (Permission.ADMINISTRATOR, {"condor", "root"}),
    ],
)
def test_each_permission_admits_whom_it_says(permission: Permission, admitted: set[str]):
    """A daemon's decision with nothing configured (the ALLOW lists' defaults)."""
    users = {security.ANONYMOUS, "alice", security.POOL_IDENTITY, "root"}
    if security.current_user() in users - {"root", security.POOL_IDENTITY}:
        pytest.skip("the test's users include the daemons' own")
    server = Server("negotiator", {}, b"k" * 32, commands={})
    by_user = {u: Peer(u, "token", "127.0.0.1:9618") for u in users}
    assert {u for u, p in by_user.items() if server.authorized(permission.level, p)} == admitted


def test_a_server_must_answer_its_whole_table_and_nothing_else():
    async def handler(peer: Any, req: Any, ch: Any) -> dict[str, Any]:
        return {"ok": True}

    with pytest.raises(ValueError, match="no handler for"):
        Server("negotiator", {}, b"k" * 32)
    with pytest.raises(ValueError, match="has no command for Submit"):
        Server("negotiator", {submit.Submit: handler}, b"k" * 32)
