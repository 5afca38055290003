"""The nodes log (`DAG.nodes.log`): every node job's events, written by the schedd (the jobs'
`dagman_log`), and the POST scripts' ends, written by DAGMan, in HTCondor's user log
format. A node's submit and POST events carry `DAG Node: NAME`, which is how recovery
knows whose job each cluster was."""

from __future__ import annotations

import os
import time
from pathlib import Path

from condorx.language.eventlog import Event

POST_TERMINATED = 16
_NOTE = "DAG Node: "


def node_of(event: Event) -> str | None:
    """The node an event's notes name (submit and POST-script events carry them)."""
    for line in event.body:
        text = line.strip()
        if text.startswith(_NOTE):
            return text[len(_NOTE) :].strip()
    return None


def info(event: Event) -> dict[str, int | None]:
    return {"return_value": event.return_value(), "signal": event.signal()}


def post_event(cluster: int, proc: int, node: str, code: int | None, sig: int | None) -> str:
    """A POST_SCRIPT_TERMINATED event, as HTCondor's DAGMan writes it."""
    head = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
    if sig is None:
        how = f"\t(1) Normal termination (return value {code})\n"
    else:
        how = f"\t(0) Abnormal termination (signal {sig})\n"
    return (
        f"{POST_TERMINATED:03d} ({cluster:03d}.{proc:03d}.000) {head} POST Script terminated.\n"
        f"{how}    {_NOTE}{node}\n...\n"
    )


def append(path: Path, text: str) -> None:
    """One write with O_APPEND: the schedd appends to the same file."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
