"""The schedd's part of deferral and CronTab: it appends the prep-time clause to
Requirements whoever submits the job; it computes a cron job's DeferralTime in
CRON_TIME_ZONE and recomputes every idle cron job's on restart (a zone change moves them,
a schedule made invalid with condor_qedit holds its job with code 25 at once); condor_q
-cron shows them."""

from __future__ import annotations

import time

from jobs import cluster, procs
from test_submit_query import _ads

from condorx.transport.wire import Expr

PREP = "((time() + DeferralPrepTime) >= DeferralTime)"
CRON_PREP = "((time() + {interval}) >= (DeferralTime - CronPrepTime))"


def _job(schedd, cluster_id):
    (ad,) = _ads(schedd, f"ClusterId == {cluster_id}")
    return ad


def test_the_schedd_appends_the_prep_time_clause_once(schedd):
    later = int(time.time()) + 3600
    c = schedd.call(
        schedd.client().submit,
        cluster(schedd.root, DeferralTime=later, DeferralPrepTime=60),
        procs(1),
    )
    req = str(_job(schedd, c).lookup("Requirements"))
    assert req.endswith(f"&& {PREP}") and req.count("DeferralPrepTime") == 1
    assert req.startswith("((TARGET.Memory >= RequestMemory)")
    # A proc with its own Requirements gets the clause as well.
    d = schedd.call(
        schedd.client().submit,
        cluster(schedd.root, CronMinute="0", CronPrepTime=300),
        [{"Requirements": Expr("TARGET.Cpus > 0")}],
    )
    # A cron job's is the seed's rule, with this schedd's SCHEDD_INTERVAL (default 300).
    cron_prep = CRON_PREP.format(interval=300)
    assert str(_job(schedd, d).lookup("Requirements")) == f"(TARGET.Cpus > 0) && {cron_prep}"
    # condor_q -l shows it, as HTCondor's does.
    long = schedd.cli("condor_q", "-l", str(c)).stdout
    assert PREP in long
    # Without a prep time the job matches at once and waits on the machine (the deferral manual).
    e = schedd.call(schedd.client().submit, cluster(schedd.root, DeferralTime=later), procs(1))
    assert "time()" not in str(_job(schedd, e).lookup("Requirements"))


def _utc_hour(t: int) -> int:
    return time.gmtime(t).tm_hour


def test_restart_recomputes_cron_times_in_the_configured_zone(schedd):
    schedd.stop()
    base = schedd.config_file.read_text()
    schedd.config_file.write_text(base + "CRON_TIME_ZONE = UTC\n")
    schedd.start()
    noon = cluster(schedd.root, CronMinute="0", CronHour="12")
    c = schedd.call(schedd.client().submit, noon, procs(2))
    ad = _ads(schedd, f"ClusterId == {c}")[0]
    first = ad["DeferralTime"]
    assert _utc_hour(first) == 12 and first % 3600 == 0 and first > time.time()
    bad = schedd.call(schedd.client().submit, cluster(schedd.root, CronMinute="5"), procs(1))
    schedd.cli("condor_qedit", str(bad), "CronHour", "25")  # past condor_submit's checks
    held = _job(schedd, bad)  # held at once, not at its next run
    assert held["JobStatus"] == 5 and held["HoldReasonCode"] == 25
    assert "CronHour" in held["HoldReason"] and "25" in held["HoldReason"]

    schedd.stop()
    schedd.config_file.write_text(base + "CRON_TIME_ZONE = Asia/Tokyo\n")  # UTC+9, no DST
    schedd.start()
    moved = [ad["DeferralTime"] for ad in _ads(schedd, f"ClusterId == {c}")]
    assert len(moved) == 2 and all(_utc_hour(t) == 3 for t in moved)  # noon in Tokyo
    assert all(0 < t - time.time() <= 86400 for t in moved)
    assert _job(schedd, bad)["JobStatus"] == 5
    log = (schedd.root / "log" / "SchedLog").read_text()
    assert "cron: 2 next runs moved, 0 invalid schedules held" in log


def test_condor_q_cron_shows_schedule_and_next_run(schedd):
    later = int(time.time()) + 7200
    plain = schedd.call(schedd.client().submit, cluster(schedd.root), procs(1))
    once = schedd.call(
        schedd.client().submit,
        cluster(schedd.root, DeferralTime=later, DeferralWindow=30),
        procs(1),
    )
    hourly = schedd.call(
        schedd.client().submit,
        cluster(schedd.root, CronMinute="*/15", CronHour="9-17", CronWindow=60),
        procs(1),
    )
    out = schedd.cli("condor_q", "-cron").stdout
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.strip()[:1].isdigit()}
    assert f"{plain}.0" not in lines  # no schedule, no deferral: not shown
    assert "once" in lines[f"{once}.0"] and " 30s " in lines[f"{once}.0"]
    assert time.strftime("%m/%d %H:%M", time.localtime(later)) in lines[f"{once}.0"]
    row = lines[f"{hourly}.0"].split()
    assert row[3:8] == ["*/15", "9-17", "*", "*", "*"]
    next_run = _job(schedd, hourly)["DeferralTime"]
    assert time.strftime("%m/%d %H:%M", time.localtime(next_run)) in lines[f"{hourly}.0"]
    assert "in " in lines[f"{hourly}.0"] and "60s" in row
    assert next_run % 900 == 0


def test_procs_with_their_own_schedules_get_their_own_next_runs(schedd):
    # As `cron_minute = $(Process)` would send them: the schedule differs per proc.
    c = schedd.call(
        schedd.client().submit,
        cluster(schedd.root, CronHour="*"),
        [{"CronMinute": str(m)} for m in (7, 31)] + [{"CronMinute": "61"}],
    )
    ads = sorted(_ads(schedd, f"ClusterId == {c}"), key=lambda ad: ad["ProcId"])
    assert [time.gmtime(ad["DeferralTime"]).tm_min for ad in ads[:2]] == [7, 31]
    assert ads[2]["JobStatus"] == 5 and ads[2]["HoldReasonCode"] == 25
    assert "CronMinute: 61 is out of range" in ads[2]["HoldReason"]
    assert [ad["JobStatus"] for ad in ads[:2]] == [1, 1]


def test_a_schedule_changed_with_condor_qedit_takes_effect_at_once(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root, CronMinute="30"), procs(1))
    before = _job(schedd, c)["DeferralTime"]
    assert time.gmtime(before).tm_min == 30
    schedd.cli("condor_qedit", str(c), "CronMinute", "45")
    after = _job(schedd, c)["DeferralTime"]
    assert time.gmtime(after).tm_min == 45 and 0 < after - time.time() <= 3600
