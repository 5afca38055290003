"""What condor_dagman is told to do: its command line's settings (read by
`condorx.cli.dagman`), with the DAGMAN_* configuration for what the command line does not
say.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from condorx.dagman.node_state import Limits
from condorx.language.config import Config


class OptionError(ValueError):
    """A command line condor_dagman cannot run with."""


@dataclass(slots=True)
class Options:
    dags: list[str] = field(default_factory=list)
    lockfile: str = ""
    max_idle: int | None = None
    max_jobs: int | None = None
    max_pre: int | None = None
    max_post: int | None = None
    do_recovery: bool = False
    priority: int = 0
    suppress_notification: bool = False
    use_dag_dir: bool = False
    outfile_dir: str = ""
    auto_rescue: bool = True
    do_rescue_from: int = 0
    force: bool = False
    batch_name: str = ""
    debug: int = 3
    load_save: str = ""  # -load_save: a SAVE_POINT_FILE to start from

    @property
    def primary(self) -> str:
        return self.dags[0]

    def limits(self, cfg: Config) -> Limits:
        """The throttles: the command line's, else the configuration's (HTCondor's
        defaults: 1000 idle procs, no job limit, 20 PRE and 20 POST scripts)."""

        def pick(given: int | None, knob: str, default: int) -> int:
            return given if given is not None else cfg.get_int(knob, default)

        return Limits(
            max_jobs=pick(self.max_jobs, "DAGMAN_MAX_JOBS_SUBMITTED", 0),
            max_idle=pick(self.max_idle, "DAGMAN_MAX_JOBS_IDLE", 1000),
            max_pre=pick(self.max_pre, "DAGMAN_MAX_PRE_SCRIPTS", 20),
            max_post=pick(self.max_post, "DAGMAN_MAX_POST_SCRIPTS", 20),
            always_run_post=cfg.get_bool("DAGMAN_ALWAYS_RUN_POST", False),
            max_holds=cfg.get_int("DAGMAN_MAX_JOB_HOLDS", 100),
        )


def out_file(opts: Options) -> str:
    """Where DAGMan's own log (`.dagman.out`) goes: as condor_submit_dag said in the
    environment, else beside the DAG (or in -outfile_dir)."""
    given = os.environ.get("_CONDOR_DAGMAN_LOG")
    if given:
        return given
    base = os.path.basename(opts.primary) if opts.outfile_dir else opts.primary
    return os.path.join(opts.outfile_dir, base) + ".dagman.out"
