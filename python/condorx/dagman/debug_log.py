"""`DAG.dagman.out`: what DAGMan did, a line each, `MM/DD/YY HH:MM:SS message`, as
HTCondor's DAGMan writes it (pegasus-monitord and people read it), including the
status table it prints as the DAG moves."""

from __future__ import annotations

import time
from typing import TextIO

from condorx.dagman import outcome
from condorx.dagman.engine import Engine
from condorx.dagman.node_state import (
    DONE,
    ERROR,
    FUTILE,
    NOT_READY,
    POSTRUN,
    PRERUN,
    READY,
    SUBMITTED,
)


class DebugLog:
    def __init__(self, path: str) -> None:
        self.path = path
        # Written out as the run loop goes round (flush), not a syscall per line.
        self._f: TextIO = open(path, "a")  # noqa: SIM115 - lives with DAGMan

    def __call__(self, message: str) -> None:
        stamp = time.strftime("%m/%d/%y %H:%M:%S")
        self._f.write("".join(f"{stamp} {line}\n" for line in message.split("\n")))

    def status(self, engine: Engine) -> None:
        """The table HTCondor's DAGMan prints: the nodes in each state."""
        c = outcome.counts(engine)
        self(f"DAG status: {int(engine.status)} (DAG_STATUS_{engine.status.name})")
        self(f"Of {len(engine.states)} nodes total:")
        self(" Done     Pre   Queued    Post   Ready   Un-Ready   Failed   Futile")
        self("  ===     ===      ===     ===     ===        ===      ===      ===")
        self(
            f"{c[DONE]:5d}   {c[PRERUN]:5d}    {c[SUBMITTED]:5d}   {c[POSTRUN]:5d}   "
            f"{c[READY]:5d}      {c[NOT_READY]:5d}    {c[ERROR]:5d}    {c[FUTILE]:5d}"
        )
        self(f"{engine.held} job proc(s) currently held")

    def flush(self) -> None:
        self._f.flush()

    def close(self) -> None:
        self._f.close()
