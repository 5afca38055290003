"""condor_dagman: run a DAG. The schedd starts it as the scheduler-universe job that
condor_submit_dag submits (`DAG.condor.sub`), with the arguments written there; it may
also be run by hand (`condor_dagman -Dag FILE`), outside any job.

Its exit code is the DAG's: 0 when every node succeeded, 1 when some failed (a rescue DAG
is written), 2 when it was removed, or a node's ABORT-DAG-ON return value; 4 when it
failed itself (it is run again, and recovers).
"""

from __future__ import annotations

import os
import sys
import traceback

import trio

from condorx.cli.common import load
from condorx.dag.errors import DagError
from condorx.dagman import options
from condorx.dagman.debug_log import DebugLog
from condorx.dagman.run import Dagman, DagmanError


def main() -> None:
    try:
        opts = options.parse(sys.argv[1:])
    except options.OptionError as e:
        print(f"condor_dagman: {e}", file=sys.stderr)
        sys.exit(1)
    cfg = load("condor_dagman", "DAGMAN")
    out = DebugLog(options.out_file(opts))
    job = _job_id(os.environ.get("CONDOR_ID", ""))
    out("******************************************************")
    out(f"** condor_scheduniv_exec.{job[0]}.{job[1]} (CONDOR_DAGMAN) STARTING UP")
    out(f"** {sys.argv[0]}")
    out(f"** PID = {os.getpid()}")
    out("******************************************************")
    out(f"argv: {' '.join(sys.argv)}")
    try:
        code = trio.run(Dagman(opts, cfg, out, job).run)
    except (DagError, DagmanError) as e:
        out(f"ERROR: {e}")
        out(f"**** condor_dagman (condor_DAGMAN) pid {os.getpid()} EXITING WITH STATUS 1")
        print(f"condor_dagman: {e}", file=sys.stderr)
        code = 1
    except Exception:
        # As HTCondor's EXCEPT: exit 4, which the DAGMan job's on_exit_remove does not
        # accept, so the schedd runs it again, in recovery mode.
        out(f"ERROR: condor_dagman failed:\n{traceback.format_exc()}")
        out(f"**** condor_dagman (condor_DAGMAN) pid {os.getpid()} EXITING WITH STATUS 4")
        code = 4
    out.close()
    sys.exit(code)


def _job_id(text: str) -> tuple[int, int]:
    """CONDOR_ID ("cluster.proc"), which the schedd gives a scheduler-universe job."""
    cluster, _, proc = text.partition(".")
    try:
        return int(cluster), int(proc or 0)
    except ValueError:
        return 0, 0


if __name__ == "__main__":
    main()
