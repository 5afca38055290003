"""HTCondor's own clients run DAGs on condorx: `htcondor2.Submit.from_dag` (which builds
the DAGMan job as condor_submit_dag does) with `Schedd.submit` over CEDAR, and the wheel's
`htcondor dag submit`, unchanged."""

from __future__ import annotations

from test_dagman_run import NODE, finished, history

from condorx.testing import bindings

DAG = "JOB A node.sub\nJOB B node.sub\nPARENT A CHILD B\n"


def test_submit_from_dag_and_schedd_submit_run_a_dag(dag_pool):
    root = dag_pool.root
    (root / "node.sub").write_text(NODE)
    (root / "x.dag").write_text(DAG)
    r = bindings.run(
        dag_pool,
        """
        import htcondor2 as htcondor
        sub = htcondor.Submit.from_dag("x.dag", {"batch-name": "from-bindings"})
        result(htcondor.Schedd().submit(sub).cluster())
        """,
    )
    assert r.returncode == 0, r.stderr
    cluster = r.value
    assert finished(dag_pool, root, cluster) == ["0", "0", "2"]
    assert (root / "order.txt").read_text().split() == ["A", "B"]
    names = history(dag_pool, f"ClusterId == {cluster} || DAGManJobId == {cluster}", "JobBatchName")
    assert names == [["from-bindings"]] * 3  # the DAG's and its nodes' jobs


def test_htcondor_dag_submit(dag_pool):
    root = dag_pool.root
    (root / "node.sub").write_text(NODE)
    (root / "y.dag").write_text(DAG)
    r = bindings.run(
        dag_pool,
        """
        import sys
        from htcondor_cli.cli import main
        sys.argv = ["htcondor", "dag", "submit", "y.dag"]
        main()
        """,
    )
    assert r.returncode == 0, r.stderr
    said = (r.stdout + r.stderr).split()
    at = said.index("DAG")
    assert said[at + 2 : at + 4] == ["was", "submitted."], said
    assert finished(dag_pool, root, int(said[at + 1])) == ["0", "0", "2"]
