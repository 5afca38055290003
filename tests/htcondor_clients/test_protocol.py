"""The CEDAR face against what HTCondor's clients would never send: an action not
confirmed, a transaction cut off, a session id nobody issued, bytes that are not CEDAR.
Each is refused or closed, nothing half-done reaches the queue, and the daemon answers
the next client as before."""

from __future__ import annotations

import struct

import trio

from condorx.classad import ClassAd
from condorx.testing import cedar_client as cc
from condorx.transport import locate
from condorx.transport.cedar.codec import Reader, Writer
from condorx.transport.cedar.commands import Cmd
from condorx.transport.cedar.packets import Closed
from condorx.transport.cedar.qmgmt_rpc import Rpc
from condorx.transport.connection import Address


def schedd_address(pool) -> Address:
    return Address.parse(pool.daemon("schedd").address())


def collector_address(pool) -> Address:
    return Address.parse(locate.collector_address(pool.cfg) or "")


def statuses(pool) -> dict[str, int]:
    out = pool.cli("condorx.cli.q", "-af", "ClusterId", "ProcId", "JobStatus").stdout
    return {f"{c}.{p}": int(s) for c, p, s in (line.split() for line in out.splitlines())}


async def _query_jobs(addr: Address) -> list[ClassAd]:
    conn = await cc.open_connection(addr.host, addr.port)
    await cc.authenticate(conn, Cmd.QUERY_JOB_ADS)
    await conn.send(Writer(conn.encrypted).classad(ClassAd({"Requirements": True})).bytes())
    ads = []
    while True:
        ad = Reader(await conn.receive(), conn.encrypted).classad()
        if ad.get("Owner") == 0:
            return ads
        ads.append(ad)


def test_an_action_the_client_does_not_confirm_changes_nothing(pool):
    before = statuses(pool)

    async def act_then_vanish() -> ClassAd:
        addr = schedd_address(pool)
        conn = await cc.open_connection(addr.host, addr.port)
        session = await cc.authenticate(conn, Cmd.ACT_ON_JOBS, "REQUIRED")
        assert session.post["ReturnCode"] == "AUTHORIZED"
        request = ClassAd({"JobAction": 1, "ActionResultType": 2, "ActionIds": "1.0,1.1"})
        await conn.send(Writer(conn.encrypted).classad(request).bytes())
        answer = Reader(await conn.receive(), conn.encrypted).classad()
        await conn.aclose()  # no confirmation
        return answer

    answer = trio.run(act_then_vanish)
    assert answer["ActionResult"] == 1 and answer["result_total_1"] == 2
    assert statuses(pool) == before


def test_a_submission_cut_off_before_its_commit_leaves_nothing(pool):
    before = statuses(pool)

    async def half_a_submission() -> int:
        addr = schedd_address(pool)
        session = await cc.qmgmt(addr.host, addr.port)
        rpc, conn = session.rpc, session.conn

        cluster = (await rpc(Writer(True).integer(Rpc.NewCluster))).integer()
        assert (await rpc(Writer(True).integer(Rpc.NewProc).integer(cluster))).integer() == 0
        for name, value in (("Cmd", '"/bin/true"'), ("JobUniverse", "5")):
            w = Writer(True).integer(Rpc.SetAttribute).integer(cluster).integer(-1)
            assert (await rpc(w.string(value).string(name))).integer() == 0
        await conn.aclose()  # before CommitTransaction
        return cluster

    cluster = trio.run(half_a_submission)
    after = statuses(pool)
    assert after == before
    assert not any(job.startswith(f"{cluster}.") for job in after)


def test_a_transaction_is_all_or_nothing(pool):
    """Two new clusters and an edit in one transaction: the edit names a job that is not
    there, so the commit is refused, and neither cluster is queued."""
    before = statuses(pool)

    async def transaction() -> tuple[int, int, int]:
        addr = schedd_address(pool)
        session = await cc.qmgmt(addr.host, addr.port)
        rpc, conn = session.rpc, session.conn

        clusters = []
        for _ in range(2):
            cluster = (await rpc(Writer(True).integer(Rpc.NewCluster))).integer()
            assert (await rpc(Writer(True).integer(Rpc.NewProc).integer(cluster))).integer() == 0
            for name, value in (("Cmd", '"/bin/true"'), ("JobUniverse", "5")):
                w = Writer(True).integer(Rpc.SetAttribute).integer(cluster).integer(-1)
                assert (await rpc(w.string(value).string(name))).integer() == 0
            clusters.append(cluster)
        w = Writer(True).integer(Rpc.SetAttribute).integer(99999).integer(0)
        assert (await rpc(w.string("1").string("Flavor"))).integer() == 0
        answer = (await rpc(Writer(True).integer(Rpc.CommitTransaction).integer(0))).integer()
        await conn.aclose()
        return clusters[0], clusters[1], answer

    first, second, answer = trio.run(transaction)
    assert answer < 0
    after = statuses(pool)
    assert after == before
    assert not any(job.split(".")[0] in (str(first), str(second)) for job in after)


def test_an_unknown_session_is_refused_and_a_known_one_resumes(pool):
    async def go() -> tuple[str, str, int]:
        addr = collector_address(pool)
        conn = await cc.open_connection(addr.host, addr.port)
        session = await cc.authenticate(conn, Cmd.QUERY_SCHEDD_ADS)
        await conn.aclose()
        stranger = cc.Session("somewhere:1:2:3", session.key, session.post)
        conn = await cc.open_connection(addr.host, addr.port)
        unknown = (await cc.resume(conn, Cmd.QUERY_SCHEDD_ADS, stranger))["ReturnCode"]
        await conn.aclose()
        conn = await cc.open_connection(addr.host, addr.port)
        known = (await cc.resume(conn, Cmd.QUERY_SCHEDD_ADS, session))["ReturnCode"]
        await conn.send(Writer(True).classad(ClassAd({"Requirements": True})).bytes())
        reply = Reader(await conn.receive(), True)
        count = 0
        while reply.integer() == 1:
            reply.classad()
            count += 1
        return unknown, known, count

    unknown, known, count = trio.run(go)
    assert (unknown, known, count) == ("SID_NOT_FOUND", "AUTHORIZED", 1)


def _bad_inputs() -> list[bytes]:
    """Whole byte strings a stranger might send first."""
    big = struct.pack(">BI", 1, 2 * 1024 * 1024)  # a packet over 1 MiB
    bad_flag = struct.pack(">BI", 42, 8) + b"\0" * 8
    empty = struct.pack(">BI", 1, 0)
    many = Writer().integer(Cmd.QUERY_STARTD_ADS).integer(10**6).bytes()
    claim = Writer().integer(Cmd.DC_AUTHENTICATE).integer(3)
    claim.string("Command = 5").string("Enact = TARGET.x").string('NewSession = "YES"')
    claim.string("").string("")
    huge_ad = Writer().integer(Cmd.DC_AUTHENTICATE).integer(101)
    for i in range(101):
        huge_ad.string(f"A{i} = {i}")
    unknown = Writer().integer(123456).bytes()

    def packet(body: bytes) -> bytes:
        return struct.pack(">BI", 1, len(body)) + body

    cut = packet(Writer().integer(Cmd.DC_AUTHENTICATE).bytes())[:-3]
    return [
        big,
        bad_flag,
        empty,
        packet(many),
        packet(claim.bytes()),
        packet(huge_ad.bytes()),
        packet(unknown),
        cut,
        b"\x00\x00\x01\x00\x00" + b"\xff" * 256,  # a 64 KiB packet announced, then cut
    ]


def test_bad_bytes_are_refused_and_the_daemon_answers_the_next_client(pool):
    async def go() -> list[ClassAd]:
        for addr in (collector_address(pool), schedd_address(pool)):
            for data in _bad_inputs():
                stream = await trio.open_tcp_stream(addr.host, addr.port)
                await stream.send_all(data)
                await stream.send_eof()
                with trio.fail_after(30):
                    while await stream.receive_some(65536):
                        pass  # whatever it says, it must end the conversation
                await stream.aclose()
        return await _query_jobs(schedd_address(pool))

    jobs = trio.run(go)
    assert len(jobs) == len(statuses(pool))


def test_a_tampered_encrypted_packet_ends_the_connection(pool):
    async def go() -> None:
        addr = collector_address(pool)
        conn = await cc.open_connection(addr.host, addr.port)
        await cc.authenticate(conn, Cmd.QUERY_SCHEDD_ADS)
        sealed = bytearray(conn._packet(Writer(True).classad(ClassAd()).bytes(), 1))
        sealed[-1] ^= 0x01  # the tag no longer matches
        await conn.stream.send_all(bytes(sealed))
        try:
            data = await conn.receive()
        except Closed:
            return
        raise AssertionError(f"the daemon answered a tampered packet: {data!r}")

    trio.run(go)
    assert len(trio.run(_query_jobs, schedd_address(pool))) == len(statuses(pool))


def test_a_client_that_stops_mid_handshake_is_let_go(pool):
    async def go() -> None:
        addr = collector_address(pool)
        for cut in (1, 5, 20):
            conn = await cc.open_connection(addr.host, addr.port)
            whole = (
                Writer()
                .integer(Cmd.DC_AUTHENTICATE)
                .classad(ClassAd({"Command": 5, "Enact": "NO", "NewSession": "YES"}))
            )
            packet = struct.pack(">BI", 1, len(whole.bytes())) + whole.bytes()
            await conn.stream.send_all(packet[:cut])
            await conn.stream.aclose()

    trio.run(go)
    assert len(trio.run(_query_jobs, schedd_address(pool))) == len(statuses(pool))


def test_a_replayed_encrypted_packet_ends_the_connection(pool):
    async def go() -> None:
        addr = schedd_address(pool)
        conn = await cc.open_connection(addr.host, addr.port)
        await cc.authenticate(conn, Cmd.QMGMT_WRITE_CMD, "REQUIRED")
        sealed = conn._packet(Writer(True).integer(Rpc.GetCapabilities).integer(0).bytes(), 1)
        await conn.stream.send_all(sealed)
        assert "LateMaterialize" in Reader(await conn.receive(), True).classad()
        await conn.stream.send_all(sealed)  # the same bytes again: its IV is spent
        try:
            data = await conn.receive()
        except Closed:
            return
        raise AssertionError(f"the daemon answered a replayed packet: {data!r}")

    trio.run(go)


def test_a_query_of_several_types_takes_each_types_own_constraint_and_limit(pool):
    """QUERY_MULTIPLE_ADS (condor_status of several types): TargetType lists the types,
    and <Type>Requirements / <Type>LimitResults apply to that type alone."""

    async def query(ad: ClassAd) -> list[str]:
        addr = collector_address(pool)
        conn = await cc.open_connection(addr.host, addr.port)
        await cc.authenticate(conn, Cmd.QUERY_MULTIPLE_ADS)
        await conn.send(Writer(conn.encrypted).classad(ad).bytes())
        reply = Reader(await conn.receive(), conn.encrypted)
        types = []
        while reply.integer() == 1:
            types.append(reply.classad()["MyType"])
        await conn.aclose()
        return types

    both = ClassAd({"TargetType": "Scheduler,Submitter", "Requirements": True})
    no_schedd = ClassAd({**both, "SchedulerRequirements": False})
    assert sorted(set(trio.run(query, both))) == ["Scheduler", "Submitter"]
    assert set(trio.run(query, no_schedd)) == {"Submitter"}
    one = ClassAd({**both, "SubmitterLimitResults": 1})
    assert trio.run(query, one).count("Submitter") == 1
