"""Scheduler-universe jobs (JobUniverse 7: condor_dagman is one): the schedd runs them
itself, on its own machine, as their owner, as soon as they are idle. No negotiator
matches them and no startd runs them; their exit is recorded as any job's run is, and
their policy (on_exit_remove, ...) applies. condor_rm and condor_hold signal the job's
process tree (remove_kill_sig, else SIGTERM), which then leaves or waits held.

At most MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER of an owner's run at once (HTCondor's
default, 200); the others wait their turn, in the order they became idle.

A job running when the schedd stopped goes back to idle when it starts again (as every
orphaned run does), and is run again.

The job's environment is its own plus CONDOR_ID (its "cluster.proc", as HTCondor's schedd
gives it; condor_dagman learns its job id from it) and, when it names no configuration
file, the schedd's own: a job run on the schedd's machine finds the same pool.
"""

from __future__ import annotations

import logging
import signal
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any

import trio

from condorx.classad import ClassAd
from condorx.daemons.schedd import transitions
from condorx.daemons.schedd.identity import Identity
from condorx.daemons.schedd.ledger import Ledger
from condorx.daemons.schedd.store import Key, job_id
from condorx.daemons.starter.launch import Process, arguments, environment
from condorx.host import accounts
from condorx.language.attrs import JobStatus, Universe
from condorx.transport.protocol.run_result import RunResult

log = logging.getLogger("condorx.schedd")

_SIGNALS = {name: int(getattr(signal, name)) for name in dir(signal) if name.startswith("SIG")}


def is_local(ad: Any) -> bool:
    """Whether the schedd itself runs this job (the scheduler universe)."""
    return ad is not None and ad.get("JobUniverse") == Universe.SCHEDULER


class LocalJobs:
    def __init__(
        self,
        ledger: Ledger,
        me: Identity,
        config_file: str | None = None,
        per_owner: int = 200,
    ) -> None:
        self.ledger = ledger
        self.me = me
        self.config_file = config_file
        self.per_owner = per_owner
        # The jobs it runs (None while one is being started), and by owner.
        self.running: dict[Key, Process | None] = {}
        self.owners: Counter[str] = Counter()
        self.waiting: dict[str, dict[Key, None]] = {}  # idle over the limit, in order
        self._nursery: trio.Nursery | None = None

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Run the idle scheduler-universe jobs, now and as they come, until cancelled."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self.note_idle([k for k, ad in self.ledger.snapshot() if _idle(ad)])
            task_status.started()
            await trio.sleep_forever()

    def note_idle(self, keys: list[Key]) -> None:
        """Jobs that became idle: the scheduler-universe ones start."""
        if self._nursery is None:
            return
        for key in keys:
            ad = self.ledger.get(key)
            if key in self.running or not is_local(ad):
                continue
            owner = str(ad.get("Owner")) if ad is not None else ""
            if self.owners[owner] >= self.per_owner:
                self.waiting.setdefault(owner, {})[key] = None
                continue
            self.waiting.get(owner, {}).pop(key, None)
            self.running[key] = None
            self.owners[owner] += 1
            self._nursery.start_soon(self._run, key, owner)

    def busy(self, key: Key) -> bool:
        return key in self.running

    async def stop(self, key: Key) -> None:
        """condor_rm or condor_hold of a running job: signal its process tree, with
        RemoveKillSig when it is removed (condor_dagman then removes its node jobs) and
        KillSig when it is held (condor_dagman leaves them, to recover on release)."""
        process = self.running.get(key)
        ad = self.ledger.get(key)
        if process is None or ad is None:
            return
        removed = ad.get("JobStatus") == JobStatus.REMOVED
        chosen = ad.get("RemoveKillSig") if removed else None
        name = str(chosen or ad.get("KillSig") or "SIGTERM").upper()
        sig = _SIGNALS.get(name if name.startswith("SIG") else "SIG" + name, signal.SIGTERM)
        process.signal(sig)

    async def _run(self, key: Key, owner: str) -> None:
        try:
            await self._run_one(key)
        except Exception:
            log.exception("running scheduler-universe job %d.%d failed", *key)
        finally:
            self.running.pop(key, None)
            self.owners[owner] -= 1
        # A run that ended in a requeue (condor_dagman killed by a signal) is idle again,
        # and its news may have come while it was still counted as running: run it now.
        ad = self.ledger.get(key)
        if ad is not None and _idle(ad):
            self.note_idle([key])
        # The owner's next waiting job, now that there is room (one still idle).
        queued = self.waiting.get(owner, {})
        while queued and self.owners[owner] < self.per_owner:
            nxt = next(iter(queued))
            queued.pop(nxt)
            if _idle(self.ledger.get(nxt)):
                self.note_idle([nxt])

    async def _run_one(self, key: Key) -> None:
        now = int(time.time())
        host = self.me.address or self.me.name
        started = await self.ledger.change(
            lambda txn: transitions.start_running(txn, key, f"schedd@{self.me.name}", host, now)
        )
        ad = self.ledger.get(key)
        if not started or ad is None:
            return
        try:
            process = await trio.to_thread.run_sync(_spawn, ad, key, self.config_file)
        except (OSError, accounts.AccountError, ValueError) as e:
            failed = RunResult(failed=f"Failed to execute {ad.get('Cmd')}: {e}")
            end = int(time.time())
            await self.ledger.change(lambda txn: transitions.finish_running(txn, key, failed, end))
            return
        self.running[key] = process
        outcome = await process.wait()
        result = RunResult(attrs=outcome.attrs(), wall=outcome.wall)
        end = int(time.time())
        await self.ledger.change(lambda txn: transitions.finish_running(txn, key, result, end))


def _idle(ad: ClassAd | None) -> bool:
    return ad is not None and is_local(ad) and ad.get("JobStatus") == JobStatus.IDLE


def _spawn(ad: ClassAd, key: Key, config_file: str | None) -> Process:
    """Start the job's process in its Iwd, its stdio its In / Out / Err, as its owner."""
    iwd = Path(str(ad.get("Iwd") or "/"))
    account = accounts.of_owner(ad.get("Owner"))
    with accounts.as_account(account):
        stdio = (
            _open(iwd, ad.get("In"), "rb"),
            _open(iwd, ad.get("Out"), "ab"),
            _open(iwd, ad.get("Err"), "ab"),
        )
    try:
        cmd = str(ad.get("Cmd") or "")
        argv = [cmd if cmd.startswith("/") else str(iwd / cmd), *arguments(ad)]
        env = environment(ad)
        env["CONDOR_ID"] = job_id(key)
        if config_file and not (env.get("CONDORX_CONFIG") or env.get("CONDOR_CONFIG")):
            env["CONDOR_CONFIG"] = config_file
        return Process(argv, env, iwd, stdio, account)
    finally:
        for f in stdio:
            f.close()


def _open(iwd: Path, name: object, mode: str) -> IO[bytes]:
    if not isinstance(name, str) or not name or name == "/dev/null":
        return open("/dev/null", mode)  # noqa: SIM115 - closed by the caller
    path = Path(name) if name.startswith("/") else iwd / name
    return open(path, mode)  # noqa: SIM115 - closed by the caller
