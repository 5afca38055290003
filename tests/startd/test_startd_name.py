"""Two startds on one host, the second run with `-local-name STARTD2` and its own
STARTD_NAME, as HTCondor's tests and glideins run them: each names its slots after itself
(`slot1@STARTD2@host`, as HTCondor's build_valid_daemon_name makes the name), so neither
overwrites the other's ads, and jobs run on the slots of both."""

from __future__ import annotations

import socket

from condorx.testing.pool import QUICK_POOL, wait_for

SECOND = """\
STARTD2.STARTD_NAME = STARTD2
STARTD2.STARTD_ADDRESS_FILE = $(LOG)/.startd_address.startd2
STARTD2.STARTD_LOG = $(LOG)/StartLog.startd2
STARTD2.EXECUTE = $(LOCAL_DIR)/execute2
"""


def test_two_startds_on_one_host_keep_their_slots_apart(pool):
    (pool.root / "execute2").mkdir()
    with open(pool.config_file, "a") as f:
        f.write(QUICK_POOL + f"FULL_HOSTNAME = {socket.getfqdn()}\n" + SECOND)
    pool.reload()
    pool.start("collector", "negotiator", "schedd", "startd", "startd:STARTD2")
    host = socket.getfqdn()
    names = lambda: sorted(pool.cli("condorx.cli.status", "-af", "Name").stdout.split())  # noqa: E731
    want = [f"slot1@STARTD2@{host}", f"slot1@{host}", f"slot2@STARTD2@{host}", f"slot2@{host}"]
    wait_for(lambda: names() == sorted(want), "both startds' slots")
    machines = pool.cli("condorx.cli.status", "-af", "Machine").stdout.split()
    assert machines == [host] * 4
    (pool.root / "job.sub").write_text("executable = /bin/sleep\narguments = 30\nqueue 4\n")
    pool.cli("condorx.cli.submit", "job.sub")
    where = lambda: sorted(  # noqa: E731
        pool.cli(
            "condorx.cli.q", "-af", "RemoteHost", "-constraint", "JobStatus == 2"
        ).stdout.split()
    )
    wait_for(lambda: where() == sorted(want), "a job on each of the four slots", 60)
    pool.cli("condorx.cli.act:rm", "-all")
