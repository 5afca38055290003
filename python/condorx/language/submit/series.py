"""A description's procs built one at a time, when each is wanted: what a job factory
(late materialization) needs, where the schedd makes a cluster's jobs as earlier ones
leave instead of all at submit.

The first proc is built whole, as `build` builds it; each later one only as what differs
from it, through the same plan (the commands whose value can vary, the table rows that
read them), so proc 90,000 costs what proc 1 costs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from condorx.language.config import Config
from condorx.language.submit.build import (
    Facts,
    Plan,
    Proc,
    materialize_limit,
    proc_macros,
    spec_of,
    unused_lines,
    varying_names,
)
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.keywords import spellings
from condorx.language.submit.parse import Description

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


class Series:
    """The procs of a description with one queue statement; `rows` stand in for the
    lines of its `queue ... from` file."""

    def __init__(
        self,
        desc: Description,
        cluster_id: int,
        facts: Facts,
        cfg: Config | None = None,
        environ: Mapping[str, str] | None = None,
        rows: list[str] | None = None,
    ) -> None:
        if len(desc.queues) != 1:
            raise SubmitError(
                f"{desc.where(0)}: a job factory takes one queue statement, not {len(desc.queues)}"
            )
        env = os.environ if environ is None else environ
        self._desc, self._cluster_id = desc, cluster_id
        self._facts, self._cfg, self._env = facts, cfg, env
        self._qs = qs = desc.queues[0]
        self._spec = spec = spec_of(qs, desc, cluster_id, facts, cfg, env, rows)
        self.total = spec.total
        self.first: dict[str, Any] = {}  # the first proc's whole ad (none: no procs)
        self._plan: Plan | None = None
        if self.total:
            first = self._proc(0)
            self.first = first.build_all()
            self._plan = Plan.make(first, varying_names(qs, desc, spec), qs, spec)

    def _proc(self, proc: int) -> Proc:
        per = proc_macros(self._cluster_id, proc, self._spec.proc_vars(proc))
        return Proc(self._desc, self._qs, per, self._cluster_id, self._facts, self._cfg, self._env)

    def diff(self, proc: int) -> dict[str, Any]:
        """What proc `proc`'s ad has that differs from the first's (as wire values)."""
        if not 0 <= proc < self.total:
            raise IndexError(f"proc {proc} of {self.total}")
        if proc == 0:
            return {}
        assert self._plan is not None
        return self._proc(proc).build_diff(self._plan, self.first)

    @property
    def is_factory(self) -> bool:
        """Whether the description makes a job factory (max_materialize or max_idle)."""
        if self._plan is None:
            return False
        limit = materialize_limit(self._plan.first)
        return limit is not None or "JobMaterializeMaxIdle" in self.first

    @property
    def materialize_limit(self) -> int:
        """max_materialize (0: no limit)."""
        return (materialize_limit(self._plan.first) if self._plan else None) or 0

    def warnings(self) -> list[str]:
        """condor_submit's warnings of lines that are no command and that nothing reads."""
        return unused_lines(self._desc, self._plan.first) if self._plan else []

    def digest(self) -> str | None:
        """The submit digest of a job factory, as condor_submit sends HTCondor's schedd
        one: `FACTORY.Iwd` (where relative names are read), every command that is the
        same for all procs written as the first proc has it, the per-proc ones as
        written, and the queue line; the schedd builds each proc from it when its turn
        comes (`daemons/schedd/factory.Digest`). None where the schedd could not build
        the same procs: a queue over items, rows or files, or a per-proc value that reads
        the submitter's environment, randomness or files."""
        if self._plan is None or self._spec.items is not None:
            return None
        first, varying = self._plan.first, self._plan.varying
        lines = [f"FACTORY.Iwd = {self._facts.cwd}"]
        for name, entry in self._qs.macros.items():
            raw = name in varying
            value = entry.value if raw else first.value(name)
            if value is None or not _plain(value, raw):
                return None
            lines.append(f"{entry.spelled or name} = {value}")
        for name, entry in self._qs.attrs.items():
            raw = "+" + name.lower() in varying
            value = entry.value if raw else first.expand(entry.value, entry.line)
            if not _plain(value, raw):
                return None
            lines.append(f"MY.{name} = {value}")
        lines.append(f"queue {self.total}")
        return "".join(line + "\n" for line in lines)


# The commands (and the attribute) that can make a description a job factory.
_FACTORY_NAMES = frozenset(
    spelled
    for command in ("max_materialize", "jobmaterializelimit", "max_idle", "materialize_max_idle")
    for spelled in spellings(command)
)


def may_make_factory(desc: Description) -> bool:
    """Whether a one-statement description sets anything that can make a job factory
    (a cheap look before its first proc is built; `Series.is_factory` decides)."""
    qs = desc.queues[0]
    return not _FACTORY_NAMES.isdisjoint(qs.macros) or any(
        a.lower() == "jobmaterializemaxidle" for a in qs.attrs
    )


# What a value the schedd expands again must not read: the submitter's environment and
# files, chance, or a `$(` that expansion has already made (it would be expanded twice).
_SUBMIT_SIDE = re.compile(r"\$(ENV|RANDOM_CHOICE|RANDOM_INTEGER|CHOICE|F[a-z]*)\(", re.IGNORECASE)


def _plain(value: str, raw: bool) -> bool:
    if "\n" in value:
        return False
    if raw:
        return not _SUBMIT_SIDE.search(value) and "submit_file" not in value.lower()
    return "$" not in value
