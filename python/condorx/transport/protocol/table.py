"""Every command a condorx daemon answers: its request type, the permission it needs, its
reply type, and whether it changes the job queue (those go to the audit log). The servers check
permissions here and nowhere else; a handler decides only what is finer than this (which
jobs are whose).
"""

from __future__ import annotations

import enum

from condorx.record import record
from condorx.transport.protocol import (
    collector,
    core,
    job_router,
    master,
    negotiator,
    startd,
)
from condorx.transport.protocol.message import Count, Done, Each, Message, Reply
from condorx.transport.protocol.schedd import act, files, peers, query, submit


class Permission(enum.Enum):
    READ = "read"  # anyone, even a peer that proved nothing
    WRITE = "write"  # an authenticated user: on their own jobs, the handler says which
    DAEMON = "daemon"  # the pool's own daemons
    ADMINISTRATOR = "administrator"  # the pool, root, or the user the daemons run as
    # An update of the collector's ads: past the gate (WRITE, where HTCondor's FLOCK_FROM
    # goes too), each ad's type asks its own level (ADVERTISE_STARTD for a slot's, ...).
    ADVERTISE = "advertise"
    # A negotiator's talk with a schedd (its jobs, its matches): HTCondor's NEGOTIATOR.
    NEGOTIATOR = "negotiator"

    @property
    def level(self) -> str:
        """HTCondor's name for this level (what the ALLOW_<LEVEL> lists grant)."""
        return "WRITE" if self is Permission.ADVERTISE else self.name


@record(frozen=True)
class Command:
    request: type[Message]
    permission: Permission
    reply: type[Reply] = Done
    audited: bool = False  # a change to the job queue: who, what, when in the audit log
    also: tuple[type[Reply], ...] = ()  # what else it may answer, asked for more

    @property
    def replies(self) -> tuple[type[Reply], ...]:
        return (self.reply, *self.also)

    @property
    def name(self) -> str:
        return self.request.command


R, W, D, A = Permission.READ, Permission.WRITE, Permission.DAEMON, Permission.ADMINISTRATOR
N = Permission.NEGOTIATOR

COMMANDS: dict[str, tuple[Command, ...]] = {
    "collector": (
        Command(collector.Advertise, Permission.ADVERTISE, Count),
        Command(collector.Invalidate, D, Count),
        Command(collector.QueryAds, R, Count),  # after the rows, streamed
    ),
    "negotiator": (
        Command(negotiator.Reschedule, D),
        Command(negotiator.GetPriorities, R, negotiator.Priorities),
        Command(negotiator.EditUser, A),
    ),
    "master": (
        Command(master.Off, A, master.Stopped),
        Command(master.On, A, master.Started),
        Command(master.Restart, A, master.Restarted),
        Command(master.Reconfig, A, master.Reconfigured),
        Command(master.Status, W, master.MasterStatus),
    ),
    "defrag": (),  # condor_defrag answers DaemonCore's commands alone
    "job_router": (
        Command(job_router.DescribeRoutes, W, job_router.Routes),
        Command(job_router.PollNow, W),
    ),
    "schedd": (
        Command(submit.Submit, W, submit.Submitted, audited=True),
        Command(submit.Transact, W, submit.Transacted, audited=True),
        Command(submit.Reserve, W, submit.Reserved, audited=True),
        Command(peers.Route, A, peers.Routed, audited=True),
        Command(query.QueryJobs, R, Count),  # after the rows, streamed
        Command(query.History, R, Count),  # after the rows, streamed
        Command(query.QueryClaims, R, Count),  # after the rows, streamed
        Command(query.AggregateJobs, R, Count),  # after the rows, streamed
        Command(act.Reschedule, W),
        Command(query.Autoclusters, N, Count),  # after the rows, streamed
        Command(act.Act, W, act.Acted, audited=True),
        Command(act.Edit, W, act.Acted, audited=True),
        Command(peers.Exited, D, peers.ExitRecorded, audited=True),
        Command(files.Retrieve, W, files.Output),
        Command(files.StageIn, W, audited=True),
        Command(files.StageOut, W, submit.JobIds, audited=True),
        Command(act.RunNow, W, audited=True),
        # The negotiator's matches are left out: a cycle may make thousands (the job log
        # has them).
        Command(peers.Matched, N),
        Command(peers.MatchedMany, N, Each),
        Command(peers.Rejected, N),
    ),
    "startd": (
        Command(startd.Match, D, startd.MatchTaken),
        Command(startd.Matches, D, Each),
        # A claim that brings its first job answers as that job's run does.
        Command(startd.ClaimSlot, D, startd.Claimed, also=(startd.RunEnded,)),
        Command(startd.RunJob, D, startd.RunEnded),  # after the run's frames, streamed
        Command(startd.Deactivate, D, startd.Deactivated),
        Command(startd.Suspend, D),
        Command(startd.Continue, D),
        Command(startd.Release, D),
        Command(startd.Vacate, A, startd.Vacated),
        Command(startd.QuerySlots, R, startd.SlotAds),
        Command(startd.DrainJobs, A, startd.DrainStarted),
        Command(startd.CancelDrain, A),
        Command(startd.Peek, W, startd.Peeked),
    ),
}


# What every daemon answers besides its own commands; the server itself handles them.
CORE: tuple[Command, ...] = (Command(core.Ping, R, core.Pinged),)


def of(daemon: str) -> dict[str, Command]:
    """The daemon's commands by name, the core ones among them."""
    return {c.name: c for c in (*CORE, *COMMANDS[daemon])}


def level(name: str) -> Permission | None:
    """A permission level by HTCondor's name for it (`condor_ping WRITE`): HTCondor's
    finer levels are the condorx level that guards the same commands."""
    return _LEVELS.get(name.upper())


_LEVELS = {
    "ALLOW": R,
    "READ": R,
    "WRITE": W,
    "NEGOTIATOR": N,
    "DAEMON": D,
    "ADVERTISE_STARTD": D,
    "ADVERTISE_SCHEDD": D,
    "ADVERTISE_MASTER": D,
    "ADMINISTRATOR": A,
    "OWNER": A,
    "CONFIG": A,
}
