"""Spooled jobs' files over the wire: their inputs sent after them (HTCondor's
`Schedd.spool()`), and their output fetched (condor_transfer_data, `Schedd.retrieve()`).
The queue's side of it (held while spooling, released, kept for retrieval) is `stage`'s;
the files' places are `spool`'s."""

from __future__ import annotations

from pathlib import Path

import trio

from condorx.daemons.core.server import Peer
from condorx.daemons.schedd import spool, stage
from condorx.daemons.schedd.choosing import Chooser, parse_id, select
from condorx.daemons.schedd.clock import Clock
from condorx.daemons.schedd.ledger import Ledger
from condorx.daemons.schedd.queue import Transaction
from condorx.daemons.schedd.store import job_id
from condorx.errors import Refusal, Refused
from condorx.transport import wire
from condorx.transport.protocol.message import Done
from condorx.transport.protocol.schedd.files import Output, Retrieve, StageIn, StageOut
from condorx.transport.protocol.schedd.submit import JobIds


class Transfers:
    def __init__(self, ledger: Ledger, chooser: Chooser, root: Path, clock: Clock) -> None:
        self.ledger = ledger
        self.chooser = chooser
        self.root = root  # the spool
        self.clock = clock

    async def retrieve(self, peer: Peer, req: Retrieve, ch: wire.Channel) -> Output:
        """A spooled job's output: its owner's to fetch."""
        key = parse_id(req.job)
        if key is None or key[1] < 0:
            raise Refused(Refusal.BAD_REQUEST, f"retrieve: bad job id {req.job!r}")
        ad = self.ledger.get(key)
        if ad is None:
            raise Refused(Refusal.NOT_FOUND, f"job {job_id(key)} not found")
        if not self.chooser.may_act(peer, ad.get("Owner")):
            raise Refused(Refusal.PERMISSION, f"{peer.user} may not fetch job {job_id(key)}")
        take = spool.output_files if req.names == "spool" else spool.outputs
        files = await trio.to_thread.run_sync(take, self.root, key, ad)
        return Output(files)

    async def stage_in(self, peer: Peer, req: StageIn, ch: wire.Channel) -> Done:
        """HTCondor's clients' input files for jobs queued without them: first whether
        the jobs may take them, then each job's files, kept and the job released."""
        keys = [self.chooser.own_job(peer, str(j), "spool files for") for j in req.jobs]
        now = self.clock()
        if req.files is None:

            def check(txn: Transaction) -> None:
                for key in keys:
                    stage.check_stage_in(txn, key)
                    txn.set_attr(key, "StageInStart", now)

            await self.ledger.change(check)
            return Done()
        if len(req.files) != len(keys) or not all(isinstance(f, dict) for f in req.files):
            raise Refused(Refusal.BAD_REQUEST, "stage_in: one map of files per job")
        for key, files in zip(keys, req.files, strict=True):
            try:
                spool.check_names(files, f"job {job_id(key)}")
            except spool.SpoolError as e:
                raise Refused(Refusal.BAD_REQUEST, str(e)) from None
            if not all(isinstance(v, bytes) for v in files.values()):
                raise Refused(Refusal.BAD_REQUEST, "stage_in: a file's content is not bytes")
            job = self.ledger.get(key)
            owner = str(job.get("Owner")) if job is not None else None
            directory = spool.job_dir(self.root, key)
            try:
                await trio.to_thread.run_sync(spool.write, directory, files, owner)
            except OSError as e:
                raise Refused(Refusal.SPOOL, f"cannot keep the input files: {e}") from None

        def release(txn: Transaction) -> None:
            for key in keys:
                stage.staged_in(txn, key, now)

        await self.ledger.change(release)
        return Done()

    async def stage_out(self, peer: Peer, req: StageOut, ch: wire.Channel) -> JobIds:
        """A retrieval of the peer's spooled jobs' output begins (the jobs `constraint`
        picks) or is over (`done`, the jobs named)."""
        now = self.clock()
        if req.done:
            keys = [self.chooser.own_job(peer, str(j), "retrieve") for j in req.jobs or []]
        else:
            chosen = select(self.ledger.snapshot(), req.constraint or "true")
            keys = [k for k, ad in chosen if self.chooser.may_act(peer, ad.get("Owner"))]

        def mark(txn: Transaction) -> None:
            for key in keys:
                stage.stage_out(txn, key, now, bool(req.done))

        if keys:
            await self.ledger.change(mark)
        return JobIds([job_id(k) for k in keys])
