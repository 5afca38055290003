"""What a DAG file describes: its nodes (each a job, a sub-DAG or nothing to run), the
edges between them, and the settings of the run (throttles per category, the files
DAGMan writes, the attributes every node job gets)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(slots=True)
class Script:
    """A PRE, POST or HOLD script of a node: what runs, and when it may be retried."""

    kind: str  # "PRE", "POST" or "HOLD"
    command: str  # the executable and its arguments, macros not yet replaced
    defer_status: int | None = None  # DEFER: this exit status means "run it again later"
    defer_time: int = 0
    debug_file: str | None = None  # DEBUG: where its output goes
    debug_type: str | None = None  # STDOUT, STDERR or ALL


NO_SCRIPTS: Mapping[str, Script] = MappingProxyType({})


@dataclass(slots=True)
class Node:
    name: str
    submit: str  # the submit description file (or inline description's name, or DAG file)
    kind: str = "JOB"  # JOB, SUBDAG, FINAL, SERVICE or PROVISIONER
    directory: str | None = None  # DIR
    noop: bool = False
    done: bool = False
    inline: str | None = None  # an inline submit description's text
    # Most nodes have no script: they share one empty mapping (a big DAG's memory).
    scripts: Mapping[str, Script] = field(default_factory=lambda: NO_SCRIPTS)
    pre_skip: int | None = None
    retries: int = 0
    retry_unless_exit: int | None = None
    abort_on: int | None = None  # ABORT-DAG-ON: this exit value ends the DAG
    abort_return: int | None = None
    vars: list[tuple[str, str, str]] = field(default_factory=list)  # (name, value, where)
    priority: int = 0
    category: str | None = None
    save_point: str | None = None
    parents: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)
    line: int = 0
    source: str = ""


@dataclass(slots=True)
class Dag:
    path: str
    nodes: dict[str, Node] = field(default_factory=dict)
    submit_descriptions: dict[str, str] = field(default_factory=dict)
    maxjobs: dict[str, int] = field(default_factory=dict)  # category -> at most running
    config: str | None = None
    dot: dict[str, object] | None = None
    node_status_file: tuple[str, int, bool] | None = None  # file, min. update time, always
    jobstate_log: str | None = None
    job_attrs: list[str] = field(default_factory=list)  # SET_JOB_ATTR's `name = value` lines
    env_get: list[str] = field(default_factory=list)
    env_set: list[str] = field(default_factory=list)
    reject: tuple[str, int] | None = None  # where REJECT was said
    splices: dict[str, str] = field(default_factory=dict)  # name -> DAG file
    # A spliced DAG's PIN_IN / PIN_OUT: pin number -> its nodes (full names).
    pins_in: dict[int, list[str]] = field(default_factory=dict)
    pins_out: dict[int, list[str]] = field(default_factory=dict)
    pins: dict[str, tuple[dict[int, list[str]], dict[int, list[str]]]] = field(
        default_factory=dict
    )  # splice name -> its (in, out) pins, for CONNECT
    final: str | None = None  # the FINAL node's name
