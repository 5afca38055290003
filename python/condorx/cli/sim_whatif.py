"""condorx sim whatif: what a pool would run under a changed configuration, before and
after, per accounting group (`condorx.sim.whatif`).

condorx sim whatif --machine-ads STATUS_DUMP --jobs QUEUE_DUMP --after FILE
    [--before FILE] [--json]

The configuration before is the pool's own (CONDORX_CONFIG), or --before; after is the
same with FILE read last (a quota change is a few lines). Each is replayed on the dumped
machines and jobs, from an empty pool, until a cycle matches nothing more.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import click

from condorx.cli.common import fail
from condorx.language.config import Config, load_config
from condorx.language.config.config import config_path
from condorx.language.config.errors import ConfigError
from condorx.sim import whatif
from condorx.sim.ad_dump import DumpError

TOOL = "condorx sim whatif"


@click.command("whatif")
@click.option(
    "--machine-ads",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="The pool's machines: its `condor_status -l` output.",
)
@click.option(
    "--jobs",
    "queue",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="The jobs to run: the pool's `condor_q -l` output (its idle jobs count).",
)
@click.option(
    "--after",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="The change: a configuration file read after the one before.",
)
@click.option(
    "--before",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The configuration before (default: the pool's own, CONDORX_CONFIG).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcomes as JSON.")
def whatif_command(
    machine_ads: Path, queue: Path, after: Path, before: Path | None, as_json: bool
) -> None:
    """What the pool would run under another configuration, per accounting group."""
    base = before.resolve() if before else _own_config()
    try:
        cfgs = {"before": _config(base, None), "after": _config(base, after.resolve())}
        jobs = whatif.jobs(queue)
        outcomes = {
            name: whatif.replay(cfg, whatif.machines(cfg, machine_ads), jobs)
            for name, cfg in cfgs.items()
        }
    except (ConfigError, DumpError) as e:
        fail(f"{TOOL}: {str(e).removeprefix('SIM_MACHINE_ADS: ')}")
    if as_json:
        click.echo(json.dumps({name: _plain(o) for name, o in outcomes.items()}, indent=2))
    else:
        click.echo(table(outcomes["before"], outcomes["after"]))


def _own_config() -> Path | None:
    chosen = config_path(os.environ)
    return Path(chosen).resolve() if chosen and chosen != "ONLY_ENV" else None


def _config(base: Path | None, change: Path | None) -> Config:
    """The configuration `base` names, with `change` read after it."""
    if change is None:
        return load_config(subsystem="NEGOTIATOR", path=base) if base else Config.from_text("")
    with tempfile.TemporaryDirectory(prefix="whatif") as d:
        both = Path(d) / "condor_config"
        text = f"include : {base}\n" if base else ""
        both.write_text(f"{text}include : {change}\n")
        return load_config(subsystem="NEGOTIATOR", path=both)


def _plain(o: whatif.Outcome) -> dict[str, object]:
    return {
        "running": dict(sorted(o.running.items())),
        "idle": dict(sorted(o.idle.items())),
        "quotas": dict(sorted(o.quotas.items())),
        "cycles": o.cycles,
        "slots": o.slots,
    }


def table(before: whatif.Outcome, after: whatif.Outcome) -> str:
    """Each group's quota, running and idle jobs before and after, and the change in its
    running jobs; then the totals."""
    groups = sorted(
        set(before.running)
        | set(after.running)
        | set(before.quotas)
        | set(after.quotas)
        | set(before.idle)
        | set(after.idle)
    )
    width = max([len("Group"), *map(len, groups)])
    head = f"{'':<{width}}  {'--------- before ---------':>26}  {'--------- after ----------':>26}"
    cols = f"{'Group':<{width}}  {'Quota':>8} {'Running':>8} {'Idle':>8}  "
    cols += f"{'Quota':>8} {'Running':>8} {'Idle':>8}  {'Change':>7}"
    lines = [head, cols]
    for g in groups:
        lines.append(
            f"{g:<{width}}  {_quota(before, g)} {before.running[g]:>8} {before.idle[g]:>8}  "
            f"{_quota(after, g)} {after.running[g]:>8} {after.idle[g]:>8}  "
            f"{after.running[g] - before.running[g]:>+7}"
        )
    b, a = sum(before.running.values()), sum(after.running.values())
    lines.append(
        f"{'Total':<{width}}  {'':>8} {b:>8} {sum(before.idle.values()):>8}  "
        f"{'':>8} {a:>8} {sum(after.idle.values()):>8}  {a - b:>+7}"
    )
    lines.append(
        f"{before.slots} slots; {before.cycles} and {after.cycles} negotiation cycles"
        " from an empty pool."
    )
    return "\n".join(lines)


def _quota(o: whatif.Outcome, group: str) -> str:
    q = o.quotas.get(group)
    return f"{q:>8.1f}" if q is not None else f"{'-':>8}"
