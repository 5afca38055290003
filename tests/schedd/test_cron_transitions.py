"""A cron job's next run as the queue's transitions set it, without a daemon: never the
run that has just happened, and never one from before the job became idle."""

from __future__ import annotations

import calendar
import time
from pathlib import Path

from jobs import cluster

from condorx.classad import ClassAd
from condorx.daemons.schedd import deferral, entry
from condorx.daemons.schedd import transitions as t
from condorx.daemons.schedd.queue import JobQueue
from condorx.daemons.schedd.store import Store
from condorx.daemons.schedd.submission import Submission

WHO = entry.Submitter("alice", "example.org", "schedd@example.org")
MINUTE = 1_700_000_040  # a whole minute


def _commit(txn) -> None:
    txn.prepare()
    txn.write()
    txn.apply()


def test_a_run_that_ends_in_its_own_second_is_followed_by_the_next_minute(tmp_path: Path):
    q = JobQueue(Store(tmp_path / "q.db"))
    txn = q.begin()
    ad = cluster(tmp_path, CronMinute="*", OnExitRemove=False)
    c = entry.submit(txn, WHO, Submission.decode(ad, [{}]), now=MINUTE - 30)
    _commit(txn)
    assert q.get((c, 0))["DeferralTime"] == MINUTE
    txn = q.begin()
    assert t.exited(txn, (c, 0), t.Exit(code=0), MINUTE) == "requeued"  # a 0 s run
    _commit(txn)
    assert q.get((c, 0))["DeferralTime"] == MINUTE + 60  # not the run that just ran


def utc(text: str) -> int:
    return calendar.timegm(time.strptime(text, "%Y-%m-%d %H:%M"))


def test_a_restart_keeps_a_run_inside_its_window_but_never_reaches_back_past_idle():
    rules = deferral.Rules(zone="UTC")
    job = ClassAd()
    job["JobStatus"] = 1
    job["CronMinute"] = "*/15"
    job["CronWindow"] = 3600
    job["DeferralTime"] = utc("2024-05-01 09:30")
    job["EnteredCurrentStatus"] = utc("2024-05-01 09:16")  # idle since its 09:15 run
    changed, invalid = rules.recompute([((1, 0), job)], utc("2024-05-01 09:20"))
    assert changed == {} and invalid == {}  # 09:30 stays (not back to 08:30)
    job["EnteredCurrentStatus"] = utc("2024-05-01 08:00")  # idle, and it missed 09:00
    changed, _ = rules.recompute([((1, 0), job)], utc("2024-05-01 09:20"))
    assert changed == {(1, 0): utc("2024-05-01 08:30")}  # the earliest still in window
