"""A description's procs built one at a time, when each is wanted: what a job factory
(late materialization) needs, where the schedd makes a cluster's jobs as earlier ones
leave instead of all at submit.

The first proc is built whole, as `build` builds it; each later one only as what differs
from it, through the same plan (the commands whose value can vary, the table rows that
read them), so proc 90,000 costs what proc 1 costs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from condorx.language.config import Config
from condorx.language.submit.build import Facts, Plan, Proc, proc_macros, spec_of, varying_names
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.parse import Description


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
