"""condor_dagman's command line, as condor_submit_dag writes it into `DAG.condor.sub`
(`-f -l . -Lockfile L -Dag D -AutoRescue 1 ...`): options start with one dash and are
matched without regard to case; the DAGMAN_* configuration supplies what it does not say.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from condorx.config import Config
from condorx.dagman.engine import Limits


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
        )


_VALUED = {
    "-dag": "dags",
    "-lockfile": "lockfile",
    "-maxidle": "max_idle",
    "-maxjobs": "max_jobs",
    "-maxpre": "max_pre",
    "-maxpost": "max_post",
    "-priority": "priority",
    "-outfile_dir": "outfile_dir",
    "-autorescue": "auto_rescue",
    "-dorescuefrom": "do_rescue_from",
    "-batch-name": "batch_name",
    "-debug": "debug",
}
_FLAGS = {
    "-dorecov": "do_recovery",
    "-suppress_notification": "suppress_notification",
    "-usedagdir": "use_dag_dir",
    "-force": "force",
}
# Said by condor_submit_dag, and of no use here (or the same whatever their value).
_IGNORED_VALUED = {"-l", "-csdversion", "-dagman", "-notification", "-p", "-config"}
_IGNORED = {"-f", "-do_recurse", "-no_recurse", "-dont_suppress_notification"}
_INTS = {"max_idle", "max_jobs", "max_pre", "max_post", "priority", "do_rescue_from", "debug"}


def parse(argv: list[str]) -> Options:
    opts = Options()
    it = iter(argv)
    for word in it:
        key = word.lower()
        if key in _FLAGS:
            setattr(opts, _FLAGS[key], True)
        elif key in _IGNORED:
            continue
        elif key in _VALUED or key in _IGNORED_VALUED:
            value = next(it, None)
            if value is None:
                raise OptionError(f"{word} needs a value")
            if key in _VALUED:
                _set(opts, _VALUED[key], word, value)
        else:
            raise OptionError(f"unknown option {word}")
    if not opts.dags:
        raise OptionError("no DAG file given (-Dag FILE)")
    if not opts.lockfile:
        opts.lockfile = opts.primary + ".lock"
    return opts


def _set(opts: Options, attr: str, word: str, value: str) -> None:
    if attr == "dags":
        opts.dags.append(value)
    elif attr == "auto_rescue":
        opts.auto_rescue = value.strip() not in ("0", "false", "False")
    elif attr in _INTS:
        try:
            setattr(opts, attr, int(value))
        except ValueError:
            raise OptionError(f"{word} needs a whole number, not {value!r}") from None
    else:
        setattr(opts, attr, value)


def out_file(opts: Options) -> str:
    """Where DAGMan's own log (`.dagman.out`) goes: as condor_submit_dag said in the
    environment, else beside the DAG (or in -outfile_dir)."""
    given = os.environ.get("_CONDOR_DAGMAN_LOG")
    if given:
        return given
    base = os.path.basename(opts.primary) if opts.outfile_dir else opts.primary
    return os.path.join(opts.outfile_dir, base) + ".dagman.out"
