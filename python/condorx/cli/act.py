"""condor_rm, condor_hold, condor_release: act on jobs named by id, owner or constraint."""

from __future__ import annotations

import click

from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client.schedd import ScheddClient

OPTIONS = [
    a.Opt("constraint", 5, 1),
    a.Opt("reason", 3, 1),
    a.Opt("all", 3),
    a.Opt("name", 2, 1),
    a.Opt("subcode", 3, 1),
]
_VERB = {
    "remove": ("condor_rm", "marked for removal"),
    "hold": ("condor_hold", "held"),
    "release": ("condor_release", "released"),
    "suspend": ("condor_suspend", "suspended"),
    "continue": ("condor_continue", "continued"),
}


def _act(action: str, words: list[str]) -> None:
    tool, done_text = _VERB[action]
    opts = a.parse(words, OPTIONS, tool)
    cfg = load(tool)
    ids = [w for w in opts.positional if w.replace(".", "").isdigit()]
    users = [w for w in opts.positional if w not in ids]
    parts = [f"({c})" for c in opts.values.get("constraint", [])]
    if users:
        parts.append("(" + " || ".join(f'(Owner == "{u}")' for u in users) + ")")
    if "all" in opts.flags:
        parts.append("true")
    constraint = " && ".join(parts) or None
    if not ids and constraint is None:
        fail(f"{tool}: name jobs by cluster, cluster.proc, user, -constraint or -all")
    client = ScheddClient(cfg, opts.value("name"))
    reply = run_client(client.act, action, ids, constraint, opts.value("reason"), tool=tool)
    for job in reply.get("denied", []):
        print(f"{tool}: permission denied for job {job}: not your job", flush=True)
    for word in ids:
        what = f"All jobs in cluster {word} have been" if "." not in word else f"Job {word}"
        print(f"{what} {done_text}")
    if constraint is not None:
        print(f"Jobs matching constraint {constraint} have been {done_text} ({reply['done']} jobs)")
    if reply.get("denied"):
        raise SystemExit(1)


@click.command(context_settings=a.CONTEXT)
@click.pass_context
def rm(ctx: click.Context) -> None:
    """Remove jobs from the queue."""
    _act("remove", ctx.args)


@click.command(context_settings=a.CONTEXT)
@click.pass_context
def hold(ctx: click.Context) -> None:
    """Put jobs on hold."""
    _act("hold", ctx.args)


@click.command(context_settings=a.CONTEXT)
@click.pass_context
def release(ctx: click.Context) -> None:
    """Release held jobs."""
    _act("release", ctx.args)


@click.command(context_settings=a.CONTEXT)
@click.pass_context
def suspend(ctx: click.Context) -> None:
    """Suspend running jobs (SIGSTOP to each job's process tree)."""
    _act("suspend", ctx.args)


@click.command(context_settings=a.CONTEXT, name="continue")
@click.pass_context
def resume(ctx: click.Context) -> None:
    """Continue suspended jobs."""
    _act("continue", ctx.args)
