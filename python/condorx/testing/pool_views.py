"""What the real-process tests read of a running pool, as its tools show it: the queue
and the history (`condor_q -af`, `condor_history -af`), the slots' states
(`condor_status`), and the startd's transitions in its StartLog."""

from __future__ import annotations

import re

from condorx.testing.pool import LocalPool


def queue(pool: LocalPool, *attrs: str) -> list[list[str]]:
    """Each job's `attrs`, as `condor_q -af` prints them."""
    out = pool.cli("condorx.cli.q", "-af", *attrs).stdout
    return [ln.split() for ln in out.splitlines()]


def history(pool: LocalPool, *attrs: str) -> list[list[str]]:
    """Each finished job's `attrs`, as `condor_history -af` prints them."""
    out = pool.cli("condorx.cli.history", "-af", *attrs).stdout
    return [ln.split() for ln in out.splitlines()]


def transitions(pool: LocalPool) -> list[int]:
    """The numbers of the transitions the startd has logged, in order."""
    log = (pool.root / "log" / "StartLog").read_text()
    return [int(n) for n in re.findall(r"\(transition (\d+):", log)]


def slot_states(pool: LocalPool) -> list[str]:
    """Each slot's State/Activity as condor_status shows them, by slot name."""
    out = pool.cli("condorx.cli.status", "-af", "Name", "State", "Activity").stdout
    return [f"{s}/{a}" for _, s, a in sorted(ln.split() for ln in out.splitlines())]


def slot_state(pool: LocalPool) -> str:
    """The first slot's State/Activity."""
    out = pool.cli("condorx.cli.status", "-af", "State", "Activity").stdout.split()
    return "/".join(out[:2])
