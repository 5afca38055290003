"""condor_submit_dag against HTCondor's own: `htcondor2.Submit.from_dag` (the wheel's
condor_submit_dag code, which needs a condor_dagman on PATH, any stub) writes the
`.condor.sub` file for the same DAG and options; condorx's must be the same file, line
for line, but for the version of the tool that wrote it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from condorx.testing.tools import run_tool

DAG = "JOB A a.sub\nJOB B a.sub\nPARENT A CHILD B\n"
ORACLE = """
import htcondor2, json, sys
try:
    htcondor2.Submit.from_dag(sys.argv[1], json.loads(sys.argv[2]))
except Exception as e:
    print("ERROR", e)
"""

# condorx's options, and the same as Submit.from_dag takes them.
CASES = [
    ([], {}),
    (["-maxidle", "5", "-maxjobs", "3"], {"MaxIdle": 5, "MaxJobs": 3}),
    (["-maxpre", "2", "-maxpost", "4"], {"MaxPre": 2, "MaxPost": 4}),
    (
        ["-notification", "Always", "-priority", "5", "-suppress_notification"],
        {"Notification": "Always", "Priority": 5, "SuppressNotification": True},
    ),
    (["-notification", "Error"], {"Notification": "Error"}),
    (["-batch-name", "my run"], {"BatchName": "my run"}),
    (["-insert_sub_file", "extra.sub"], {"AppendFile": "extra.sub"}),
    (["-outfile_dir", "outs"], {"OutfileDir": "outs"}),
    (["-usedagdir", "-dorecov"], {"UseDagDir": True, "DoRecovery": True}),
    (["-autorescue", "0", "-force"], {"AutoRescue": 0, "Force": True}),
    (["-config", "dag.config", "-debug", "4"], {"ConfigFile": "dag.config", "DebugLevel": 4}),
    (["-load_save", "A.save", "-priority", "3"], {"load_save": "A.save", "Priority": 3}),
    (["-update_submit"], {"UpdateSubmit": True}),
    (["-import_env"], {"ImportEnv": True}),
]


def _stub(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    stub = bin_dir / "condor_dagman"
    stub.write_text("#!/bin/sh\nexit 0\n")
    stub.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("CONDORX_CONFIG", None)
    env["CONDOR_CONFIG"] = "/dev/null"
    return env


def _setup(where: Path) -> None:
    where.mkdir()
    (where / "x.dag").write_text(DAG)
    (where / "a.sub").write_text("executable = /bin/true\nqueue\n")
    (where / "extra.sub").write_text('# a comment\n+Project = "p"\n\nrequest_memory = 10\n')
    (where / "dag.config").write_text("DAGMAN_MAX_JOBS_IDLE = 3\n")
    (where / "outs").mkdir()


def _normal(text: str) -> str:
    return re.sub(r"\$CondorVersion:.*?\$", "$CondorVersion$", text)


@pytest.mark.parametrize(("ours", "theirs"), CASES, ids=[" ".join(c[0]) or "none" for c in CASES])
def test_the_submit_file_is_the_one_htcondor_writes(tmp_path, ours, theirs):
    env = _stub(tmp_path)
    mine, oracle = tmp_path / "mine", tmp_path / "oracle"
    _setup(mine)
    _setup(oracle)
    r = run_tool("condorx.cli.submit_dag:main", [*ours, "-no_submit", "x.dag"], env, mine)
    assert r.returncode == 0, r.stderr
    assert "File for submitting this DAG to HTCondor" in r.stdout
    o = subprocess.run(
        [sys.executable, "-c", ORACLE, "x.dag", json.dumps(theirs)],
        cwd=oracle,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "ERROR" not in o.stdout, o.stdout
    expected = (oracle / "x.dag.condor.sub").read_text()
    got = (mine / "x.dag.condor.sub").read_text()
    assert _normal(got) == _normal(expected)


def test_append_lines_go_before_queue(tmp_path):
    env = _stub(tmp_path)
    _setup(tmp_path / "w")
    args = ["-append", '+Project = "x"', "-append", "request_disk = 5", "-no_submit", "x.dag"]
    r = run_tool("condorx.cli.submit_dag:main", args, env, tmp_path / "w")
    assert r.returncode == 0, r.stderr
    tail = (tmp_path / "w" / "x.dag.condor.sub").read_text().splitlines()[-3:]
    assert tail == ['+Project = "x"', "request_disk = 5", "queue"]


@pytest.mark.parametrize(
    ("dag", "args", "why"),
    [
        ("JOB A a.sub\nFROB A\n", [], "ERROR: x.dag:2 'FROB' is not a valid DAG command"),
        ("JOB A a.sub\nENV\n", [], "x.dag:2 Failed to parse ENV command: Missing action"),
        ("JOB A a.sub\n", ["-dorescuefrom", "2"], "rescue DAG file x.dag.rescue002 does not"),
        ("JOB A a.sub\n", ["-maxjobs", "lots"], "-maxjobs needs a whole number"),
    ],
)
def test_a_dag_htcondor_refuses_at_submission_writes_nothing(tmp_path, dag, args, why):
    env = _stub(tmp_path)
    (tmp_path / "x.dag").write_text(dag)
    (tmp_path / "a.sub").write_text("executable = /bin/true\nqueue\n")
    r = run_tool("condorx.cli.submit_dag:main", [*args, "-no_submit", "x.dag"], env, tmp_path)
    assert r.returncode == 1 and why in r.stderr
    assert not (tmp_path / "x.dag.condor.sub").exists()


@pytest.mark.parametrize(
    ("dag", "warning"),
    [
        ("JOB A a.sub\nPARENT A CHILD Z\n", "will not run this DAG: x.dag, line 2: unknown node Z"),
        ("JOB A a.sub\nJOB B b.sub\n", "x.dag, line 2: node B's submit file b.sub does not exist"),
        ("JOB A a.sub\nSCRIPT POST A post.sh $RETURN\n", "node A's POST script post.sh does not"),
        ("SUBDAG EXTERNAL S s.dag\n", "node S's DAG file s.dag does not exist (yet)"),
        ("JOB A a.sub\nJOB B a.sub\nPARENT A CHILD B\nPARENT B CHILD A\n", "A is in a cycle"),
    ],
)
def test_a_dag_htcondor_accepts_is_accepted_with_a_warning(tmp_path, dag, warning):
    # HTCondor's condor_submit_dag writes the DAGMan job for each of these (its DAGMan
    # finds the trouble when it runs): so does condorx's, and it says what it saw.
    env = _stub(tmp_path)
    (tmp_path / "x.dag").write_text(dag)
    (tmp_path / "a.sub").write_text("executable = /bin/true\nqueue\n")
    r = run_tool("condorx.cli.submit_dag:main", ["-no_submit", "x.dag"], env, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "WARNING: " in r.stderr and warning in r.stderr, r.stderr
    assert "universe    = scheduler" in (tmp_path / "x.dag.condor.sub").read_text()
    assert "-no_submit given, not submitting DAG to HTCondor. You can do this with:" in r.stdout


def test_an_earlier_runs_submit_file_is_kept_unless_forced(tmp_path):
    env = _stub(tmp_path)
    _setup(tmp_path / "w")
    w = tmp_path / "w"
    (w / "x.dag.condor.sub").write_text("earlier\n")
    r = run_tool("condorx.cli.submit_dag:main", ["-no_submit", "x.dag"], env, w)
    assert r.returncode == 1 and "already exists" in r.stderr
    assert '- Use the "-update_submit" option to update the submit file' in r.stderr
    assert (w / "x.dag.condor.sub").read_text() == "earlier\n"
    for option in ("-f", "-update_submit"):
        (w / "x.dag.condor.sub").write_text("earlier\n")
        r = run_tool("condorx.cli.submit_dag:main", [option, "-no_submit", "x.dag"], env, w)
        assert r.returncode == 0
        assert "universe    = scheduler" in (w / "x.dag.condor.sub").read_text()
    shutil.rmtree(w)


def test_the_dags_config_env_and_set_job_attr_go_into_the_dagman_job_as_htcondors(tmp_path):
    env = _stub(tmp_path)
    text = (
        DAG + "CONFIG dag.config\nENV GET FOO BAR\nENV SET BAZ=1;QUX=2\n"
        'SET_JOB_ATTR Team = "x"\nset_job_attr Rank2 = 7\n'
    )
    files = {}
    for side in ("mine", "oracle"):
        _setup(tmp_path / side)
        (tmp_path / side / "x.dag").write_text(text)
    r = run_tool("condorx.cli.submit_dag:main", ["-no_submit", "x.dag"], env, tmp_path / "mine")
    assert r.returncode == 0, r.stderr
    o = subprocess.run(
        [sys.executable, "-c", ORACLE, "x.dag", "{}"],
        cwd=tmp_path / "oracle",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "ERROR" not in o.stdout, o.stdout
    for side in ("mine", "oracle"):
        text = (tmp_path / side / "x.dag.condor.sub").read_text()
        files[side] = _normal(text).replace(str(tmp_path / side), "DIR")
    assert files["mine"] == files["oracle"]
    assert "My.Team" in files["mine"] and "-include_env FOO,BAR" in files["mine"]
