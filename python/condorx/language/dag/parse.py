"""HTCondor's DAG language, as DAGMan reads it: one command a line, keywords in any case,
`#` comments; a node is named before it is used (PARENT, SCRIPT, RETRY, ...);
`ALL_NODES` stands for every node but the FINAL and SERVICE ones, wherever it is said;
INCLUDE reads another file into this DAG and SPLICE another DAG in as `splice+node`.
A line that cannot be read is a DagError naming the file and the line.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from pathlib import Path

from condorx.language.dag import job_commands, settings
from condorx.language.dag.errors import DagError
from condorx.language.dag.lines import (
    Line,
    commands,
    int_of,
    keyword,
    pairs,
    read_lines,
    rest_of,
    tokens,
    two,
)
from condorx.language.dag.model import Dag, Node, Script

ALL_NODES = "ALL_NODES"
# The node kinds ALL_NODES does not stand for.
_NOT_ALL = ("FINAL", "SERVICE", "PROVISIONER")


def parse(
    path: str | os.PathLike[str], prefix: str = "", base: str | os.PathLike[str] | None = None
) -> Dag:
    """The DAG in `path`: its nodes in order, edges checked. The files it names
    (INCLUDE, SPLICE, and nodes' submit files) are relative to `base`, the directory
    DAGMan runs in (the current one), as HTCondor's are."""
    return parse_files([path], prefix, base)


def parse_files(
    paths: list[str | os.PathLike[str]],
    prefix: str = "",
    base: str | os.PathLike[str] | None = None,
    use_dag_dir: bool = False,
) -> Dag:
    """The DAG the files make together, read in turn as one (condor_submit_dag given
    several: a later file's edges may name an earlier file's nodes). `use_dag_dir`
    (-usedagdir): each file's paths, its nodes' too, are relative to its directory."""
    # A bulk load: hundreds of thousands of objects, no reference cycles among them; the
    # cyclic collector would walk the growing heap again and again for nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        dag = Dag(str(paths[0]))
        reader = _Reader(dag, prefix, Path(base) if base is not None else Path.cwd())
        for path in paths:
            if use_dag_dir:
                reader.where = os.path.dirname(os.fspath(path))
                path = os.path.basename(os.fspath(path))
            reader.read(str(path))
        reader.finish()
        # A cycle is not an error here: HTCondor's DAGMan runs what it can of such a DAG
        # and reports the cycle when nothing more can run (graph.cycle_member).
        return dag
    finally:
        if collecting:
            gc.enable()


# The commands that define nodes (and a few whole-DAG settings): read in a first pass
# over each file, so that the other commands may name nodes defined further down.
_FIRST_PASS = frozenset(
    ("JOB", "FINAL", "SERVICE", "PROVISIONER", "SUBDAG", "SPLICE", "SUBMIT_DESCRIPTION")
    + ("REJECT", "DOT", "NODE_STATUS_FILE", "JOBSTATE_LOG")
)


# The commands that may open an inline submit description (`{`, or `@=TOKEN`).
class _Reader:
    def __init__(self, dag: Dag, prefix: str, base: Path, where: str = "") -> None:
        self.dag = dag
        self.prefix = prefix
        self.base = base  # the directory DAGMan runs in
        self.where = where  # where this DAG's files are, relative to base (a SPLICE's DIR)
        self.deferred: list[Callable[[Node], None]] = []  # what ALL_NODES said
        self.including: list[Path] = []
        self.commands: dict[str, Callable[[Line], None]] = {
            "JOB": self._job,
            "SUBDAG": self._subdag,
            "FINAL": self._final,
            "SERVICE": self._service,
            "PROVISIONER": self._provisioner,
            "PARENT": self._parent,
            "SCRIPT": self._script,
            "PRE_SKIP": self._pre_skip,
            "RETRY": self._retry,
            "ABORT_DAG_ON": self._abort_on,
            "VARS": self._vars,
            "PRIORITY": self._priority,
            "CATEGORY": self._category,
            "MAXJOBS": self._maxjobs,
            "CONFIG": self._config,
            "DOT": self._dot,
            "NODE_STATUS_FILE": self._node_status,
            "JOBSTATE_LOG": self._jobstate_log,
            "SAVE_POINT_FILE": self._save_point,
            "SET_JOB_ATTR": self._set_job_attr,
            "ENV": self._env,
            "REJECT": self._reject,
            "INCLUDE": self._include,
            "SPLICE": self._splice,
            "SUBMIT_DESCRIPTION": self._submit_description,
            "PIN_IN": self._pin_in,
            "PIN_OUT": self._pin_out,
            "CONNECT": self._connect,
        }

    # ---- reading ----------------------------------------------------------------------

    def file(self, name: str) -> Path:
        """A file a DAG names, where DAGMan finds it."""
        return self.base / self.where / name

    def read(self, name: str) -> None:
        """One file, in two passes: the commands that define nodes, then the others."""
        path = self.file(name)
        if path.resolve() in self.including:
            raise DagError(f"{name}: INCLUDE of a file that includes it")
        try:
            text = path.read_text()
        except OSError as e:
            raise DagError(f"cannot read DAG file {name}: {e.strerror}") from None
        except UnicodeDecodeError:
            raise DagError(f"DAG file {name} is not text") from None
        self.including.append(path.resolve())
        self.name = name
        lines = commands(read_lines(text, name))
        handlers = []
        for line in lines:
            key = keyword(line.words[0])
            handler = self.commands.get(key)
            if handler is None:
                if key in job_commands.KEYWORDS:  # HTCondor's, and not yet condorx's
                    raise line.fail(f"condorx does not yet run the {key} command")
                raise line.fail(f"unknown DAG command {line.words[0]!r}")
            handlers.append((key in _FIRST_PASS, handler, line))
        for first, handler, line in handlers:
            if first:
                handler(line)
        for first, handler, line in handlers:
            if not first:
                handler(line)
        self.including.pop()

    def finish(self) -> None:
        """What ALL_NODES said, for every node (FINAL and SERVICE nodes aside)."""
        for apply in self.deferred:
            for node in self.dag.nodes.values():
                if node.kind not in _NOT_ALL:
                    apply(node)

    def _block(self, line: Line) -> str:
        if line.block is None:
            raise line.fail("an inline submit description has no closing }")
        return line.block

    def _node(self, line: Line, name: str) -> Node:
        node = self.dag.nodes.get(self.prefix + name)
        if node is None:
            raise line.fail(f"unknown node {name}")
        return node

    def _each(self, line: Line, name: str, apply: Callable[[Node], None]) -> None:
        """Apply to the node named, or (ALL_NODES) to every node once the DAG is read."""
        if name.upper() == ALL_NODES:
            self.deferred.append(apply)
        else:
            apply(self._node(line, name))

    # ---- nodes --------------------------------------------------------------------------

    def _add(self, line: Line, kind: str, args: list[str], keywords: tuple[str, ...]) -> Node:
        if len(args) < 2:
            raise line.fail(f"{kind} needs a node name and a file")
        name, submit, rest = args[0], args[1], args[2:]
        if name.upper() == ALL_NODES or "+" in name:
            raise line.fail(f"{name!r} may not name a node")
        full = self.prefix + name
        if full in self.dag.nodes:
            raise line.fail(f"node {name} is defined twice")
        # Most nodes share a submit file: one string for all of them.
        node = Node(full, sys.intern(submit), kind, line=line.number, source=line.source)
        if submit == "{" or submit.startswith("@="):
            node.inline, node.submit = self._block(line), ""
        it = iter(rest)
        for word in it:
            key = word.upper()
            if key not in keywords:
                raise line.fail(f"unexpected {word!r} after {kind} {name}")
            if key == "DIR":
                node.directory = next(it, None)
                if node.directory is None:
                    raise line.fail("DIR needs a directory")
            elif key == "NOOP":
                node.noop = True
            elif key == "DONE":
                node.done = True
        if self.where:  # a spliced DAG's DIR (or -usedagdir): its nodes run there
            node.directory = (
                os.path.join(self.where, node.directory) if node.directory else self.where
            )
        self.dag.nodes[full] = node
        return node

    def _job(self, line: Line) -> None:
        self._add(line, "JOB", tokens(line)[1:], ("DIR", "NOOP", "DONE"))

    def _subdag(self, line: Line) -> None:
        words = tokens(line)
        if len(words) < 2 or words[1].upper() != "EXTERNAL":
            raise line.fail("SUBDAG must be SUBDAG EXTERNAL")
        self._add(line, "SUBDAG", words[2:], ("DIR", "NOOP", "DONE"))

    def _final(self, line: Line) -> None:
        if self.dag.final is not None:
            raise line.fail(f"a second FINAL node (the first is {self.dag.final})")
        node = self._add(line, "FINAL", tokens(line)[1:], ("DIR", "NOOP"))
        self.dag.final = node.name

    def _service(self, line: Line) -> None:
        self._add(line, "SERVICE", tokens(line)[1:], ("DIR", "NOOP"))

    def _provisioner(self, line: Line) -> None:
        self._add(line, "PROVISIONER", tokens(line)[1:], ())

    def _submit_description(self, line: Line) -> None:
        if len(line.words) != 3 or not (line.words[2] == "{" or line.words[2].startswith("@=")):
            raise line.fail("SUBMIT-DESCRIPTION needs a name and { (or @=TOKEN)")
        self.dag.submit_descriptions[line.words[1]] = self._block(line)

    # ---- edges --------------------------------------------------------------------------

    def _parent(self, line: Line) -> None:
        words = line.words[1:]
        upper = [w.upper() for w in words]
        if "CHILD" not in upper:
            raise line.fail("PARENT without CHILD")
        at = upper.index("CHILD")
        parents, children = words[:at], words[at + 1 :]
        if not parents or not children:
            raise line.fail("PARENT ... CHILD ... needs nodes on both sides")
        ups = [n for p in parents for n in self._ends(line, p, last=True)]
        downs = [n for c in children for n in self._ends(line, c, last=False)]
        self._edges(line, ups, downs)

    def _edges(self, line: Line, ups: list[Node], downs: list[Node]) -> None:
        for up in ups:
            known = set(up.children)  # once per parent: a node may have 10,000 children
            for down in downs:
                if up is down:
                    raise line.fail(f"node {up.name} is its own parent")
                if down.name not in known:
                    known.add(down.name)
                    up.children.append(down.name)
                    down.parents.append(up.name)

    def _ends(self, line: Line, name: str, last: bool) -> list[Node]:
        """The nodes an edge meets: the node itself, or a splice's last (as a parent) or
        first (as a child) nodes."""
        full = self.prefix + name
        if full in self.dag.splices:
            inner = [n for n in self.dag.nodes.values() if n.name.startswith(full + "+")]
            names = {n.name for n in inner}
            if last:
                return [n for n in inner if not set(n.children) & names]
            return [n for n in inner if not set(n.parents) & names]
        node = self._node(line, name)
        if node.kind in _NOT_ALL:
            raise line.fail(f"a {node.kind} node ({name}) has no parents or children")
        return [node]

    # ---- what nodes do ------------------------------------------------------------------

    def _script(self, line: Line) -> None:
        words = line.words[1:]
        script = Script("", "")
        while words and words[0].upper() in ("DEFER", "DEBUG"):
            if words[0].upper() == "DEFER":
                if len(words) < 3:
                    raise line.fail("DEFER needs a status and a time")
                script.defer_status = int_of(line, words[1], "DEFER status")
                script.defer_time = int_of(line, words[2], "DEFER time")
                words = words[3:]
            else:
                if len(words) < 3 or words[2].upper() not in ("STDOUT", "STDERR", "ALL"):
                    raise line.fail("DEBUG needs a file and STDOUT, STDERR or ALL")
                script.debug_file, script.debug_type = words[1], words[2].upper()
                words = words[3:]
        if len(words) < 3 or words[0].upper() not in ("PRE", "POST", "HOLD"):
            raise line.fail("SCRIPT needs PRE, POST or HOLD, a node and a command")
        script.kind = words[0].upper()
        script.command = rest_of(line.text, len(line.words) - len(words) + 2)

        def apply(node: Node) -> None:
            node.scripts = {**node.scripts, script.kind: script}

        self._each(line, words[1], apply)

    def _pre_skip(self, line: Line) -> None:
        name, value = two(line, "PRE_SKIP needs a node and an exit code")
        code = int_of(line, value, "PRE_SKIP's exit code")
        self._each(line, name, lambda node: setattr(node, "pre_skip", code))

    def _retry(self, line: Line) -> None:
        words = line.words[1:]
        if len(words) not in (2, 4) or (len(words) == 4 and keyword(words[2]) != "UNLESS_EXIT"):
            raise line.fail("RETRY needs a node, a count, and UNLESS-EXIT value or nothing")
        count = int_of(line, words[1], "RETRY's count")
        if count < 0:
            raise line.fail("RETRY's count may not be negative")
        unless = int_of(line, words[3], "UNLESS-EXIT's value") if len(words) == 4 else None

        def apply(node: Node) -> None:
            node.retries, node.retry_unless_exit = count, unless

        self._each(line, words[0], apply)

    def _abort_on(self, line: Line) -> None:
        words = line.words[1:]
        if len(words) not in (2, 4) or (len(words) == 4 and keyword(words[2]) != "RETURN"):
            raise line.fail("ABORT-DAG-ON needs a node, an exit value, and RETURN value or nothing")
        value = int_of(line, words[1], "ABORT-DAG-ON's exit value")
        returned = int_of(line, words[3], "RETURN's value") if len(words) == 4 else None

        def apply(node: Node) -> None:
            node.abort_on, node.abort_return = value, returned

        self._each(line, words[0], apply)

    def _vars(self, line: Line) -> None:
        if len(line.words) < 3:
            raise line.fail('VARS needs a node and name="value" pairs')
        name = line.words[1]
        rest = rest_of(line.text, 2)
        where = ""  # unsaid: DAGMAN_DEFAULT_APPEND_VARS decides (prepend, by default)
        if line.words[2].upper() in ("PREPEND", "APPEND"):
            where, rest = line.words[2].lower(), rest_of(line.text, 3)
        triples = [(k, v, where) for k, v in pairs(line, rest)]
        if name.upper() != ALL_NODES:  # the usual case, without a closure per line
            self._node(line, name).vars.extend(triples)
            return

        def apply(node: Node) -> None:
            node.vars.extend(triples)

        self._each(line, name, apply)

    def _priority(self, line: Line) -> None:
        name, value = two(line, "PRIORITY needs a node and a number")
        priority = int_of(line, value, "PRIORITY")
        self._each(line, name, lambda node: setattr(node, "priority", priority))

    def _category(self, line: Line) -> None:
        name, category = two(line, "CATEGORY needs a node and a category")
        self._each(line, name, lambda node: setattr(node, "category", category))

    def _maxjobs(self, line: Line) -> None:
        category, value = two(line, "MAXJOBS needs a category and a number")
        self.dag.maxjobs[category] = int_of(line, value, "MAXJOBS")

    def _save_point(self, line: Line) -> None:
        words = line.words[1:]
        if len(words) not in (1, 2):
            raise line.fail("SAVE_POINT_FILE needs a node and perhaps a file")
        node = self._node(line, words[0])
        default = f"{node.name}-{Path(self.name).name}.save"
        node.save_point = words[1] if len(words) == 2 else default

    # ---- the run's settings ------------------------------------------------------------

    def _config(self, line: Line) -> None:
        file = job_commands.config_file(line)
        if self.dag.config is not None and self.dag.config != file:
            raise line.fail(f"a second CONFIG file (the first is {self.dag.config})")
        self.dag.config = file

    def _dot(self, line: Line) -> None:
        self.dag.dot = settings.dot(line)

    def _node_status(self, line: Line) -> None:
        self.dag.node_status_file = settings.node_status_file(line)

    def _jobstate_log(self, line: Line) -> None:
        if len(line.words) != 2:
            raise line.fail("JOBSTATE_LOG needs one file")
        self.dag.jobstate_log = line.words[1]

    def _set_job_attr(self, line: Line) -> None:
        self.dag.job_attrs.append(job_commands.job_attr(line))

    def _env(self, line: Line) -> None:
        kind, what = job_commands.env(line)
        (self.dag.env_set if kind == "SET" else self.dag.env_get).append(what)

    def _reject(self, line: Line) -> None:
        self.dag.reject = (line.source, line.number)

    def _include(self, line: Line) -> None:
        if len(line.words) != 2:
            raise line.fail("INCLUDE needs one file")
        name = self.name
        self.read(line.words[1])
        self.name = name

    def _splice(self, line: Line) -> None:
        """SPLICE name file [DIR dir]: the file's nodes, renamed `name+node`; with DIR,
        its files (and its nodes' jobs) are in dir."""
        words = tokens(line)[1:]
        if len(words) not in (2, 4) or (len(words) == 4 and words[2].upper() != "DIR"):
            raise line.fail("SPLICE needs a name, a DAG file, and DIR directory or nothing")
        name, file = words[0], words[1]
        full = self.prefix + name
        if full in self.dag.splices or full in self.dag.nodes:
            raise line.fail(f"{name} is defined twice")
        where = os.path.join(self.where, words[3]) if len(words) == 4 else self.where
        inner = Dag(file)
        reader = _Reader(inner, full + "+", self.base, where)
        reader.including = self.including
        reader.read(file)
        reader.finish()
        if inner.final is not None:
            raise line.fail(f"spliced DAG {file} has a FINAL node")
        self.dag.nodes.update(inner.nodes)
        self.dag.splices[full] = file
        self.dag.pins[full] = (inner.pins_in, inner.pins_out)
        self.dag.maxjobs.update(inner.maxjobs)

    def _pin(self, line: Line, pins: dict[int, list[str]]) -> None:
        name, number = two(line, f"{line.words[0].upper()} needs a node and a pin number")
        pin = int_of(line, number, "the pin number")
        if pin < 1:
            raise line.fail("pin numbers start at 1")
        pins.setdefault(pin, []).append(self._node(line, name).name)

    def _pin_in(self, line: Line) -> None:
        self._pin(line, self.dag.pins_in)

    def _pin_out(self, line: Line) -> None:
        self._pin(line, self.dag.pins_out)

    def _connect(self, line: Line) -> None:
        """CONNECT out in: each output pin of splice `out` is the parent of the same
        input pin of splice `in` (their pins must be 1..N, as many on each side)."""
        first, second = two(line, "CONNECT needs two splices")
        ends = []
        for name in (first, second):
            full = self.prefix + name
            if full not in self.dag.pins:
                raise line.fail(f"CONNECT: {name} is not a splice")
            ends.append(self.dag.pins[full])
        outs, ins = ends[0][1], ends[1][0]
        for pins, name in ((outs, first), (ins, second)):
            if sorted(pins) != list(range(1, len(pins) + 1)):
                raise line.fail(f"CONNECT: {name}'s pins are not numbered 1 to {len(pins)}")
        if len(outs) != len(ins):
            raise line.fail(
                f"CONNECT: {first} has {len(outs)} output pins, {second} {len(ins)} input pins"
            )
        for pin in outs:
            ups = [self.dag.nodes[n] for n in outs[pin]]
            self._edges(line, ups, [self.dag.nodes[n] for n in ins[pin]])
