"""condor_status -submitters on a real pool: HTCondor's submitter view (status.cpp's
submitterNormal print format: Name, Machine, RunningJobs, IdleJobs, HeldJobs, then the
totals by submitter and for the pool), from the Submitter ads the schedd advertises."""

from __future__ import annotations

from pathlib import Path

from condorx.testing.pool import QUICK_POOL, wait_for
from condorx.transport import locate, security


def submit(pool, user: str, count: int) -> None:
    (pool.root / f"{user}.sub").write_text(f"executable = /bin/true\nqueue {count}\n")
    env = dict(pool.env)
    key = Path(locate.pool_key_file(pool.cfg)).read_bytes().strip()
    env["CONDORX_TOKEN"] = security.make_token(key, user)
    pool.cli("condorx.cli.submit", f"{user}.sub", env=env)


def test_the_submitter_view_counts_each_users_jobs(pool):
    with open(pool.config_file, "a") as f:
        f.write(QUICK_POOL)
    pool.reload()
    pool.start("collector", "schedd")  # no negotiator: the jobs wait
    submit(pool, "alice", 3)
    submit(pool, "bob", 2)
    pool.cli("condorx.cli.act:hold", "2.1")

    def view() -> str:
        return pool.cli("condorx.cli.status", "-submitters").stdout

    wait_for(lambda: "bob@" in view() and " 1          1\n" in view(), "the schedd's new ads")
    machine = pool.cli("condorx.cli.status", "-submitters", "-af", "Machine").stdout.split()[0]
    domain = pool.cli("condorx.cli.status", "-submitters", "-af", "Name").stdout.split()[0]
    domain = domain.split("@", 1)[1]
    alice, bob = f"alice@{domain}", f"bob@{domain}"
    w = max(len(alice), len(bob))
    m = max(len("Machine"), len(machine))
    assert view() == (
        f"{'Name':<{w}} {'Machine':<{m}} RunningJobs   IdleJobs   HeldJobs\n"
        "\n"
        f"{alice:<{w}} {machine:<{m}}           0          3          0\n"
        f"{bob:<{w}} {machine:<{m}}           0          1          1\n"
        "\n"
        f"{'':{w}}RunningJobs   IdleJobs   HeldJobs\n"
        "\n"
        f"{alice:>{w}}          0          3          0\n"
        f"{bob:>{w}}          0          1          1\n"
        "\n"
        f"{'Total':>{w}}          0          4          1\n"
    )


def test_a_groups_jobs_are_a_submitter_of_their_own(pool):
    """HTCondor's schedd names a submitter by accounting name: `group.user@domain` for a
    job with an accounting group, beside the user's own jobs."""
    with open(pool.config_file, "a") as f:
        f.write(QUICK_POOL)
    pool.reload()
    pool.start("collector", "schedd")
    (pool.root / "g.sub").write_text(
        "executable = /bin/true\naccounting_group = physics\nqueue 2\n"
    )
    pool.cli("condorx.cli.submit", "g.sub")
    (pool.root / "u.sub").write_text("executable = /bin/true\nqueue 1\n")
    pool.cli("condorx.cli.submit", "u.sub")
    user = security.current_user()

    def names() -> dict[str, str]:
        out = pool.cli("condorx.cli.status", "-submitters", "-af", "Name", "IdleJobs").stdout
        return {n.split("@")[0]: idle for n, idle in (line.split() for line in out.splitlines())}

    wait_for(lambda: len(names()) == 2, "a Submitter ad for the group's jobs")
    assert names() == {f"physics.{user}": "2", user: "1"}
