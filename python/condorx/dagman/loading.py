"""Reading a DAG for a run: its files parsed as one DAG, its CONFIG file read over the
pool's configuration, and the rescue DAG (or save point) it resumes from applied."""

from __future__ import annotations

import os

from condorx.dagman import rescue
from condorx.dagman.debug_log import DebugLog
from condorx.dagman.errors import DagmanError
from condorx.dagman.options import Options
from condorx.language.config import Config, ConfigError
from condorx.language.dag.model import Dag
from condorx.language.dag.parse import parse_files


def load(opts: Options, cfg: Config, out: DebugLog) -> tuple[Dag, int]:
    """The DAG, and the number of the rescue DAG it resumes from (0: none)."""
    out(f"Parsing {len(opts.dags)} dagfiles")
    for path in opts.dags:
        out(f"Parsing {path} ...")
    dag = parse_files(list(opts.dags), use_dag_dir=opts.use_dag_dir)
    if dag.reject is not None:
        where, line = dag.reject
        raise DagmanError(f"Exiting because of REJECT specification in {where}, line {line}")
    _read_config(dag, cfg, out)
    number = 0
    found = _rescue_file(opts, cfg)
    if found:
        if not opts.load_save:
            number = int(found[-3:])
        out(f"Parsing {found} ...")
        rescue.apply(dag, found)
    return dag, number


def _read_config(dag: Dag, cfg: Config, out: DebugLog) -> None:
    """The DAG's CONFIG file, or condor_submit_dag's -config (one of them: two different
    files are an error), read over the pool's configuration."""
    given = cfg.get("DAGMAN_CONFIG_FILE")
    named = dag.config
    if named and given and os.path.abspath(named) != os.path.abspath(given):
        raise DagmanError(f"the DAG's CONFIG file {named} and -config {given} differ: give one")
    path = named or given
    if not path:
        return
    try:
        cfg.read_more(path)
    except ConfigError as e:
        raise DagmanError(f"DAGMan configuration file {path}: {e}") from None
    out(f"Using DAGMan configuration file: {path}")


def _rescue_file(opts: Options, cfg: Config) -> str | None:
    primary = opts.primary
    if opts.load_save:  # -load_save: start from a save point file instead
        return rescue.save_file(primary, opts.load_save)
    if opts.do_rescue_from:
        return rescue.name(primary, opts.do_rescue_from)
    if opts.auto_rescue and not opts.force:
        last = rescue.last_number(primary, cfg.get_int("DAGMAN_MAX_RESCUE_NUM", 100))
        return rescue.name(primary, last) if last else None
    return None
