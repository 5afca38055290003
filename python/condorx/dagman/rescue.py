"""Rescue DAGs: when a DAG fails, DAGMan writes `DAG.rescueNNN`, which marks its done nodes
DONE (HTCondor's partial rescue format, version 2.1.0); the next run reads the DAG and
then its last rescue file over it, so only what did not finish runs again."""

from __future__ import annotations

import os
import time
from pathlib import Path

from condorx.dagman.engine import Engine
from condorx.dagman.node_state import DONE, ERROR
from condorx.language.dag.errors import DagError
from condorx.language.dag.model import Dag

VERSION = "2.1.0"


def name(primary: str, number: int) -> str:
    return f"{primary}.rescue{number:03d}"


def last_number(primary: str, most: int = 100) -> int:
    """The number of the newest rescue DAG of `primary` (0: none)."""
    found = 0
    for n in range(1, most + 1):
        if Path(name(primary, n)).exists():
            found = n
    return found


def write(
    path: str, engine: Engine, primary: str, reset_retries: bool = True, header: str = ""
) -> None:
    """The rescue DAG of a run that did not succeed (or, with its `header`, a save
    point file: the same DONE lines, written as a node starts)."""
    now = time.gmtime()
    failed = [n for n, st in engine.states.items() if st.status == ERROR]
    done = [n for n, st in engine.states.items() if st.status == DONE]
    lines = [
        *([header] if header else []),
        *([] if header else ["# Rescue DAG file, created after running"]),
        *([] if header else [f"#   the {primary} DAG file"]),
        f"# Created {now.tm_mon}/{now.tm_mday}/{now.tm_year} "
        f"{now.tm_hour:02d}:{now.tm_min:02d}:{now.tm_sec:02d} UTC",
        f"# Rescue DAG version: {VERSION}",
        "#",
        f"# Total number of Nodes: {len(engine.states)}",
        f"# Nodes premarked DONE: {len(done)}",
        f"# Nodes that failed: {len(failed)}",
        "#   " + "".join(n + "," for n in failed) + "<ENDLIST>",
        "",
    ]
    for node_name, node in engine.dag.nodes.items():
        st = engine.states[node_name]
        if node.kind != "FINAL" and st.status == DONE:
            lines.append(f"DONE {node_name}")
        if node.retries > 0 and not reset_retries:
            left = node.retries - st.retries
            lines.append(
                f"# {st.retries} of {node.retries} retries already performed; {left} remaining"
            )
            unless = node.retry_unless_exit
            unless_text = f" UNLESS-EXIT {unless}" if unless is not None else ""
            lines.append(f"RETRY {node_name} {left}{unless_text}")
    Path(path).write_text("".join(line + "\n" for line in lines))


def save_file(primary: str, name: str, make_dir: bool = False) -> str:
    """Where a SAVE_POINT_FILE goes (HTCondor's ResolveSaveFile): a bare file name in a
    `save_files` directory beside the DAG, any other path as it is."""
    if os.path.dirname(name) or name.startswith("."):
        return name
    directory = os.path.join(os.path.dirname(os.path.abspath(primary)), "save_files")
    if make_dir:
        os.makedirs(directory, exist_ok=True)
    return os.path.join(directory, name)


def write_save_point(engine: Engine, primary: str, node: str, name: str) -> str:
    """The save point file of `node`, as it starts; the last one is kept as `.old`."""
    path = save_file(primary, name, make_dir=True)
    if os.path.exists(path):
        os.replace(path, path + ".old")
    write(path, engine, primary, header=f"# Save file written at Start Node {node}")
    return path


def apply(dag: Dag, path: str) -> None:
    """Read a rescue DAG over the DAG: its DONE and RETRY lines."""
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise DagError(f"cannot read rescue DAG {path}: {e.strerror}") from None
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        where = f"{path}, line {number}"
        key = words[0].upper()
        node = dag.nodes.get(words[1]) if len(words) > 1 else None
        if key not in ("DONE", "RETRY") or node is None:
            raise DagError(f"{where}: not a rescue DAG line: {raw.strip()}")
        if key == "DONE":
            node.done = True
        else:
            try:
                node.retries = int(words[2])
                if len(words) == 5 and words[3].upper() == "UNLESS-EXIT":
                    node.retry_unless_exit = int(words[4])
            except (IndexError, ValueError):
                raise DagError(f"{where}: bad RETRY line: {raw.strip()}") from None
