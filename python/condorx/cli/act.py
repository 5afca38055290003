"""condor_rm, condor_hold, condor_release, condor_suspend, condor_continue: act on jobs
named by cluster.proc, cluster, user, -constraint or -all, answering as HTCondor's tools do.

Each cluster.proc gets a line of its own (`Job 12.0 marked for removal`, or on stderr why
not); clusters, users, -constraint and -all together make one constraint, answered with one
line (`All jobs in cluster 12 have been marked for removal`). `condor_rm -forcex` lets a
job already Removed (X) leave the queue at once.
"""

from __future__ import annotations

import sys

from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client.schedd import ScheddClient
from condorx.record import replace
from condorx.transport.protocol.schedd.act import Acted

OPTIONS = [
    a.Opt("constraint", 5, 1, help="act on the jobs this expression is true of", metavar="EXPR"),
    a.Opt("reason", 3, 1, help="the reason recorded with the action", metavar="TEXT"),
    a.Opt("all", 3, help="act on all of your jobs"),
    a.Opt("name", 2, 1, help="the schedd to talk to", metavar="NAME"),
    a.Opt("subcode", 3, 1, help="condor_hold: the HoldReasonSubCode", metavar="N"),
    a.Opt("forcex", 1, help="condor_rm: jobs already removed (X) leave the queue at once"),
]
USAGE = "{tool} [options] [cluster | cluster.proc | user]..."


class _Verb:
    def __init__(self, tool: str, past: str, present: str, denied: str) -> None:
        self.tool, self.past, self.present, self.denied = tool, past, present, denied


_VERBS = {
    "remove": _Verb("condor_rm", "marked for removal", "remove", "remove"),
    "remove-x": _Verb(
        "condor_rm", "removed locally (remote state unknown)", "remove", "force removal of"
    ),
    "hold": _Verb("condor_hold", "held", "hold", "hold"),
    "release": _Verb("condor_release", "released", "release", "release"),
    "suspend": _Verb("condor_suspend", "suspended", "suspend", "suspend"),
    "continue": _Verb("condor_continue", "continued", "continue", "continue"),
}
_BAD_STATUS = {
    "release": "not held to be released",
    "remove-x": "not in `X' state to be forcibly removed",
    "suspend": "not running to be suspended",
    "continue": "not running to be continued",
}
_ALREADY = {
    "hold": "already held",
    "remove": "already marked for removal",
    "suspend": "already suspended",
    "continue": "already running",
    "remove-x": "already marked for forced removal",
}


def _job_message(action: str, job: str, result: str) -> str:
    verb = _VERBS[action]
    if result == "ok":
        return f"Job {job} {verb.past}"
    if result == "not-found":
        return f"Job {job} not found"
    if result == "denied":
        return f"Permission denied to {verb.denied} job {job}"
    table = _BAD_STATUS if result == "bad-status" else _ALREADY
    if action in table:
        return f"Job {job} {table[action]}"
    return f"Invalid result for job {job}"


def _constraint(opts: a.Parsed, clusters: list[str], users: list[str]) -> tuple[str, str] | None:
    """The one constraint the non-id words make, and how the answer names it:
    (constraint, " in cluster 12" | " of user \"bob\"" | " matching constraint (...)" | "")."""
    # the clusters and users named, as HTCondor's tools join them
    usercluster = " || ".join(
        [f"ClusterId == {c}" for c in clusters] + [f'Owner == "{u}"' for u in users]
    )
    given = opts.values.get("constraint", [])
    parts = list(given)
    kind = "simple" if len(given) == 1 else "complex"
    if "all" in opts.flags and not parts:
        parts, kind = ["ClusterId >= 0"], "all"
    if usercluster:
        if not parts:
            kind = "complex"
            if len(clusters) + len(users) == 1:
                kind = "cluster" if clusters else "user"
        else:
            kind = "complex"
        parts.append(usercluster)
    if not parts:
        return None
    text = parts[0] if len(parts) == 1 else " && ".join(f"({p})" for p in parts)
    if kind == "cluster":
        return text, f" in cluster {clusters[0]}"
    if kind == "user":
        return text, f' of user "{users[0]}"'
    if kind == "all":
        return text, ""
    return text, f" matching constraint ({text})"


def _act(action: str, opts: a.Parsed) -> None:
    tool = _VERBS[action].tool
    if "forcex" in opts.flags:
        if action != "remove":
            fail("-forcex is only valid with condor_rm")
        action = "remove-x"
    if "all" in opts.flags and opts.positional:
        fail(f"{tool}: -all takes no job ids or users")
    ids: list[str] = []
    clusters: list[str] = []
    users: list[str] = []
    errors = False
    for word in opts.positional:
        cluster, dot, proc = word.partition(".")
        if word[:1].isdigit():
            if not cluster.isdigit() or int(cluster) <= 0:
                print(f"Invalid cluster # from {word}.", file=sys.stderr)
                errors = True
            elif not dot:
                clusters.append(str(int(cluster)))
            elif proc.isdigit():
                ids.append(f"{int(cluster)}.{int(proc)}")
            else:
                print(f'Warning: unrecognized "{word}" skipped.', file=sys.stderr)
        else:
            users.append(word)
    chosen = _constraint(opts, clusters, users)
    if not ids and chosen is None:
        fail("You did not specify any jobs")
    cfg = load(tool)
    client = ScheddClient(cfg, opts.value("name"))
    reason = opts.value("reason")
    if ids:
        if opts.values.get("constraint"):
            print("Warning, -constraint is ignored for fully qualified job ids", file=sys.stderr)
        reply = run_client(client.act, action, ids, None, reason, True, tool=tool)
        results: dict[str, str] = reply.results or {}
        for job in ids:
            result = results.get(job, "not-found")
            out = sys.stdout if result == "ok" else sys.stderr
            print(_job_message(action, job, result), file=out, flush=True)
        # As HTCondor's: a list of ids fails only when none of them could be acted on.
        errors = errors or not any(results.get(job) == "ok" for job in ids)
    if chosen is not None:
        errors = _by_constraint(client, action, chosen, reason, tool) or errors
    if errors:
        raise SystemExit(1)


def _by_constraint(
    client: ScheddClient, action: str, chosen: tuple[str, str], reason: str | None, tool: str
) -> bool:
    """One constraint's action and its line; True when it failed."""
    constraint, named = chosen
    verb = _VERBS[action]
    reply: Acted = run_client(client.act, action, [], constraint, reason, True, tool=tool)
    if reply.done:
        print(f"All jobs{named} have been {verb.past}", flush=True)
        return False
    # As HTCondor's: an empty queue is said so, and is no failure.
    empty = reply.queue_size == 0
    print(f"{tool}:0:There are no jobs in the queue" if empty else "", file=sys.stderr)
    if not empty:
        print(f"Couldn't find/{verb.present} all jobs{named}", file=sys.stderr)
    return not empty


def _as_seen_by(action: str, opt: a.Opt) -> a.Opt:
    """Each tool reads every option (HTCondor's share a parser, and say "-forcex is only
    valid with condor_rm"); its --help says which do nothing there."""
    if opt.name == "forcex" and action != "remove":
        return replace(opt, help="only valid with condor_rm")
    if opt.name == "subcode" and action != "hold":
        return replace(opt, help="only condor_hold's (ignored)")
    return opt


def _command(action: str, doc: str, name: str | None = None) -> a.Tool:
    tool = _VERBS[action].tool
    opts = [_as_seen_by(action, o) for o in OPTIONS]

    # rm.cpp: usage(0), on stderr.
    @a.command(
        tool,
        opts,
        USAGE.format(tool=tool),
        name=name or tool,
        help=doc,
        help_to_stderr=True,
    )
    def run(ctx: a.Context) -> None:
        _act(action, a.parsed(ctx))

    return run


rm = _command("remove", "Remove jobs from the queue.")
hold = _command("hold", "Put jobs on hold.")
release = _command("release", "Release held jobs.")
suspend = _command("suspend", "Suspend running jobs (SIGSTOP to each job's process tree).")
resume = _command("continue", "Continue suspended jobs.", name="continue")
