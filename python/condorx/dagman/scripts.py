"""Running a node's PRE, POST or HOLD script as DAGMan does (`script.cpp`): the command is
split at blanks; a word that is a whole macro (`$JOB`, `$RETURN`, ...) becomes its value;
the first word is run directly (no shell), in the node's directory. Its output is thrown
away unless the script has a DEBUG file, to which it is appended.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import trio

from condorx.dagman.engine import Engine

# Macros only a POST or HOLD script may use: a PRE script gets the word as it is.
_AFTER_JOB = frozenset(
    ("$JOBID", "$CLUSTERID", "$JOB_COUNT", "$SUCCESS", "$RETURN", "$EXIT_CODES")
    + ("$EXIT_CODE_COUNTS", "$EXIT_CODE_LIST", "$PRE_SCRIPT_RETURN", "$JOB_ABORT_COUNT")
)


def argv(command: str, kind: str, macros: Mapping[str, str]) -> list[str]:
    """The script's words with its macros replaced (`macros`: "$JOB" -> value, ...)."""
    out = []
    for word in command.split():
        key = word.upper()
        if key == "$NODE":
            key = "$JOB"
        if kind == "PRE" and key in _AFTER_JOB:
            out.append(word)
        else:
            out.append(macros.get(key, word))
    return out


async def run(
    words: list[str], cwd: Path, debug: tuple[str, str] | None = None
) -> tuple[int | None, int | None, str]:
    """Run the script; (exit code, signal, error) — a script that cannot start is an
    exit of 1 with the reason."""
    if not words:
        return 1, None, "empty script command"
    program = words[0] if os.path.isabs(words[0]) else str(cwd / words[0])
    out: IO[bytes] | int = subprocess.DEVNULL
    err: IO[bytes] | int = subprocess.DEVNULL
    sink = None
    try:
        if debug is not None:
            name, which = debug
            path = Path(name) if os.path.isabs(name) else cwd / name
            sink = open(path, "ab")  # noqa: SIM115 - closed below
            out = sink if which in ("STDOUT", "ALL") else out
            err = sink if which in ("STDERR", "ALL") else err
        done = await trio.run_process(
            [program, *words[1:]],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            check=False,
        )
    except OSError as e:
        return 1, None, f"cannot run {words[0]}: {e.strerror}"
    finally:
        if sink is not None:
            sink.close()
    code = done.returncode
    if code < 0:
        return None, -code, ""
    return code, None, ""


def macros(eng: Engine, name: str, dag_id: int) -> dict[str, str]:
    """Every macro a script of node `name` may use, with its value now."""
    node, st = eng.dag.nodes[name], eng.states[name]
    by_proc = st.jobs.codes if st.jobs is not None else {}
    codes = sorted(c for c in by_proc.values() if c is not None)
    distinct = sorted(set(codes))
    return {
        "$JOB": name,
        "$RETRY": str(st.retries),
        "$MAX_RETRIES": str(node.retries),
        "$DAG_STATUS": str(int(eng.status)),
        "$FAILED_COUNT": str(eng.failed_nodes),
        "$FUTILE_COUNT": str(eng.futile_nodes),
        "$DONE_COUNT": str(eng.done_nodes),
        "$QUEUED_COUNT": str(eng.submitted_nodes),
        "$NODE_COUNT": str(len(eng.states)),
        "$DAGID": str(dag_id),
        "$JOBID": f"{st.cluster or 0}.0",
        "$CLUSTERID": str(st.cluster or 0),
        "$JOB_COUNT": str(st.procs),
        "$SUCCESS": "True" if st.job_retval == 0 else "False",
        "$RETURN": str(st.job_retval if st.job_retval is not None else -1),
        "$EXIT_CODES": ",".join(str(c) for c in distinct),
        "$EXIT_CODE_COUNTS": ",".join(f"{c}:{codes.count(c)}" for c in distinct),
        "$EXIT_CODE_LIST": ",".join(str(c) for c in by_proc.values() if c is not None),
        "$PRE_SCRIPT_RETURN": str(st.pre_retval if st.pre_retval is not None else -1),
        "$JOB_ABORT_COUNT": str(sum(1 for c in by_proc.values() if c is None)),
    }


def script_end(kind: str, name: str, code: int | None, sig: int | None) -> str:
    """A script's end as HTCondor's DAGMan logs it (pegasus-monitord reads these)."""
    if sig is not None:
        return f"{kind} Script of node {name} died on signal {sig}"
    if code == 0:
        return f"{kind} Script of node {name} completed successfully."
    node = "Node" if kind == "PRE" else "node"
    return f"{kind} Script of {node} {name} failed with status {code}"
