"""Command-line tools run for tests, each in a process of its own as its installed script
runs, but forked from a server that has imported the tools once.

A fresh Python that imports a tool costs about 0.3 s of CPU (trio, click, the
configuration tables); the pool tests call tools thousands of times, mostly to poll, and
on two cores that CPU was taken from the daemons the tests were waiting on. The child
still starts from a clean state each time (nothing a call does survives it), with its own
environment, working directory, argv and standard streams. multiprocessing's forkserver
does the forking; the server itself is single-threaded, so forking it is safe."""

from __future__ import annotations

import functools
import importlib
import multiprocessing
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# The tools the tests run; any other is imported in its child.
PRELOAD = [
    "condorx.cli.act",
    "condorx.cli.history",
    "condorx.cli.pool",
    "condorx.cli.q",
    "condorx.cli.router",
    "condorx.cli.status",
    "condorx.cli.submit",
    "condorx.cli.token",
    "condorx.cli.vacate",
]


@functools.cache
def _forkserver() -> Any:
    """The context whose server forks the tools (started on its first use)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def _child(
    module: str, func: str, argv: list[str], env: dict[str, str], cwd: str, out: str, err: str
) -> None:
    """In the forked child: become the tool's process, then run it (its exit status is
    the child's). The child comes from the server, not from us: files go by name."""
    become(env, cwd, out, err)
    sys.argv = argv
    getattr(importlib.import_module(module), func)()


def become(env: dict[str, str], cwd: str, out: str, err: str) -> None:
    """A forked child takes its own environment, working directory and standard streams
    (stdin from /dev/null, stdout and stderr appended to the files named)."""
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    stdio = (
        os.open(os.devnull, os.O_RDONLY),
        os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT),
        os.open(err, os.O_WRONLY | os.O_APPEND | os.O_CREAT),
    )
    for target, fd in enumerate(stdio):
        if fd != target:
            os.dup2(fd, target)
            os.close(fd)


def run_tool(
    target: str, args: Sequence[str], env: dict[str, str], cwd: Path, name: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command-line tool (`module` or `module:function`, a click entry point) with
    `name` as its argv[0]; its output and exit status as subprocess.run gives them."""
    module, _, func = target.partition(":")
    argv = [name or module, *args]
    with tempfile.TemporaryDirectory(prefix="tool") as d:
        out, err = Path(d) / "out", Path(d) / "err"
        out.touch()
        err.touch()
        p = _forkserver().Process(
            target=_child,
            args=(module, func or "main", argv, dict(env), str(cwd), str(out), str(err)),
        )
        p.start()
        p.join()
        return subprocess.CompletedProcess(
            argv,
            p.exitcode if p.exitcode is not None else -1,
            out.read_text(errors="replace"),
            err.read_text(errors="replace"),
        )
