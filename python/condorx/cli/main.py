"""`condorx`: the umbrella command (demo, eval, bench)."""

from __future__ import annotations

import sys

import click

from condorx.classad import ClassAd, ClassAdParseError, ExprTree
from condorx.cli import args as a
from condorx.cli import output, running
from condorx.cli.bench import bench


# -help as well as --help, as HTCondor's tools take it (the subcommands inherit it).
@click.group(context_settings={"help_option_names": ["--help", "-help"]})
@click.version_option(package_name="condorx")
def main() -> None:
    """condorx: high-throughput batch scheduling in the HTCondor tradition."""
    running()


@main.command()
@click.option("--slots", default=2000, show_default=True, help="Slot ads in the pool.")
@click.option("--jobs", default=40, show_default=True, help="Idle job ads to match.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def demo(slots: int, jobs: int, as_json: bool) -> None:
    """Match a synthetic pool's jobs against its slots with the Rust ClassAd engine."""
    from condorx.demo import matching as pool_demo

    slot_ads, job_ads = pool_demo.make_pool(slots, jobs)
    results = pool_demo.match_pool(slot_ads, job_ads)
    if as_json:
        output.as_json([r.__dict__ for r in results])
        return
    rows = [
        (r.job_id, r.owner, r.requirements, r.matching_slots, r.best_slot or "-", r.best_rank)
        for r in results
    ]
    output.table(
        f"{len(job_ads)} jobs against {len(slot_ads)} slots (symmetric match, best by job Rank)",
        ("job", "owner", "Requirements", "slots", "best slot", "Rank"),
        rows,
    )
    matched = sum(1 for r in results if r.matching_slots)
    output.console.print(f"{matched} of {len(results)} jobs have at least one matching slot.")


@main.command("queue-demo")
def queue_demo() -> None:
    """Run a personal schedd in a scratch directory and drive it with the queue tools."""
    from condorx.demo.queue import run_demo

    run_demo()


@main.command("eval")
@click.argument("expression")
@click.option("--my", "my_text", help="The ad to evaluate in (new syntax: [ a = 1 ]).")
@click.option("--target", "target_text", help="The TARGET ad of a match (new syntax).")
def eval_cmd(expression: str, my_text: str | None, target_text: str | None) -> None:
    """Evaluate a ClassAd EXPRESSION and print its value."""
    try:
        expr = ExprTree(expression)
        my = ClassAd(my_text) if my_text else None
        target = ClassAd(target_text) if target_text else None
    except ClassAdParseError as e:
        click.echo(f"condorx eval: {e}", err=True)
        sys.exit(2)
    for name in expr.unknown_functions():
        click.echo(f"condorx eval: warning: unknown function {name}() evaluates to ERROR", err=True)
    click.echo(repr(expr.eval(scope=my, target=target)))


main.add_command(bench)


def _queue_commands() -> None:
    """The condor_* tools, also reachable as `condorx <name>` (`condorx q -nobatch`)."""
    from condorx.cli import (
        act,
        config_val,
        cron,
        drain,
        edit,
        history,
        now,
        ping,
        pool,
        q,
        sim,
        status,
        submit,
        tail,
        token,
        transfer_data,
        userlog,
        userprio,
        vacate,
        wait,
        watch_q,
        who,
    )

    for name, cmd in (
        ("submit", submit.main),
        ("q", q.main),
        ("rm", act.rm),
        ("hold", act.hold),
        ("release", act.release),
        ("suspend", act.suspend),
        ("continue", act.resume),
        ("history", history.main),
        ("qedit", edit.qedit),
        ("prio", edit.prio),
        ("config_val", config_val.main),
        ("token_create", token.create),
        ("status", status.main),
        ("pool", pool.pool),
        ("sim", sim.sim),
        ("cron", cron.cron),
        ("off", pool.off),
        ("on", pool.on),
        ("restart", pool.restart),
        ("reconfig", pool.reconfig),
        ("vacate", vacate.main),
        ("wait", wait.main),
        ("userlog", userlog.main),
        ("ping", ping.main),
        ("who", who.main),
        ("userprio", userprio.main),
        ("drain", drain.main),
        ("watch_q", watch_q.main),
        ("now", now.main),
        ("tail", tail.main),
        ("transfer_data", transfer_data.main),
    ):
        main.add_command(cmd.as_click() if isinstance(cmd, a.Tool) else cmd, name)


_queue_commands()

if __name__ == "__main__":
    main()
