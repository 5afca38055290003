"""Snakemake with its HTCondor executor (snakemake-executor-plugin-htcondor), unchanged,
on a condorx personal pool: the plugin submits each rule's job through HTCondor's Python
bindings (htcondor2's Schedd.submit), follows them in their event log and the queue, and
the workflow completes as on HTCondor."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from condorx.testing import bindings

SNAKEFILE = """\
rule all:
    input: "merged.txt"

rule greet:
    output: "greet_{name}.txt"
    shell: "echo hello {wildcards.name} > {output}"

rule merge:
    input: expand("greet_{name}.txt", name=["ada", "bob"])
    output: "merged.txt"
    shell: "cat {input} > {output}"
"""


def test_a_snakemake_workflow_runs_through_the_htcondor_executor(personal_pool, tmp_path):
    work = tmp_path / "workflow"
    work.mkdir()
    (work / "Snakefile").write_text(SNAKEFILE)
    env = bindings.client_env(personal_pool, tmp_path / "htcondor.config")
    snakemake = Path(sys.executable).parent / "snakemake"
    r = subprocess.run(
        # The queue is checked every second, not every 10 s (snakemake's default): the
        # test is about the executor's path, not how often it polls.
        [str(snakemake), "--executor", "htcondor", "--jobs", "2", "--latency-wait", "5"]
        + ["--seconds-between-status-checks", "1"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert (work / "merged.txt").read_text() == "hello ada\nhello bob\n"
    assert r.stderr.count("was successful.") == 3  # greet twice, merge once, each a job
    assert "4 of 4 steps (100%) done" in r.stderr
