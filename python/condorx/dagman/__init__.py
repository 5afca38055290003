"""condor_dagman: runs the nodes of a DAG as jobs of the local schedd."""
