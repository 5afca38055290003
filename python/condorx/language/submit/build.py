"""From a parsed description to job ads: one cluster ad and, per proc, what differs from it.

The first proc is built whole and becomes the cluster ad. For each later proc only the
commands whose value can differ are expanded again (those that reach `$(Process)`,
`$(Item)` or another per-proc macro, or that a later queue statement redefines), and only
the rows of the command table that read a changed command are run again. So 100,000 procs
of `output = out.$(Process)` cost 100,000 expansions of one command, not of the whole file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from condorx.classad import Expr, ExprTree
from condorx.language.config import Config, ConfigError
from condorx.language.config.expand import Expander
from condorx.language.submit import (  # noqa: F401 - their rows
    commands,
    container,
    environment,
    grid,
    keywords,
    quantities,
    queue,
    requirements,
    transfer,
    vm,
)
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.keywords import spellings
from condorx.language.submit.parse import Description, Entry, QueueStatement
from condorx.language.submit.values import Values, literal
from condorx.record import field, record

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

PER_PROC = ("process", "procid", "step", "itemindex", "row", "node", "jobid")
_NODE_PLACEHOLDERS = {"parallel": "#pArAlLeLnOdE#", "11": "#pArAlLeLnOdE#", "mpi": "#MpInOdE#"}
_REF = re.compile(r"\$(?:[A-Za-z_]*)\(\s*([A-Za-z_][A-Za-z0-9_.]*)")
_RANDOM = re.compile(r"\$RANDOM_(?:CHOICE|INTEGER)\(")


@record
class Jobs:
    cluster: dict[str, Any]
    procs: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # max_materialize, when the description sets it: the jobs are to be a job factory's,
    # in the queue so many at once (0: all). `max_idle` makes a factory too.
    materialize_limit: int | None = None

    @property
    def is_factory(self) -> bool:
        return self.materialize_limit is not None or "JobMaterializeMaxIdle" in self.cluster


@record
class Facts:
    cwd: str
    arch: str
    opsys: str
    fs_domain: str
    user: str = ""  # the submitter (accounting groups are theirs)
    default_policy: bool = False  # SUBMIT_INSERT_DEFAULT_POLICY_EXPRS

    @classmethod
    def from_config(cls, cfg: Config, cwd: str | None = None) -> Facts:
        from condorx.host.accounts import current_user

        host = cfg.get("FULL_HOSTNAME") or os.uname().nodename
        return cls(
            cwd=cwd or os.getcwd(),
            arch=cfg.get("ARCH") or "X86_64",
            opsys=cfg.get("OPSYS") or "LINUX",
            fs_domain=cfg.get("FILESYSTEM_DOMAIN") or host,
            user=current_user(),
            default_policy=cfg.get_bool("SUBMIT_INSERT_DEFAULT_POLICY_EXPRS", False),
        )


def build(
    desc: Description,
    cluster_id: int,
    facts: Facts,
    cfg: Config | None,
    environ: Mapping[str, str] | None = None,
    fast: bool = True,
    warn: bool = True,
) -> Jobs:
    """The jobs of a description. `fast=False` builds every proc whole (for checking the
    incremental path, which must give the same jobs); `warn=False` skips looking for
    the unused lines condor_submit warns of (a caller that shows no warnings)."""
    env = os.environ if environ is None else environ
    jobs: Jobs | None = None
    first: Proc | None = None
    for qs in desc.queues:
        spec = spec_of(qs, desc, cluster_id, facts, cfg, env)
        varying: set[str] | None = None  # worked out at a second proc: most have one
        steady = False
        same: dict[str, Any] | None = None
        plan: Plan | None = None
        for proc_vars in spec.procs():
            if same is not None:
                assert jobs is not None
                jobs.procs.append(dict(same))
                continue
            proc = len(jobs.procs) if jobs else 0
            per = proc_macros(cluster_id, proc, proc_vars)
            ctx = Proc(desc, qs, per, cluster_id, facts, cfg, env)
            if jobs is None or first is None:
                first = ctx
                jobs = Jobs(cluster=ctx.build_all())
                jobs.procs.append({})
            elif not fast:
                full = ctx.build_all()
                jobs.procs.append({k: v for k, v in full.items() if jobs.cluster.get(k) != v})
            else:
                if varying is None:
                    varying = varying_names(qs, desc, spec)
                    # Nothing differs between this statement's procs: the first one's diff
                    # is every one's (1,000 statements of 1,000 procs each cost 1,000
                    # diffs, not 1,000,000).
                    steady = not varying_names(qs, desc, spec, per_proc_only=True)
                if plan is None or plan.first is not first:
                    plan = Plan.make(first, varying, qs, spec)
                jobs.procs.append(ctx.build_diff(plan, jobs.cluster))
                if steady:
                    same = jobs.procs[-1]
    if jobs is None:  # every queue statement made no jobs (`matching` found nothing)
        return Jobs(cluster={})
    assert first is not None
    jobs.warnings = unused_lines(desc, first) if warn else []
    jobs.materialize_limit = materialize_limit(first)
    return jobs


def materialize_limit(first: Proc) -> int | None:
    """max_materialize (or JobMaterializeLimit), read as HTCondor reads it: an integer
    expression; None when not set."""
    for name in ("max_materialize", "jobmaterializelimit"):
        text = first.command(name)
        if text is None or not text.strip():
            continue
        try:
            value = ExprTree(text).eval()
        except ValueError:
            value = None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SubmitError(f"{first.where(name)}: {name} = {text} is not a number")
        return max(int(value), 0)
    return None


def proc_macros(cluster_id: int, proc: int, proc_vars: Mapping[str, str]) -> dict[str, str]:
    """The macros one proc sees besides the description's: its ids and its queue items."""
    per = {
        "cluster": str(cluster_id),
        "clusterid": str(cluster_id),
        "process": str(proc),
        "procid": str(proc),
        "jobid": f"{cluster_id}.{proc}",
    }
    per.update({k.lower(): v for k, v in proc_vars.items()})
    return per


def spec_of(
    qs: QueueStatement,
    desc: Description,
    cluster_id: int,
    facts: Facts,
    cfg: Config | None,
    env: Mapping[str, str],
    rows: list[str] | None = None,
) -> queue.QueueSpec:
    ctx = Proc(
        desc,
        qs,
        {"cluster": str(cluster_id), "clusterid": str(cluster_id)},
        cluster_id,
        facts,
        cfg,
        env,
    )
    args = ctx.expand(qs.args, qs.line)
    return queue.parse(args, desc.where(qs.line), facts.cwd, rows)


# Names DAGMan and HTCondor's own tools set that submit never warns about.
_NEVER_WARNED = {
    "max_materialize",  # condor_submit's own: how a factory's cluster is made
    "jobmaterializelimit",
    "dag_status",
    "failed_count",
    "job",
    "retry",
    "submitwarnemptymatches",
    "submitfailemptymatches",
    "submitwarnduplicatematches",
    "submitfailemptyfields",
    "submitwarnemptyfields",
}


def unused_lines(desc: Description, first: Proc) -> list[str]:
    """HTCondor's warning for a line that is no command and that no value refers to (a
    typo like `executble`); the submission goes on."""
    used: set[str] = set()
    for reads in first.row_reads.values():
        used |= reads
    for name in list(used):
        used.update(spellings(name))
    for qs in desc.queues:
        texts = [e.value for e in (*qs.macros.values(), *qs.attrs.values())] + [qs.args]
        for text in texts:
            used.update(m.lower() for m in _REF.findall(text))
    return [
        f"WARNING: the line '{entry.spelled} = {entry.value}' was unused by condor_submit."
        " Is it a typo?"
        for name, entry in desc.macros.items()
        if name not in used and "." not in name and name not in _NEVER_WARNED
    ]


def varying_names(
    qs: QueueStatement, desc: Description, spec: queue.QueueSpec, per_proc_only: bool = False
) -> set[str]:
    """Commands (and custom attributes, as `+name`) whose value may differ between procs:
    from the submission's first proc, or (`per_proc_only`) between this statement's."""
    # A plain `queue N` names no item variable that could vary.
    names = {v.lower() for v in spec.vars} if spec.items is not None or not per_proc_only else set()
    per = set(PER_PROC) | names
    first = qs if per_proc_only else desc.queues[0]
    changed = {n for n, e in qs.macros.items() if first.macros.get(n) != e}
    changed |= {n for n in first.macros if n not in qs.macros}
    table = {n: e.value for n, e in qs.macros.items()}
    memo: dict[str, bool] = {}

    def varies(name: str, seen: frozenset[str]) -> bool:
        if name in per or name in changed:
            return True
        if name in memo:
            return memo[name]
        text = table.get(name)
        result = text is not None and name not in seen and _text_varies(text, seen | {name})
        memo[name] = result
        return result

    def _text_varies(text: str, seen: frozenset[str]) -> bool:
        return bool(_RANDOM.search(text)) or any(
            varies(r.lower(), seen) for r in _REF.findall(text)
        )

    out = {n for n in table if varies(n, frozenset())} | changed
    out |= names  # `queue arguments from ...` sets a command
    for name, e in qs.attrs.items():
        if first.attrs.get(name) != e or _text_varies(e.value, frozenset()):
            out.add("+" + name.lower())
    return out


@record
class Plan:
    """What the procs of one queue statement redo: the commands whose value may differ,
    the table rows that read each, and fast templates for the simple varying values."""

    first: Proc
    varying: set[str]
    commands: list[str]
    rows_reading: dict[str, set[int]]
    templates: dict[str, _Template]

    @classmethod
    def make(
        cls, first: Proc, varying: set[str], qs: QueueStatement, spec: queue.QueueSpec
    ) -> Plan:
        names = sorted(n for n in varying if not n.startswith("+"))
        reading = {n: {i for i, r in first.row_reads.items() if n in r} for n in names}
        per = set(PER_PROC) | {"cluster", "clusterid"} | {v.lower() for v in spec.vars}
        templates = {}
        for n in names:
            tpl = _Template.compile(first, qs, n, per, varying)
            if tpl is not None:
                templates[n] = tpl
        return cls(first, varying, names, reading, templates)


_PLAIN_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.]*)\)")


@record
class _Template:
    """A varying value that is literal text around plain `$(Process)`-like references: it
    is rendered by joining strings instead of running the macro expander per proc."""

    literals: list[str]  # one more than names
    names: list[str]

    @classmethod
    def compile(
        cls, first: Proc, qs: QueueStatement, name: str, per: set[str], varying: set[str]
    ) -> _Template | None:
        entry = qs.macros.get(name)
        if entry is None:
            return None
        raw, pos = entry.value, 0
        literals, names = [""], []
        for m in _PLAIN_REF.finditer(raw):
            literals[-1] += raw[pos : m.start()]
            pos = m.end()
            ref = m.group(1).lower()
            if ref in per:
                names.append(ref)
                literals.append("")
            elif ref not in varying and ref in qs.macros:
                literals[-1] += first.value(ref) or ""
            else:
                return None
        literals[-1] += raw[pos:]
        # Any other `$` (a function, `$$`, a default) needs the real expander.
        if any("$" in lit for lit in literals):
            return None
        tpl = cls(literals, names)
        # The proof that the shortcut is sound here: it gives the expander's answer.
        return tpl if tpl.render(first.per) == first.value(name) else None

    def render(self, per: dict[str, str]) -> str | None:
        """The value, or None when a macro value holds a `$` that a rescan could expand."""
        out = [self.literals[0]]
        for name, lit in zip(self.names, self.literals[1:], strict=True):
            v = per.get(name, "")
            if "$" in v:
                return None
            out += (v, lit)
        return "".join(out)


class Proc:
    """One proc's view of the description: expansion with its own macro values."""

    def __init__(
        self,
        desc: Description,
        qs: QueueStatement,
        per: dict[str, str],
        cluster_id: int,
        facts: Facts,
        cfg: Config | None,
        env: Mapping[str, str],
    ) -> None:
        self.desc, self.qs, self.per, self.facts = desc, qs, per, facts
        self.cfg = cfg
        self.env = env
        # The facts every row sees, made once: `_values` runs per row and per proc.
        self.row_facts: dict[str, Any] = {**facts.__dict__, "environ": env}
        self.is_first = per.get("process", "0") == "0"
        self.expander = Expander(self._raw, env)
        self.cache: dict[str, str | None] = {}
        self.row_reads: dict[int, set[str]] = {}
        # For procs after the first: values that cannot differ are the first proc's.
        self.first: Proc | None = None
        self.varying: set[str] = set()
        self.templates: dict[str, _Template] = {}

    def _raw(self, name: str) -> str | None:
        low = name.lower()
        if low in self.per:
            return self.per[low]
        entry = self.qs.macros.get(low)
        if entry is not None:
            return entry.value
        default = self._default(low)
        if default is not None:
            return default
        return self.cfg.raw(name) if self.cfg is not None else None

    def _default(self, low: str) -> str | None:
        """submit's own defaults, which any assignment overrides."""
        if low == "submit_file":
            return self.desc.submit_file
        if low == "node":
            # A parallel job's node number, known only where it runs: a placeholder the
            # execute side replaces (HTCondor's, for the parallel and MPI universes).
            entry = self.qs.macros.get("universe")
            kind = self.expand(entry.value, entry.line).strip().lower() if entry else ""
            return _NODE_PLACEHOLDERS.get(kind, "")
        return None

    def expand(self, text: str, line: int, name: str | None = None) -> str:
        try:
            return self.expander.expand(text, name)
        except ConfigError as e:
            raise SubmitError(f"{self.desc.where(line)}: {e.message}") from None

    def command(self, name: str) -> str | None:
        """A command's value, by its own name or else by its other spellings."""
        for spelled in spellings(name):
            if spelled in self.per or spelled in self.qs.macros:
                return self.value(spelled)
        return self._default(name)

    def value(self, name: str) -> str | None:
        if name in self.per:  # a queue variable that names a command (`arguments`)
            return self.per[name]
        if name in self.cache:
            return self.cache[name]
        if self.first is not None:
            if name not in self.varying:
                return self.first.value(name)
            tpl = self.templates.get(name)
            rendered = tpl.render(self.per) if tpl is not None else None
            if rendered is not None:
                self.cache[name] = rendered
                return rendered
        if name not in self.cache:
            entry = self.qs.macros.get(name)
            self.cache[name] = None if entry is None else self.expand(entry.value, entry.line, name)
        return self.cache[name]

    def where(self, name: str) -> str:
        entry = next((self.qs.macros[n] for n in spellings(name) if n in self.qs.macros), None)
        return self.desc.where(entry.line if entry else self.qs.line)

    def _values(self, track: bool = True) -> Values:
        return Values(self.command, self.where, self.row_facts, self._names, self.value, track)

    def _names(self) -> list[str]:
        return [e.spelled or n for n, e in self.qs.macros.items()]

    def build_all(self) -> dict[str, Any]:
        out: dict[str, Any] = keywords.static()
        for i, fn in enumerate(commands.ROWS):
            v = self._values()
            out.update(fn(v))
            self.row_reads[i] = v.reads
        if self.is_first:
            out.update(quantities.sizes(out, self._values()))
        for name, entry in self.qs.attrs.items():
            out[name] = self._custom(name, entry)
        return out

    def build_diff(self, plan: Plan, cluster: dict[str, Any]) -> dict[str, Any]:
        first = plan.first
        self.first, self.varying, self.templates = first, plan.varying, plan.templates
        changed = [n for n in plan.commands if self.value(n) != first.value(n)]
        diff: dict[str, Any] = {}
        rows: set[int] = set()
        for n in changed:
            rows |= plan.rows_reading[n]
        for i in sorted(rows):
            for k, val in commands.ROWS[i](self._values(track=False)).items():
                if cluster.get(k) != val:
                    diff[k] = val
        for name, entry in self.qs.attrs.items():
            if "+" + name.lower() in plan.varying:
                val = self._custom(name, entry)
                if cluster.get(name) != val:
                    diff[name] = val
        return diff

    def _custom(self, name: str, entry: Entry) -> Any:
        text = self.expand(entry.value, entry.line)
        if not text.strip():
            return None  # `+Attr =` with nothing: undefined, as HTCondor has it
        try:
            tree = ExprTree(text)
        except ValueError as e:
            raise SubmitError(
                f"{self.desc.where(entry.line)}: +{name} is not a valid expression: {e}"
            ) from None
        return literal(Expr(str(tree)))
