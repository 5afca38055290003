"""HTCondor's queue-management protocol (QMGMT_WRITE_CMD / QMGMT_READ_CMD): the RPCs
HTCondor's bindings and tools send to submit and edit jobs, served as one transaction.

Nothing an RPC asks for reaches the queue before CommitTransaction: new clusters and
procs and their attributes are gathered here, then submitted (as condorx's own `Submit`,
into the cluster id `NewCluster` reserved); attributes set on jobs already queued are
applied as condorx's `Edit`, all or nothing. A connection that ends before its commit
leaves nothing behind but a cluster id never used.

Each RPC is one message, `[int number][arguments]`; the answer is `[int rval]`, and
`[int errno]` after it when rval < 0, unless the RPC says otherwise (SetAttribute with
the NoAck flag is not answered at all).
"""

from __future__ import annotations

import errno
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from condorx.classad import ClassAd
from condorx.transport.cedar.codec import CedarError, Reader
from condorx.transport.cedar.face import Call
from condorx.transport.cedar.qmgmt_attrs import (
    HOLD_ATTRS,
    ad_to_wire,
    awaits_files,
    check,
    check_present,
    fields,
    job_id,
    own,
)
from condorx.transport.cedar.qmgmt_reads import QueueReads
from condorx.transport.cedar.qmgmt_rpc import Rpc
from condorx.transport.protocol.schedd.act import Act, Edit
from condorx.transport.protocol.schedd.submit import Reserve, Submit, Transact

NO_ACK = 0x02  # SetAttribute's flag: no answer wanted (condor_qmgr.h)
# What SendMaterializeData's answer calls the rows: the client puts it in the digest's
# queue statement, which the schedd reads with the rows it was sent, not from a file.
_ITEMS_NAME = "materialize-items"
_JOBSET = -100  # SendJobQueueAd's type of a job set's ad (SENDJOBAD_TYPE_JOBSET)
# DestroyProc's answers (condor_qmgr.h's DESTROYPROC_*), by the act's outcome for the job.
_DESTROYED = {
    "ok": (0,),
    "kept": (1,),  # DESTROYPROC_SUCCESS_DELAY: LeaveJobInQueue keeps it
    "bad-status": (-1, errno.EINVAL),  # only a Completed or Removed job leaves
    "denied": (-2, errno.EACCES),
    "not-found": (-3, errno.ENOENT),
}


@dataclass
class _NewCluster:
    ad: dict[str, str] = field(default_factory=dict)  # name -> expression text
    procs: list[dict[str, str]] = field(default_factory=list)
    # Late materialization: the rows SendMaterializeData sent, the digest and limit
    # SetJobFactory set. A cluster with a digest is a job factory.
    items: list[str] | None = None
    digest: str | None = None
    limit: int = 0


@dataclass
class Transaction:
    """What a connection has asked for since its last commit or abort."""

    clusters: dict[int, _NewCluster] = field(default_factory=dict)
    # Attributes to set on jobs already queued, (cluster, proc) or a constraint, and the
    # value's text (None: DeleteAttribute).
    edits: list[tuple[Any, str, str | None]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class Qmgmt(QueueReads):
    """One QMGMT connection: its RPCs, until CloseSocket or the connection's end."""

    def __init__(self, call: Call) -> None:
        self.call = call
        self.txn = Transaction()
        self.read_only = False
        self.late_materialize = True  # SCHEDD_ALLOW_LATE_MATERIALIZE
        self.use_jobsets = False  # USE_JOBSETS
        self.number = 0  # the RPC being served
        self._scan: list[ClassAd] = []  # what GetNextJob* hands out, one by one
        self._rpcs: dict[int, Callable[[Reader], Awaitable[bool]]] = {
            Rpc.InitializeConnection: self._quiet,
            Rpc.InitializeReadOnlyConnection: self._quiet,
            Rpc.GetCapabilities: self._capabilities,
            Rpc.NewCluster: self._new_cluster,
            Rpc.NewProc: self._new_proc,
            Rpc.SetAttribute: self._set_attribute,
            Rpc.SetAttribute2: self._set_attribute,
            Rpc.SetAttributeByConstraint: self._set_by_constraint,
            Rpc.SetAttributeByConstraint2: self._set_by_constraint,
            Rpc.BeginTransaction: self._begin,
            Rpc.AbortTransaction: self._abort,
            Rpc.CommitTransaction: self._commit,
            Rpc.CommitTransactionNoFlags: self._commit,
            Rpc.SetEffectiveOwner: self._effective_owner,
            Rpc.SetAllowProtectedAttrChanges: self._allow_protected,
            Rpc.GetAttributeFloat: self._get_attribute,
            Rpc.GetAttributeInt: self._get_attribute,
            Rpc.GetAttributeString: self._get_attribute,
            Rpc.GetAttributeExpr: self._get_attribute,
            Rpc.GetJobAd: self._get_job_ad,
            Rpc.GetJobByConstraint: self._job_by_constraint,
            Rpc.GetAllJobsByConstraint: self._jobs_by_constraint,
            Rpc.GetNextJob: self._next_job,
            Rpc.GetNextJobByConstraint: self._next_job,
            Rpc.DeleteAttribute: self._delete_attribute,
            Rpc.DestroyProc: self._destroy_proc,
            Rpc.DestroyCluster: self._destroy_cluster,
            Rpc.CloseSocket: self._close,
            Rpc.SetJobFactory: self._set_job_factory,
            Rpc.SendMaterializeData: self._materialize_data,
            Rpc.SendJobQueueAd: self._jobset_ad,
        }

    async def serve(self) -> bool:
        while True:
            try:
                msg = await self.call.payload()
            except CedarError:
                return False  # the client is gone: its transaction with it
            number = self.number = msg.integer()
            rpc = self._rpcs.get(number)
            if rpc is None:
                raise CedarError(f"queue management RPC {number} is not served")
            if not await rpc(msg):
                return False

    # ---- answers ----------------------------------------------------------------------

    async def _answer(self, rval: int, code: int = 0, *more: Any) -> None:
        out = self.call.writer().integer(rval)
        if rval < 0:
            out.integer(code)
        for value in more:
            if isinstance(value, ClassAd):
                out.classad(value)
            elif isinstance(value, float):
                out.double(value)
            elif isinstance(value, int):
                out.integer(value)
            else:
                out.string(str(value))
        await self.call.send(out)

    async def _quiet(self, msg: Reader) -> bool:
        return True

    async def _close(self, msg: Reader) -> bool:
        return False

    async def _capabilities(self, msg: Reader) -> bool:
        msg.integer()  # the mask: which capabilities the client asks about
        reply = ClassAd(
            {
                "LateMaterialize": self.late_materialize,
                "LateMaterializeVersion": 2,
                "UseJobsets": self.use_jobsets,
            }
        )
        await self.call.send(self.call.writer().classad(reply))
        return True

    # ---- building a submission --------------------------------------------------------

    async def _new_cluster(self, msg: Reader) -> bool:
        if self.read_only:
            await self._denied()
            return True
        reply = await self.call.dispatch(Reserve())
        if not reply.get("ok"):
            reason = str((reply.get("error") or {}).get("message", "no cluster id"))
            ad = ClassAd({"ErrorCode": errno.EACCES, "ErrorReason": reason})
            await self._answer(-1, errno.EACCES, ad)
            return True
        cluster = int(reply["cluster"])
        self.txn.clusters[cluster] = _NewCluster()
        await self._answer(cluster)
        return True

    async def _new_proc(self, msg: Reader) -> bool:
        new = self.txn.clusters.get(msg.integer())
        if new is None:
            await self._answer(-1, errno.EINVAL)
            return True
        new.procs.append({})
        await self._answer(len(new.procs) - 1)
        return True

    async def _set_attribute(self, msg: Reader) -> bool:
        cluster, proc = msg.integer(), msg.integer()
        value, name = msg.text(), msg.text()
        flags = msg.char() if not msg.at_end() else 0
        # Unanswered (NoAck) values are parsed with the rest at commit, which names the
        # attribute of any that does not parse: a submission sends thousands of them.
        problem = check(name, value) if not flags & NO_ACK else check_present(name, value)
        if problem is None and self.read_only:
            problem = "a read-only connection may not set attributes"
        if problem is not None:
            if flags & NO_ACK:
                self.txn.errors.append(problem)
            else:
                await self._answer(-1, errno.EINVAL)
            return True
        new = self.txn.clusters.get(cluster)
        if new is not None and proc == -1:
            new.ad[name] = value
        elif new is not None and 0 <= proc < len(new.procs):
            new.procs[proc][name] = value
        else:
            self.txn.edits.append(((cluster, proc), name, value))
        if not flags & NO_ACK:
            await self._answer(0)
        return True

    async def _set_by_constraint(self, msg: Reader) -> bool:
        constraint, value, name = msg.text(), msg.text(), msg.text()
        if not msg.at_end():
            msg.char()
        problem = check(name, value) or (
            "a read-only connection may not set attributes" if self.read_only else None
        )
        if problem is not None:
            await self._answer(-1, errno.EINVAL)
            return True
        self.txn.edits.append((constraint or "true", name, value))
        await self._answer(0)
        return True

    async def _materialize_data(self, msg: Reader) -> bool:
        """SendMaterializeData: a factory's item rows, raw bytes to the message's end,
        one row a line; the answer names where they are kept and how many there are."""
        new = self.txn.clusters.get(msg.integer())
        msg.integer()  # flags: none defined
        data = msg.rest()
        if new is None or self.read_only or not self.late_materialize:
            await self._answer(-1, errno.EPERM)
            return True
        try:
            text = data.decode()
        except UnicodeDecodeError:
            await self._answer(-1, errno.EINVAL)
            return True
        new.items = text.split("\n")
        if new.items and new.items[-1] == "":
            new.items.pop()  # what followed the last row's newline
        out = self.call.writer().string(_ITEMS_NAME).integer(len(new.items)).integer(0)
        await self.call.send(out)
        return True

    async def _set_job_factory(self, msg: Reader) -> bool:
        """SetJobFactory: the cluster's submit digest, and how many of its jobs may be in
        the queue at once. The cluster becomes a job factory at commit."""
        cluster, limit = msg.integer(), msg.integer()
        msg.text()  # a factory file name: HTCondor no longer takes one
        digest = msg.text()
        new = self.txn.clusters.get(cluster)
        if new is None or self.read_only or not digest or not self.late_materialize:
            await self._answer(-1, errno.EPERM if new is None else errno.EINVAL)
            return True
        new.digest, new.limit = digest, max(limit, 0)
        await self._answer(0)
        return True

    async def _delete_attribute(self, msg: Reader) -> bool:
        cluster, proc, name = msg.integer(), msg.integer(), msg.text()
        if self.read_only or not name:
            await self._answer(-1, errno.EACCES if self.read_only else errno.EINVAL)
            return True
        new = self.txn.clusters.get(cluster)
        if new is not None and proc == -1:
            new.ad.pop(name, None)
        elif new is not None and 0 <= proc < len(new.procs):
            new.procs[proc].pop(name, None)
        else:
            self.txn.edits.append(((cluster, proc), name, None))
        await self._answer(0)
        return True

    async def _destroy_proc(self, msg: Reader) -> bool:
        """Undo a NewProc of this transaction (its last), or take a queued job out of the
        queue as HTCondor's DestroyProc does (`_DESTROYED`: its answer for each outcome)."""
        cluster, proc = msg.integer(), msg.integer()
        new = self.txn.clusters.get(cluster)
        if new is not None:
            if proc != len(new.procs) - 1:
                await self._answer(-1, errno.EINVAL)
                return True
            new.procs.pop()
            await self._answer(0)
            return True
        if cluster <= 0 or proc < 0:  # the header ad and cluster ads are not procs
            await self._answer(-1, errno.EINVAL)
            return True
        if self.read_only:
            await self._denied()
            return True
        reply = await self.call.dispatch(Act("destroy", ids=[f"{cluster}.{proc}"], per_job=True))
        outcome = (reply.get("results") or {}).get(f"{cluster}.{proc}", "not-found")
        if not reply.get("ok"):
            outcome = "denied"
        await self._answer(*_DESTROYED.get(outcome, (-1, errno.EINVAL)))
        return True

    async def _destroy_cluster(self, msg: Reader) -> bool:
        """Undo a NewCluster of this transaction (condor_submit does, when a proc fails)."""
        cluster = msg.integer()
        if self.txn.clusters.pop(cluster, None) is None:
            await self._answer(-1, errno.EPERM)
            return True
        await self._answer(0)
        return True

    async def _jobset_ad(self, msg: Reader) -> bool:
        """SendJobQueueAd of a job set's ad (condor_submit's, for a JobSetName): the new
        cluster names the set, which it joins at the commit (`jobsets.join`)."""
        cluster, ad_type, _flags = msg.integer(), msg.integer(), msg.integer()
        ad = msg.classad()
        name = ad.get("JobSetName")
        new = self.txn.clusters.get(cluster)
        if ad_type != _JOBSET or not self.use_jobsets or new is None or self.read_only:
            await self._answer(-1, errno.EINVAL)
            return True
        if not isinstance(name, str) or not name:
            await self._answer(-1, errno.EINVAL)
            return True
        new.ad["JobSetName"] = str(ad.lookup("JobSetName"))
        await self._answer(0)
        return True

    async def _begin(self, msg: Reader) -> bool:
        self.txn = Transaction()
        await self._answer(0)
        return True

    async def _abort(self, msg: Reader) -> bool:
        self.txn = Transaction()
        await self._answer(0)
        return True

    async def _effective_owner(self, msg: Reader) -> bool:
        owner = msg.text()
        # Acting as someone else is for queue super users; as oneself, always fine.
        ok = not owner or owner.split("@")[0] == self.call.peer.user
        await self._answer(0 if ok else -1, errno.EACCES)
        return True

    async def _allow_protected(self, msg: Reader) -> bool:
        msg.integer()
        await self._answer(0)
        return True

    async def _denied(self) -> None:
        await self._answer(-1, errno.EACCES)

    # ---- commit -----------------------------------------------------------------------

    async def _commit(self, msg: Reader) -> bool:
        if not msg.at_end():
            msg.integer()  # CommitTransaction's flags
        txn, self.txn = self.txn, Transaction()
        warnings: list[str] = []
        error = txn.errors[0] if txn.errors else await self._apply(txn, warnings)
        if error is None:
            # As HTCondor's schedd: a submit requirement's warning rides the reply.
            reply = ClassAd({"WarningReason": "\n".join(warnings)} if warnings else {})
            await self.call.send(self.call.writer().integer(0).classad(reply))
        else:
            ad = ClassAd({"ErrorCode": 2, "ErrorReason": error})
            await self._answer(-1, errno.EINVAL, ad)
        return True

    async def _apply(self, txn: Transaction, warnings: list[str]) -> str | None:
        """Queue what the transaction built, as one queue change (all or nothing); the
        refusal's reason, or None. What the schedd warned of is added to `warnings`."""
        submits: list[dict[str, Any]] = []
        try:
            for cluster, new in txn.clusters.items():
                request = self._submission(cluster, new)
                if request is not None:
                    submits.append(fields(request))
        except ValueError as e:
            return str(e)
        # One edit per job or constraint, with all its attributes (set or deleted).
        grouped: dict[Any, dict[str, str | None]] = {}
        for target, name, value in txn.edits:
            grouped.setdefault(target, {})[name] = value
        edits = []
        for target, changes in grouped.items():
            attrs = {k: v for k, v in changes.items() if v is not None}
            unset = [k for k, v in changes.items() if v is None] or None
            if isinstance(target, tuple):
                edit = Edit(attrs=attrs, ids=[job_id(*target)], strict=True, unset=unset)
            else:
                edit = Edit(attrs=attrs, constraint=target, only_mine=True, unset=unset)
            edits.append(fields(edit))
        if not submits and not edits:
            return None
        reply = await self.call.dispatch(Transact(submits=submits, edits=edits))
        if not reply.get("ok"):
            return str((reply.get("error") or {}).get("message", "the transaction was refused"))
        warnings += [str(w) for w in reply.get("warnings") or ()]
        return None

    def _submission(self, cluster: int, new: _NewCluster) -> Submit | None:
        """The Submit a new cluster makes (a job factory's, with a digest); None for a
        cluster id that was taken and given no proc. ValueError names a bad attribute."""
        if new.digest is None and not new.procs:
            return None
        ad = ad_to_wire(own(new.ad, cluster))
        if new.digest is not None:
            spec: dict[str, Any] = {"limit": new.limit, "digest": new.digest}
            if new.items is not None:
                spec["items"] = new.items
            return Submit(procs=[], cluster=ad, cluster_id=cluster, factory=spec)
        procs = [ad_to_wire(own(attrs, cluster, p)) for p, attrs in enumerate(new.procs)]
        if not awaits_files(new.ad, *new.procs):
            return Submit(procs=procs, cluster=ad, cluster_id=cluster)
        # Held for their input files (spool=True): the schedd holds them so itself.
        for attrs in (ad, *procs):
            for name in HOLD_ATTRS:
                attrs.pop(name, None)
        return Submit(procs=procs, cluster=ad, cluster_id=cluster, spooling=True)


def serving(late_materialize: bool, use_jobsets: bool = False) -> Callable[[Call], Awaitable[bool]]:
    """QMGMT_WRITE_CMD / QMGMT_READ_CMD, with job factories or without, and job sets."""

    async def serve(call: Call) -> bool:
        session = Qmgmt(call)
        session.read_only = call.command == 1111
        session.late_materialize = late_materialize
        session.use_jobsets = use_jobsets
        return await session.serve()

    return serve
