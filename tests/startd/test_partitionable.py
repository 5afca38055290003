"""A partitionable slot is carved into dynamic slots sized by each job's requests."""

from __future__ import annotations

from condorx.testing.pool import wait_for

CONFIG = """\
NEGOTIATOR_INTERVAL = 2
UPDATE_INTERVAL = 2
SCHEDD_INTERVAL = 2
NUM_CPUS = 4
MEMORY = 4096
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_1 = 100%
SLOT_TYPE_1_PARTITIONABLE = True
START = TRUE
"""


def test_jobs_run_side_by_side_in_dynamic_slots(pool):
    with open(pool.config_file, "a") as f:
        f.write(CONFIG)
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    marks = pool.root / "marks"
    marks.mkdir()
    both = f"while [ $(ls {marks} | wc -l) -lt 2 ]; do sleep 0.1; done"
    (pool.root / "job.sub").write_text(
        "executable = /bin/sh\n"
        f"arguments = \"-c 'touch {marks}/$(Process); {both}'\"\n"
        "request_cpus = 2\nrequest_memory = 1024\nqueue 2\n"
    )
    pool.cli("condorx.cli.submit", "job.sub")

    def slots():
        out = pool.cli("condorx.cli.status", "-af", "Name", "SlotType", "Cpus", "Memory").stdout
        return sorted(line.split() for line in out.splitlines())

    # Both jobs must run at once (each waits for the other), each in its own dynamic slot.
    wait_for(lambda: len(list(marks.iterdir())) == 2, "both jobs to run at the same time")
    wait_for(
        lambda: pool.cli("condorx.cli.history", "-af", "JobStatus").stdout == "4\n4\n",
        "both jobs to complete",
    )
    hosts = sorted(pool.cli("condorx.cli.history", "-af", "LastRemoteHost").stdout.split())
    assert [h.split("@")[0] for h in hosts] == ["slot1_1", "slot1_2"]
    # The partitionable slot advertises what it has left, as HTCondor's does: all of it
    # again once both dynamic slots are gone.
    wait_for(
        lambda: [s[2:] for s in slots() if s[1] == "Partitionable"] == [["4", "4096"]],
        "the partitionable slot whole again",
    )


GPUS = """\
MACHINE_RESOURCE_GPUs = CUDA0, CUDA1
"""


def test_each_gpu_job_sees_its_own_gpu(pool):
    with open(pool.config_file, "a") as f:
        f.write(CONFIG + GPUS)
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    out = pool.root / "out"
    out.mkdir()
    marks = pool.root / "marks"
    marks.mkdir()
    script = pool.root / "gpu.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"touch {marks}/$1\n"
        f"while [ $(ls {marks} | wc -l) -lt 2 ]; do sleep 0.1; done\n"
        f'echo "$CUDA_VISIBLE_DEVICES $_CONDOR_AssignedGPUs" > {out}/$1\n'
    )
    script.chmod(0o755)
    (pool.root / "job.sub").write_text(
        f"executable = {script}\narguments = $(Process)\n"
        "request_cpus = 1\nrequest_gpus = 1\nqueue 2\n"
    )
    pool.cli("condorx.cli.submit", "job.sub")
    wait_for(
        lambda: pool.cli("condorx.cli.history", "-af", "JobStatus").stdout == "4\n4\n",
        "both GPU jobs to complete",
    )
    # The two ran at once (each waited for the other), each on a GPU of its own.
    seen = sorted((out / str(p)).read_text().strip() for p in range(2))
    assert seen == ["0 CUDA0", "1 CUDA1"]
