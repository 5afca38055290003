"""What condor_submit_dag reads of a DAG, as HTCondor 25's does (`processDagCommands`):
every command's keyword must be a DAG command, and the three commands that shape the
DAGMan job itself (CONFIG, ENV and SET_JOB_ATTR) must be well formed. Nothing else is read
then: a node named twice, a missing submit file or a cycle is condor_dagman's to find
when it runs, as HTCondor's finds it. Nor is INCLUDE followed: HTCondor's reader skips it
too. Errors are in HTCondor's words: `x.dag:2 'FROB' is not a valid DAG command`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from condorx.language.dag.errors import DagError
from condorx.language.dag.lines import Line, commands, keyword, read_lines, rest_of, tokens

# HTCondor 25's DAG commands (dag_commands.cpp), written as `lines.keyword` makes them.
KEYWORDS = frozenset(
    (
        "JOB FINAL PROVISIONER SERVICE SUBDAG SPLICE INCLUDE SUBMIT_DESCRIPTION CATEGORY"
        " PARENT WEAK SCRIPT RETRY ABORT_DAG_ON VARS PRIORITY PRE_SKIP TOLERANCE DONE"
        " MAXJOBS CONFIG DOT NODE_STATUS_FILE JOBSTATE_LOG SAVE_POINT_FILE SET_JOB_ATTR ENV"
        " REJECT CONNECT PIN_IN PIN_OUT"
    ).split()
)


@dataclass
class JobCommands:
    """What the DAG files say of the DAGMan job: its CONFIG file (absolute), ENV GET's
    names (comma-joined, an entry per command), ENV SET's settings, SET_JOB_ATTR's lines."""

    configs: list[str] = field(default_factory=list)
    env_get: list[str] = field(default_factory=list)
    env_set: list[str] = field(default_factory=list)
    attr_lines: list[str] = field(default_factory=list)

    @property
    def config(self) -> str | None:
        """The one CONFIG file, if any; several different ones are an error."""
        distinct = list(dict.fromkeys(self.configs))
        if len(distinct) > 1:
            raise DagError(f"Multiple ({len(distinct)}) configuration files provided.")
        return distinct[0] if distinct else None


def read(paths: list[str], use_dag_dir: bool = False) -> JobCommands:
    """The DAG files' commands for the DAGMan job; DagError (HTCondor's words, the file
    and line) for an unknown keyword or a malformed CONFIG, ENV or SET_JOB_ATTR."""
    out = JobCommands()
    for path in paths:
        where = os.path.dirname(path) if use_dag_dir else ""
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise DagError(f"Failed to open file '{path}': {e.strerror}") from None
        except UnicodeDecodeError:
            raise DagError(f"DAG file {path} is not text") from None
        for line in commands(read_lines(text, path)):
            _take(line, where, out)
    return out


def _take(line: Line, where: str, out: JobCommands) -> None:
    key = keyword(line.words[0])
    if key not in KEYWORDS:
        raise DagError(f"{line.source}:{line.number} '{line.words[0]}' is not a valid DAG command")
    if key == "CONFIG":
        out.configs.append(os.path.abspath(os.path.join(where, config_file(line))))
    elif key == "ENV":
        kind, what = env(line)
        (out.env_set if kind == "SET" else out.env_get).append(what)
    elif key == "SET_JOB_ATTR":
        out.attr_lines.append(job_attr(line))


def _fail(line: Line, command: str, why: str) -> DagError:
    return DagError(f"{line.source}:{line.number} Failed to parse {command} command: {why}")


def config_file(line: Line) -> str:
    """CONFIG's one file (quotes taken off)."""
    words = tokens(line)[1:]
    if not words:
        raise _fail(line, "CONFIG", "No configuration file specified")
    if len(words) > 1:
        raise _fail(line, "CONFIG", f"Unexpected token '{words[1]}'")
    return words[0]


def env(line: Line) -> tuple[str, str]:
    """ENV GET names... (given back comma-joined) or ENV SET settings."""
    words = line.words[1:]
    if not words:
        raise _fail(line, "ENV", "Missing action (SET or GET) and variables")
    kind = keyword(words[0])
    if kind not in ("SET", "GET"):
        raise _fail(line, "ENV", f"Unexpected token '{words[0]}'")
    what = rest_of(line.text, 2).strip()
    if not what:
        raise _fail(line, "ENV", "No environment variables provided")
    if kind == "GET":
        what = ",".join(w for w in re.split(r"[\s,]+", what) if w)
    return kind, what


def job_attr(line: Line) -> str:
    """SET_JOB_ATTR's line (`name = value`), as written."""
    attr = rest_of(line.text, 1).strip()
    if not attr:
        raise _fail(line, "SET_JOB_ATTR", "No attribute line (key = value) provided")
    return attr
