"""condor_qedit and condor_prio: change job attributes in the queue."""

from __future__ import annotations

import click

from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client.schedd import ScheddClient


@click.command(context_settings=a.CONTEXT)
@click.pass_context
def qedit(ctx: click.Context) -> None:
    """condor_qedit [-constraint EXPR | JOB] ATTR VALUE [ATTR VALUE ...]"""
    opts = a.parse(ctx.args, [a.Opt("constraint", 5, 1), a.Opt("name", 2, 1)], "condor_qedit")
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
    if reply.get("denied"):
        fail(f"condor_qedit: permission denied for jobs {', '.join(reply['denied'])}")
    for name in attrs:
        print(f'Set attribute "{name}" for {reply["done"]} matching jobs.')


@click.command(context_settings=a.CONTEXT)
@click.pass_context
def prio(ctx: click.Context) -> None:
    """condor_prio (-p N | +N | -N) JOB... : set or change JobPrio."""
    words = list(ctx.args)
    expr = None
    rest = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "-p" and i + 1 < len(words):
            expr = str(int(words[i + 1])) if _is_int(words[i + 1]) else None
            i += 2
            continue
        if (w.startswith("+") or w.startswith("-")) and _is_int(w[1:]):
            expr = f"JobPrio {w[0]} {int(w[1:])}"
        else:
            rest.append(w)
        i += 1
    if expr is None or not rest:
        fail("condor_prio: usage: condor_prio (-p N | +N | -N) cluster[.proc]...")
    client = ScheddClient(load("condor_prio"))
    reply = run_client(client.edit, {"JobPrio": expr}, rest, None, True, tool="condor_prio")
    if reply.get("denied"):
        fail(f"condor_prio: permission denied for jobs {', '.join(reply['denied'])}")


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit()
