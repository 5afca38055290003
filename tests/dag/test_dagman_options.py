"""condor_dagman reads the command line condor_submit_dag writes for it."""

from __future__ import annotations

import os

import pytest

from condorx.cli.dagman import parse_words
from condorx.dagman.options import OptionError
from condorx.language.argsyntax import join_v2, split_v2
from condorx.language.dag.submit_file import Options as SubmitOptions
from condorx.language.dag.submit_file import _arguments
from condorx.testing.tools import run_tool


def test_it_reads_every_option_condor_submit_dag_writes():
    written = SubmitOptions(
        dags=["x.dag"],
        max_idle=7,
        max_jobs=3,
        max_pre=2,
        max_post=4,
        do_recovery=True,
        priority=5,
        notification="Always",
        suppress_notification=True,
        use_dag_dir=True,
        outfile_dir="out",
        auto_rescue=0,
        do_rescue_from=2,
        force=True,
        recurse=True,
        debug=4,
    )
    words = split_v2(join_v2(_arguments(written, "/bin/condor_dagman", "x.dag.lock")))
    opts = parse_words(words)
    assert (opts.dags, opts.lockfile) == (["x.dag"], "x.dag.lock")
    assert (opts.max_idle, opts.max_jobs, opts.max_pre, opts.max_post) == (7, 3, 2, 4)
    assert opts.do_recovery and opts.suppress_notification and opts.use_dag_dir and opts.force
    assert (opts.priority, opts.outfile_dir, opts.debug) == (5, "out", 4)
    assert not opts.auto_rescue and opts.do_rescue_from == 2


@pytest.mark.parametrize(
    "words, why",
    [
        (["-Lockfile", "x.lock"], "no DAG file given"),
        (["-Dag", "x.dag", "-MaxJobs", "many"], "-maxjobs needs a whole number"),
        (["-Dag", "x.dag", "-Bogus"], "unknown option -bogus"),
    ],
)
def test_a_command_line_it_cannot_run_is_refused_saying_why(words, why):
    with pytest.raises(OptionError, match=why):
        parse_words(words)


def test_a_dag_with_reject_is_not_run(tmp_path):
    (tmp_path / "x.dag").write_text("JOB A a.sub\nREJECT\n")
    env = {**os.environ, "CONDOR_CONFIG": "ONLY_ENV"}
    env.pop("CONDORX_CONFIG", None)
    r = run_tool("condorx.cli.dagman:main", ["-Dag", "x.dag"], env, tmp_path)
    assert r.returncode == 1
    out = (tmp_path / "x.dag.dagman.out").read_text()
    assert "Exiting because of REJECT specification in x.dag, line 2" in out
    assert not (tmp_path / "x.dag.lock").exists()  # it never began
