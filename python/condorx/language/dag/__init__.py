"""DAGMan: workflows of jobs (nodes) and the order they run in, described in HTCondor's
DAG language (`parse`), submitted by `condor_submit_dag` as a scheduler-universe job."""
