"""The queue-management RPCs beyond those the bindings' submit and edit send, spoken as
HTCondor's qmgmt client stubs speak them (qmgmt_send_stubs.cpp): GetJobByConstraint,
the GetNextJob scans, DeleteAttribute, DestroyProc and DestroyCluster."""

from __future__ import annotations

import errno

import trio

from condorx.testing import cedar_client as cc
from condorx.transport.cedar.codec import Reader, Writer
from condorx.transport.cedar.qmgmt import NO_ACK
from condorx.transport.cedar.qmgmt_rpc import Rpc
from condorx.transport.connection import Address


def _schedd(pool) -> Address:
    return Address.parse(pool.daemon("schedd").address())


def _session(pool, body):
    """Run `body(rpc)` on a QMGMT_WRITE connection; `rpc(writer)` answers a Reader,
    `rpc.send(writer)` sends an RPC that has no answer."""

    async def go():
        addr = _schedd(pool)
        session = await cc.qmgmt(addr.host, addr.port)

        async def rpc(w: Writer) -> Reader:
            return await session.rpc(w)

        rpc.send = session.send  # type: ignore[attr-defined]
        try:
            return await body(rpc)
        finally:
            await session.conn.aclose()

    return trio.run(go)


def _ad_or_errno(r: Reader):
    rval = r.integer()
    return r.classad() if rval >= 0 else r.integer()


def test_scans_of_the_queue(pool):
    async def body(rpc):
        w = Writer(True).integer(Rpc.GetJobByConstraint).string("ProcId == 1")
        one = _ad_or_errno(await rpc(w))
        none = _ad_or_errno(await rpc(Writer(True).integer(Rpc.GetJobByConstraint).string("false")))
        scan = []
        first = 1
        while True:
            got = _ad_or_errno(await rpc(Writer(True).integer(Rpc.GetNextJob).integer(first)))
            first = 0
            if not hasattr(got, "get"):
                scan.append(got)
                break
            scan.append((got["ClusterId"], got["ProcId"]))
        w = Writer(True).integer(Rpc.GetNextJobByConstraint).integer(1).string("ProcId >= 1")
        chosen = [_ad_or_errno(await rpc(w))]
        w = Writer(True).integer(Rpc.GetNextJobByConstraint).integer(0).string("ProcId >= 1")
        chosen.append(_ad_or_errno(await rpc(w)))
        w = Writer(True).integer(Rpc.GetNextJobByConstraint).integer(0).string("ProcId >= 1")
        chosen.append(_ad_or_errno(await rpc(w)))
        return one["ProcId"], none, scan, [c["ProcId"] if hasattr(c, "get") else c for c in chosen]

    one, none, scan, chosen = _session(pool, body)
    assert one == 1 and none == errno.ENOENT
    jobs = scan[:-1]
    assert [p for _, p in jobs] == [0, 1, 2] and scan[-1] == errno.ENOENT
    assert chosen == [1, 2, errno.ENOENT]


def test_delete_attribute_and_destroy_within_a_transaction(pool):
    async def body(rpc):
        # Flavor is the cluster's; proc 2 gets its own, then loses it again.
        (cluster,) = {ad["ClusterId"] for ad in await _jobs(rpc)}
        w = Writer(True).integer(Rpc.SetAttribute).integer(cluster).integer(2)
        assert (await rpc(w.string('"plum"').string("Flavor"))).integer() == 0
        assert (await rpc(Writer(True).integer(Rpc.CommitTransaction).integer(0))).integer() == 0
        set_to = {ad["ProcId"]: ad["Flavor"] for ad in await _jobs(rpc)}
        w = Writer(True).integer(Rpc.DeleteAttribute).integer(cluster).integer(2).string("Flavor")
        assert (await rpc(w)).integer() == 0
        assert (await rpc(Writer(True).integer(Rpc.CommitTransaction).integer(0))).integer() == 0
        after = {ad["ProcId"]: ad["Flavor"] for ad in await _jobs(rpc)}
        # A cluster begun, then destroyed, is never queued.
        new = (await rpc(Writer(True).integer(Rpc.NewCluster))).integer()
        assert (await rpc(Writer(True).integer(Rpc.NewProc).integer(new))).integer() == 0
        destroyed = await rpc(Writer(True).integer(Rpc.DestroyProc).integer(new).integer(0))
        gone = (await rpc(Writer(True).integer(Rpc.DestroyCluster).integer(new))).integer()
        again = _ad_or_errno(await rpc(Writer(True).integer(Rpc.DestroyCluster).integer(new)))
        assert (await rpc(Writer(True).integer(Rpc.CommitTransaction).integer(0))).integer() == 0
        queued = {ad["ClusterId"] for ad in await _jobs(rpc)}
        return set_to, after, destroyed.integer(), gone, again, new, queued, cluster

    set_to, after, destroyed, gone, again, new, queued, cluster = _session(pool, body)
    assert set_to == {0: "mint", 1: "mint", 2: "plum"}
    assert after == {0: "mint", 1: "mint", 2: "mint"}  # the cluster's value shows again
    assert (destroyed, gone, again) == (0, 0, errno.EPERM)
    assert new not in queued and queued == {cluster}


async def _jobs(rpc):
    w = Writer(True).integer(Rpc.GetAllJobsByConstraint).string("true").string("")
    r = await rpc(w)
    ads = []
    while r.integer() == 0:
        ads.append(r.classad())
    return ads


def test_an_unanswered_value_that_does_not_parse_fails_the_commit_naming_it(pool):
    """SetAttribute with NoAck gets no answer: its value is parsed at commit, which
    refuses the transaction naming the attribute, and queues nothing of it."""

    async def body(rpc):
        before = len(await _jobs(rpc))
        cluster = (await rpc(Writer(True).integer(Rpc.NewCluster))).integer()
        assert (await rpc(Writer(True).integer(Rpc.NewProc).integer(cluster))).integer() == 0
        for name, value in (("Cmd", '"/bin/true"'), ("Broken", "(1 +")):
            w = Writer(True).integer(Rpc.SetAttribute2).integer(cluster).integer(0)
            await rpc.send(w.string(value).string(name).char(NO_ACK))
        r = await rpc(Writer(True).integer(Rpc.CommitTransaction).integer(0))
        rval = r.integer()
        code = r.integer() if rval < 0 else 0
        reason = r.classad().get("ErrorReason") if rval < 0 else ""
        return before, rval, code, reason, len(await _jobs(rpc))

    before, rval, code, reason, after = _session(pool, body)
    assert rval < 0 and code == errno.EINVAL
    assert "Broken" in reason
    assert after == before


def test_destroy_proc_of_a_queued_job_answers_as_htcondors_qmgmt(pool):
    """DestroyProc of a job already queued (qmgmt.cpp): an idle job may not leave
    (EINVAL), no job is ENOENT, the header ad is not a proc, and a Removed job its
    LeaveJobInQueue keeps stays (DESTROYPROC_SUCCESS_DELAY, 1)."""
    kept = pool.submit("executable = /bin/true\n+LeaveJobInQueue = true\nqueue\n", "kept.sub")
    pool.cli("condorx.cli.act:rm", str(kept))

    async def body(rpc):
        (idle,) = {ad["ClusterId"] for ad in await _jobs(rpc) if ad["JobStatus"] == 1}

        async def destroy(cluster, proc):
            r = await rpc(Writer(True).integer(Rpc.DestroyProc).integer(cluster).integer(proc))
            rval = r.integer()
            return (rval, r.integer()) if rval < 0 else (rval,)

        answers = [
            await destroy(idle, 0),
            await destroy(idle, 7),
            await destroy(0, 0),
            await destroy(kept, 0),
        ]
        status = {(ad["ClusterId"], ad["ProcId"]): ad["JobStatus"] for ad in await _jobs(rpc)}
        return answers, status, idle

    answers, status, idle = _session(pool, body)
    assert answers == [(-1, errno.EINVAL), (-3, errno.ENOENT), (-1, errno.EINVAL), (1,)]
    assert status[(idle, 0)] == 1 and status[(kept, 0)] == 3
