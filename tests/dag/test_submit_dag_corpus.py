"""condor_submit_dag on every DAG of the corpus (HTCondor's own 227 and the 69 public
ones), against HTCondor's own condor_submit_dag code: `htcondor2.Submit.from_dag`, run
as the tool runs, from the DAG's directory with the DAG's name. condorx must accept
exactly the DAGs HTCondor accepts (most name submit files the corpus does not hold, and a
few have cycles: HTCondor's DAGMan finds those when it runs), refuse the others with
HTCondor's words, and write the same `.condor.sub` file for each."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from condorx.language.dag import job_commands
from condorx.language.dag.errors import DagError
from condorx.language.dag.submit_file import Options, text

CORPUS = Path(__file__).parent / "corpus"

ORACLE = """
import htcondor2, json, os, sys
out = {}
for where, name in json.load(sys.stdin):
    os.chdir(where)
    try:
        htcondor2.Submit.from_dag(name, {})
        with open(name + ".condor.sub") as f:
            out[os.path.join(where, name)] = ["ok", f.read()]
    except Exception as e:
        out[os.path.join(where, name)] = ["error", str(e)]
json.dump(out, sys.stdout)
"""

# Bad DAGs of our own beside the corpus: what HTCondor's condor_submit_dag refuses, and
# what it accepts for condor_dagman to find (an unknown node, a missing file, a cycle, a
# RETRY count that is a macro, commands condorx's DAGMan does not run yet).
EXTRA = {
    "bad_keyword.dag": "JOB A a.sub\nFROB A\n",
    "bad_config.dag": "JOB A a.sub\nCONFIG\n",
    "config_two_words.dag": "JOB A a.sub\nCONFIG a.conf b.conf\n",
    "two_configs.dag": "JOB A a.sub\nCONFIG a.conf\nCONFIG b.conf\n",
    "bad_env.dag": "JOB A a.sub\nENV FOO\n",
    "bare_env.dag": "JOB A a.sub\nENV GET\n",
    "bare_set_job_attr.dag": "JOB A a.sub\nSET_JOB_ATTR\n",
    "unknown_node.dag": "JOB A a.sub\nPARENT A CHILD Z\n",
    "missing_submit_file.dag": "JOB A a.sub\nJOB B b.sub\nSCRIPT PRE B make-b.sh\n",
    "cycle.dag": "JOB A a.sub\nJOB B a.sub\nPARENT A CHILD B\nPARENT B CHILD A\n",
    "retry_macro.dag": "JOB A a.sub\nRETRY A $(N)\n",
    "newer_commands.dag": "JOB A a.sub\nJOB B a.sub\nWEAK PARENT A CHILD B\nDONE A\n",
    "lower_case.dag": 'job A a.sub\nenv get HOME\nset_job_attr Team = "x"\nconfig x.conf\n',
}


def _dags(root: Path) -> list[tuple[str, str]]:
    return sorted((str(p.parent), p.name) for p in root.rglob("*.dag"))


def _normal(text: str, root: Path) -> str:
    text = re.sub(r"\$CondorVersion:.*?\$", "$CondorVersion$", text)
    return text.replace(str(root), "ROOT")


def _condorx(where: str, name: str) -> list[str]:
    """What condorx's condor_submit_dag makes of the DAG: the submit file, or its error."""
    here = os.getcwd()
    os.chdir(where)
    try:
        options = Options(dags=[name])
        options.take_from(job_commands.read([name]))
        return ["ok", text(options)]
    except DagError as e:
        return ["error", str(e)]
    finally:
        os.chdir(here)


def test_condor_submit_dag_accepts_and_refuses_what_htcondors_does(tmp_path, monkeypatch):
    stub = tmp_path / "bin" / "condor_dagman"
    stub.parent.mkdir()
    stub.write_text("#!/bin/sh\nexit 0\n")
    stub.chmod(0o755)
    monkeypatch.setenv("PATH", f"{stub.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CONDOR_CONFIG", "/dev/null")
    monkeypatch.delenv("CONDORX_CONFIG", raising=False)
    results = {}
    for side in ("mine", "oracle"):
        root = tmp_path / side
        shutil.copytree(CORPUS, root, ignore=shutil.ignore_patterns("*.tsv"))
        for name, body in EXTRA.items():
            (root / "extra").mkdir(exist_ok=True)
            (root / "extra" / name).write_text(body)
        (root / "extra" / "a.sub").write_text("executable = /bin/true\nqueue\n")
        (root / "extra" / "x.conf").write_text("DAGMAN_MAX_JOBS_IDLE = 3\n")
        results[side] = root
    mine_root, oracle_root = results["mine"], results["oracle"]
    run = subprocess.run(
        [sys.executable, "-c", ORACLE],
        input=json.dumps(_dags(oracle_root)),
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    theirs = {
        str(Path(k).relative_to(oracle_root)): [v[0], _normal(v[1], oracle_root)]
        for k, v in json.loads(run.stdout).items()
    }
    ours = {str(Path(w, n).relative_to(mine_root)): _condorx(w, n) for w, n in _dags(mine_root)}
    ours = {k: [v[0], _normal(v[1], mine_root)] for k, v in ours.items()}
    for k, v in theirs.items():
        # The bindings' words for what condor_submit_dag says itself (condorx says it
        # in condor_submit_dag's words: "Can't read DAGMan config file: PATH").
        if v == ["error", "Unable to write condor_dagman submit file"]:
            assert ours[k][1].startswith("Can't read DAGMan config file: "), (k, ours[k])
            ours[k] = v
    assert len(theirs) == len(ours) == 296 + len(EXTRA)
    differ = {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]}
    assert not differ, json.dumps(dict(list(differ.items())[:3]), indent=1)
    refused = {k for k, v in theirs.items() if v[0] == "error"}
    # Both refuse only our bad DAGs, and the corpus DAGs whose CONFIG file the corpus
    # does not hold; every other DAG is accepted, whatever its nodes' files.
    no_config = {k for k in refused if theirs[k][1] == "Unable to write condor_dagman submit file"}
    bad = ("bad_", "bare_", "two_", "config_")
    assert refused - no_config == {f"extra/{n}" for n in EXTRA if n.startswith(bad)}
    assert len(no_config) == 34
    assert len(theirs) - len(refused) == 268
