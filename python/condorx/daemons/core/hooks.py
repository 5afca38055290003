"""Job hooks (manual 4.4): programs a site plugs in, that the startd and the starter
run at set moments of a job's life.

A keyword names a set of hooks: `<KEYWORD>_HOOK_FETCH_WORK`, `_REPLY_FETCH`,
`_EVICT_CLAIM` (the startd's) and `_PREPARE_JOB`, `_UPDATE_JOB_INFO`, `_JOB_EXIT` (the
starter's). Each runs as a program of its own, never through a shell: its argument list
is fixed (`accept`, `exit`, ...) and ads reach it only on its standard input, so nothing
in a job ad can be injected into a command line. Each runs in a session of its own with
a time limit (`<KEYWORD>_HOOK_<NAME>_TIMEOUT`, else `JOB_HOOK_TIMEOUT`, 60 s), after
which its whole process group is killed: a hook that hangs, crashes or is missing costs
the daemon one log line, never a stall.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import trio

from condorx.classad import ClassAd
from condorx.host.accounts import Account, options

log = logging.getLogger("condorx.daemons.core.hooks")

STARTD_HOOKS = ("FETCH_WORK", "REPLY_FETCH", "EVICT_CLAIM")
STARTER_HOOKS = ("PREPARE_JOB", "UPDATE_JOB_INFO", "JOB_EXIT")
DEFAULT_TIMEOUT = 60.0
SEPARATOR = "-----\n"
# What a hook may print before the rest is dropped: a job ad, not a flood.
MAX_OUTPUT = 1 << 20


@dataclass(frozen=True)
class Hook:
    keyword: str
    name: str  # FETCH_WORK, PREPARE_JOB, ...
    path: str
    timeout: float

    @property
    def label(self) -> str:
        """How the configuration names it, for log lines and hold reasons."""
        return f"{self.keyword}_HOOK_{self.name}"

    def to_wire(self) -> list[Any]:
        return [self.keyword, self.name, self.path, self.timeout]

    @classmethod
    def from_wire(cls, v: Any) -> Hook:
        keyword, name, path, timeout = v
        return cls(str(keyword), str(name), str(path), float(timeout))


def configured(cfg: Any, keyword: str, names: Sequence[str]) -> dict[str, Hook]:
    """The hooks of `keyword` the configuration defines, by name."""
    default = cfg.get_float("JOB_HOOK_TIMEOUT", DEFAULT_TIMEOUT)
    found = {}
    for name in names:
        path = (cfg.get(f"{keyword}_HOOK_{name}") or "").strip()
        if path:
            timeout = cfg.get_float(f"{keyword}_HOOK_{name}_TIMEOUT", default)
            found[name] = Hook(keyword, name, path, timeout)
    return found


@dataclass(frozen=True)
class Result:
    status: int | None  # exit status; None when it did not run to its end
    stdout: bytes
    error: str  # why it failed ("" when it ran and exited, whatever its status)

    @property
    def ok(self) -> bool:
        return not self.error and self.status == 0


def ads_text(*ads: ClassAd) -> bytes:
    """Ads in the old syntax, separated by the seed's `-----` line."""
    parts = [ad.printOld().rstrip("\n") + "\n" for ad in ads]
    return SEPARATOR.join(parts).encode()


async def run(
    hook: Hook,
    args: Sequence[str] = (),
    stdin: bytes = b"",
    cwd: str | None = None,
    account: Account | None = None,
) -> Result:
    """Run `hook` with `args` and `stdin` (as `account`, the job's, for the starter's
    hooks; else as this daemon); what it printed and how it ended. Failures (missing,
    not executable, timed out, killed) are logged with its name."""
    with trio.move_on_after(hook.timeout) as scope:
        try:
            done = await trio.run_process(
                [hook.path, *args],
                stdin=stdin,
                capture_stdout=True,
                capture_stderr=True,
                check=False,
                cwd=cwd,
                start_new_session=True,
                deliver_cancel=_kill_group,
                **options(account),
            )
        except OSError as e:
            return _failed(hook, f"cannot run {hook.path}: {e.strerror or e}")
    if scope.cancelled_caught:
        return _failed(hook, f"timed out after {hook.timeout:g} s (killed)")
    status = done.returncode
    if status < 0:
        return _failed(hook, f"killed by signal {-status}", done.stdout)
    if status != 0:
        err = done.stderr.decode(errors="replace").strip().splitlines()
        log.warning("hook %s exited with status %d%s", hook.label, status, _tail(err))
    return Result(status, done.stdout[:MAX_OUTPUT], "")


def _failed(hook: Hook, why: str, stdout: bytes = b"") -> Result:
    log.warning("hook %s: %s", hook.label, why)
    return Result(None, stdout[:MAX_OUTPUT], why)


def _tail(lines: list[str]) -> str:
    return f": {lines[-1][:200]}" if lines else ""


async def _kill_group(process: trio.Process) -> None:
    # The hook and anything it started: a hook's children must not outlive its limit.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
