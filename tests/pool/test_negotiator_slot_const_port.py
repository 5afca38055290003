"""HTCondor's own regression test test_negotiator_slot_const.py (htcondor/htcondor,
src/condor_tests) on a real pool: `use FEATURE : StaticSlots` on twenty cores makes twenty
one-core slots, and NEGOTIATOR_SLOT_CONSTRAINT = SlotID == 7 lets the negotiator see only
the seventh, where the job runs."""

from __future__ import annotations

from collections import Counter

import htcondor2

from condorx.testing.pool import QUICK_POOL, wait_for


def test_the_negotiator_sees_only_the_slots_its_constraint_names(pool):
    with open(pool.config_file, "a") as f:
        f.write(
            QUICK_POOL + "USE FEATURE : StaticSlots\nNUM_CPUS = 20\n"
            "NEGOTIATOR_SLOT_CONSTRAINT = SlotID == 7\n"
        )
    pool.reload()
    pool.start("collector", "schedd", "startd", "negotiator")
    cpus = lambda: pool.cli("condorx.cli.status", "-af", "Cpus").stdout.split()  # noqa: E731
    wait_for(lambda: len(cpus()) == 20, "twenty slots", 60)
    assert Counter(cpus()) == {"1": 20}
    (pool.root / "job.sub").write_text(
        "universe = vanilla\nexecutable = /bin/sleep\narguments = 0\nlog = job.log\n"
        "leave_in_queue = true\nshould_transfer_files = false\nrequest_cpus = 1\n"
        "request_memory = 32\nrequest_disk = 10240\nqueue\n"
    )
    pool.cli("condorx.cli.submit", "job.sub")

    def done() -> bool:
        events = htcondor2.JobEventLog(str(pool.root / "job.log")).events(stop_after=0)
        return any(e.type == htcondor2.JobEventType.JOB_TERMINATED for e in events)

    wait_for(done, "the job to complete", 60)
    host = pool.cli("condorx.cli.q", "-af", "LastRemoteHost ?: RemoteHost").stdout.strip()
    assert host.startswith("slot7@")
