"""A personal pool, and the master's commands.

condorx pool up [--dir DIR]     start a personal pool (a master and its daemons)
condorx pool down               stop it
condorx pool status             the master's daemons
condor_off / condor_on / condor_restart / condor_reconfig [-daemon NAME]...
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Collection, Sequence
from pathlib import Path

import click
import trio

from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client import master
from condorx.client.collector import CollectorClient
from condorx.language.config import Config
from condorx.transport import locate
from condorx.transport.protocol.master import Off
from condorx.transport.wire import WireError

PERSONAL = """\
# A personal condorx pool: every daemon on this machine, talking over loopback.
use ROLE : Personal
LOCAL_DIR = {dir}
# The pool's own passwords.d (its signing key) and tokens.d, not /passwords.d.
ETC = $(LOCAL_DIR)/etc
NEGOTIATOR_INTERVAL = 5
UPDATE_INTERVAL = 5
SCHEDD_INTERVAL = 5
MASTER_UPDATE_INTERVAL = 30
"""


@click.group()
def pool() -> None:
    """Start, stop and look at a personal pool on this machine."""


@pool.command()
@click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path),
    help="Where the pool lives (default: ~/.condorx).",
)
def up(directory: Path | None) -> None:
    """Start a personal pool: a master and its collector, negotiator, startd and schedd."""
    root = (directory or Path(os.path.expanduser("~")) / ".condorx").resolve()
    config = root / "condor_config"
    if not config.exists():
        root.mkdir(parents=True, exist_ok=True)
        config.write_text(PERSONAL.format(dir=root))
        click.echo(f"Wrote a personal configuration: {config}")
    env = {**os.environ, "CONDORX_CONFIG": str(config)}
    os.environ["CONDORX_CONFIG"] = str(config)
    cfg = load("condorx pool up", "MASTER")
    if os.path.exists(locate.master_socket(cfg)) and answers(cfg):
        click.echo(f"A pool is already running from {root}.")
        return
    start_master(cfg, env)
    # What DAEMON_LIST runs here is waited for: a submit node, or a central manager
    # alone, has no startd, and no slot need appear.
    listed = {n.lower() for n in cfg.get_list("DAEMON_LIST")}
    runs_startd = "startd" in listed
    wait_ready(cfg, "condorx pool up", slots=int(runs_startd), startd=runs_startd, only=listed)
    htcondor = write_htcondor_config(cfg, root, config)
    click.echo(f"Personal pool up in {root}.")
    click.echo(f"Use it from other shells with: export CONDORX_CONFIG={config}")
    click.echo(f"HTCondor's own clients (pip install htcondor): export CONDOR_CONFIG={htcondor}")


def write_htcondor_config(cfg: Config, root: Path, config: Path) -> Path:
    """A configuration HTCondor's clients read: the pool's own, and where its collector
    listens (a personal pool's collector takes a free port, published in a file that
    only condorx reads), written anew each time the pool comes up."""
    path = root / "htcondor_config"
    address = locate.collector_address(cfg) or ""
    path.write_text(
        "# For HTCondor's own clients (its Python bindings, its tools):\n"
        f"#     export CONDOR_CONFIG={path}\n"
        f"include : {config}\n"
        f"COLLECTOR_HOST = {address}\n"
    )
    return path


def start_master(cfg: Config, env: dict[str, str]) -> None:
    """Start the pool's master in a session of its own (it outlives this command), its
    output in the log directory's master.out."""
    log = Path(locate.log_dir(cfg))
    log.mkdir(parents=True, exist_ok=True)
    with open(log / "master.out", "ab") as out:
        subprocess.Popen(
            [sys.executable, "-m", "condorx.daemons", "master"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def stop_master(cfg: Config, tool: str) -> None:
    """Tell the master to stop its daemons and itself, and wait until it has."""
    run_client(master.off, cfg, Off(master=True), tool=tool)
    deadline = time.monotonic() + 60
    while os.path.exists(locate.master_socket(cfg)) and answers(cfg):
        if time.monotonic() > deadline:
            fail(f"{tool}: the master did not stop")
        time.sleep(0.2)


def answers(cfg: Config) -> bool:
    try:
        trio.run(master.status, cfg)
        return True
    except (OSError, WireError):
        return False


def wait_ready(
    cfg: Config,
    tool: str,
    slots: int,
    startd: bool = True,
    timeout: float = 60.0,
    also: Sequence[str] = (),
    only: Collection[str] | None = None,
) -> None:
    """Until the schedd, the collector and the negotiator (those of them in `only`, when
    given), the startd, and the daemons whose address files `also` names listen, and the
    collector holds `slots` slots: the pool takes a submission once the tool returns."""
    deadline = time.monotonic() + timeout
    files = {
        "schedd": locate.schedd_address_file,
        "collector": locate.collector_address_file,
        "negotiator": locate.negotiator_address_file,
    }
    wanted = [where(cfg) for name, where in files.items() if only is None or name in only]
    wanted += also
    if startd:
        wanted.append(locate.startd_address_file(cfg))
    while not (
        all(os.path.exists(p) for p in wanted) and (slots == 0 or count_slots(cfg) >= slots)
    ):
        if time.monotonic() > deadline:
            fail(f"{tool}: the pool did not come up; see {locate.log_dir(cfg)}")
        time.sleep(0.2)


def count_slots(cfg: Config) -> int:
    """How many slots the collector knows (0 while the pool is still starting)."""
    client = CollectorClient(cfg)
    try:
        return len(trio.run(client.query_rows, "machine", ["Name"]))
    except (OSError, WireError):
        return 0


@pool.command()
def down() -> None:
    """Stop the personal pool (the master stops its daemons, then itself)."""
    stop_master(load("condorx pool down", "MASTER"), "condorx pool down")
    click.echo("Pool stopped.")


@pool.command("demo")
def demo_cmd() -> None:
    """Bring up a personal pool in a scratch directory, run three real jobs, bring it down."""
    from condorx.demo.pool import run_demo

    run_demo(click.echo)


@pool.command()
def status() -> None:
    """The master's daemons, their pids and restarts."""
    cfg = load("condorx pool status", "MASTER")
    daemons = run_client(master.status, cfg, tool="condorx pool status")
    for name, info in sorted(daemons.items()):
        click.echo(f"{name:<12} pid {info['pid'] or '-':<8} restarts {info['restarts']}")


_NO_EFFECT = "accepted; no effect on {tool}"
# What each of the master's commands does with each option (HTCondor's words where it has
# them; condor_off alone honours the shutdown modes and -master).
_MASTER_HELP = {
    "off": {
        "daemon": "shut down only this daemon (repeatable); default: all but the master",
        "master": "shut down the condor_master too, after the others",
        "fast": "quickly shut down daemons (jobs are killed at once)",
        "peaceful": "wait indefinitely for jobs to finish",
    },
    "on": {"daemon": "start only this daemon (repeatable); default: all of DAEMON_LIST"},
    "restart": {"daemon": "restart only this daemon (repeatable); default: all of DAEMON_LIST"},
    "reconfig": {},  # every daemon rereads the configuration: the master restarts them
}
_MASTER_OPTIONS = [
    ("daemon", 2, 1, "NAME"),
    ("master", 2, 0, ""),
    ("fast", 2, 0, ""),
    ("peaceful", 2, 0, ""),
]
_MASTER_DOC = {
    "off": "Shut down the master's daemons (the master too with -master).",
    "on": "Start the master's daemons.",
    "restart": "Restart the master's daemons.",
    "reconfig": "Make the master and its daemons read the configuration again.",
}


def master_options(cmd: str, tool: str) -> list[a.Opt]:
    said = _MASTER_HELP[cmd]
    return [
        a.Opt(name, prefix, takes, help=said.get(name, _NO_EFFECT.format(tool=tool)), metavar=mv)
        for name, prefix, takes, mv in _MASTER_OPTIONS
    ]


def _master_command(cmd: str, tool: str) -> a.Tool:
    usage = f"{tool} [-daemon NAME]... [-master] [-fast | -peaceful]"

    # tool.cpp: usage(MyName, 0), on stderr.
    @a.command(tool, master_options(cmd, tool), usage, help=_MASTER_DOC[cmd], help_to_stderr=True)
    def command(ctx: a.Context) -> None:
        opts = a.parsed(ctx)
        cfg = load(tool, "MASTER")
        daemons = [d.lower() for d in opts.values.get("daemon", [])]
        flags = opts.flags
        if cmd == "off":
            req = Off(daemons, "master" in flags, "fast" in flags, "peaceful" in flags)
            done = run_client(master.off, cfg, req, tool=tool)
        elif cmd == "reconfig":
            done = run_client(master.reconfig, cfg, tool=tool)
        else:
            done = run_client(master.on if cmd == "on" else master.restart, cfg, daemons, tool=tool)
        click.echo(f'Sent "{cmd}" to the master: {", ".join(done) or "nothing to do"}')

    return command


off = _master_command("off", "condor_off")
on = _master_command("on", "condor_on")
restart = _master_command("restart", "condor_restart")
reconfig = _master_command("reconfig", "condor_reconfig")
