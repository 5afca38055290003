"""condor_qedit and condor_prio: change job attributes in the queue."""

from __future__ import annotations

import click

from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client.schedd import ScheddClient

QEDIT_OPTIONS = [
    a.Opt("constraint", 5, 1, help="modify the jobs this expression is true of", metavar="EXPR"),
    a.Opt("name", 2, 1, ("n",), help="modify jobs in the queue of this schedd", metavar="SCHEDD"),
]
QEDIT_USAGE = (
    "condor_qedit [-name SCHEDD] {cluster | cluster.proc | -constraint EXPR} ATTR VALUE..."
)
QEDIT_ARGUMENTS = [
    ("cluster | cluster.proc", "the job(s) to modify, unless -constraint is given"),
    ("ATTR VALUE", "set ATTR to VALUE, any ClassAd expression (strings in double quotes)"),
]
PRIO_OPTIONS = [
    a.Opt("p", 1, 1, help="set the priority (JobPrio) to N", metavar="N"),
    a.Opt("name", 2, 1, ("n",), help="change jobs queued at this schedd", metavar="SCHEDD"),
]
PRIO_USAGE = "condor_prio (-p N | +N | -N) [-name SCHEDD] {cluster | cluster.proc}..."
PRIO_ARGUMENTS = [
    ("+N", "increase the priority by N"),
    ("-N", "decrease the priority by N"),
    ("cluster | cluster.proc", "the job(s) whose priority changes"),
]


@a.command("condor_qedit", QEDIT_OPTIONS, QEDIT_USAGE, QEDIT_ARGUMENTS)
@click.pass_context
def qedit(ctx: click.Context) -> None:
    """Modify job attributes in the queue."""
    opts = a.parsed(ctx)
    words = list(opts.positional)
    constraint = opts.value("constraint")
    ids: list[str] = []
    if constraint is None:
        if not words:
            fail("condor_qedit: name a job (cluster or cluster.proc) or give -constraint")
        ids = [words.pop(0)]
    if not words or len(words) % 2:
        fail("condor_qedit: give attribute and value pairs")
    attrs = dict(zip(words[0::2], words[1::2], strict=True))
    client = ScheddClient(load("condor_qedit"), opts.value("name"))
    reply = run_client(client.edit, attrs, ids, constraint, tool="condor_qedit")
    if reply.denied:
        fail(f"condor_qedit: permission denied for jobs {', '.join(reply.denied)}")
    for name in attrs:
        print(f'Set attribute "{name}" for {reply.done} matching jobs.')


@a.command("condor_prio", PRIO_OPTIONS, PRIO_USAGE, PRIO_ARGUMENTS)
@click.pass_context
def prio(ctx: click.Context) -> None:
    """Change the priority (JobPrio) of jobs in the queue."""
    words = list(ctx.args)
    expr = None
    rest = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "-p" and i + 1 < len(words):  # -p -5: a value, not an adjustment
            rest += words[i : i + 2]
            i += 2
            continue
        if (w.startswith("+") or w.startswith("-")) and _is_int(w[1:]):
            expr = f"JobPrio {w[0]} {int(w[1:])}"
        else:
            rest.append(w)
        i += 1
    opts = a.parsed(ctx, rest)
    value = opts.value("p")
    if value is not None:
        expr = str(int(value)) if _is_int(value) else None
    if expr is None or not opts.positional:
        fail("condor_prio: usage: condor_prio (-p N | +N | -N) cluster[.proc]...")
    client = ScheddClient(load("condor_prio"), opts.value("name"))
    reply = run_client(
        client.edit, {"JobPrio": expr}, opts.positional, None, True, tool="condor_prio"
    )
    if reply.denied:
        fail(f"condor_prio: permission denied for jobs {', '.join(reply.denied)}")


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit()
