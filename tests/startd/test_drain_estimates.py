"""What draining the machine would cost, as HTCondor's startd publishes it: its own
regression data (src/condor_tests/StatusAds/basic4slot, htcondor/htcondor) is two
one-core jobs that started at 1417808259 under MachineMaxVacateTime = 10 * 60 and no
retirement time, published at 1417808264 as 1210 and 1417808864."""

from __future__ import annotations

from condorx.classad import ClassAd
from condorx.daemons.startd.drain_estimates import estimates, vacate_time
from condorx.daemons.startd.policy import Policy
from condorx.daemons.startd.slots import Claim, Slot
from condorx.language.config import Config


def slot(n: int, cpus: int = 1, job: ClassAd | None = None, start: float = 0.0) -> Slot:
    s = Slot(n, f"slot{n}@m", "Static", cpus, 1024, 1000)
    if job is not None:
        s.claim = Claim(f"c{n}", "<s>", "u", claimed=True, job=job, job_start=start)
    return s


def policy(text: str = "") -> Policy:
    return Policy.from_config(Config.from_text(text))


def test_htcondors_own_figures_for_two_running_jobs():
    started = 1417808259.0
    slots = [slot(1, job=ClassAd(), start=started), slot(2, job=ClassAd(), start=started)]
    slots += [slot(3), slot(4)]  # unclaimed: nothing to lose
    vacate = vacate_time(Config.from_text("MachineMaxVacateTime = 10 * 60\n"))
    got = estimates(slots, policy(), 1417808264.0, lambda s: None, vacate)
    assert got == {
        "ExpectedMachineGracefulDrainingBadput": 1210,
        "ExpectedMachineQuickDrainingBadput": 1210,
        "ExpectedMachineGracefulDrainingCompletion": 1417808864,
        "ExpectedMachineQuickDrainingCompletion": 1417808864,
    }


def test_retirement_time_left_makes_a_graceful_drain_longer():
    """A four-core job 100 s in, with an hour's retirement: graceful waits the 3500 s
    left (longer than the vacate time), quick only the vacate time."""
    p = policy("MaxJobRetirementTime = 3600\n")
    s = [slot(1, cpus=4, job=ClassAd(), start=1000.0)]
    got = estimates(s, p, 1100.0, lambda sl: p.retirement_time(ClassAd(), sl.claim.job), 600.0)
    assert got == {
        "ExpectedMachineGracefulDrainingBadput": 4 * (100 + 3500),
        "ExpectedMachineQuickDrainingBadput": 4 * (100 + 600),
        "ExpectedMachineGracefulDrainingCompletion": 1100 + 3500,
        "ExpectedMachineQuickDrainingCompletion": 1100 + 600,
    }


def test_a_machine_with_nothing_running_is_drained_now():
    got = estimates([slot(1), slot(2)], policy(), 5000.0, lambda s: None, 600.0)
    assert got == {
        "ExpectedMachineGracefulDrainingBadput": 0,
        "ExpectedMachineQuickDrainingBadput": 0,
        "ExpectedMachineGracefulDrainingCompletion": 5000,
        "ExpectedMachineQuickDrainingCompletion": 5000,
    }


def test_the_vacate_time_is_htcondors_ten_minutes_unless_a_number():
    assert vacate_time(Config.from_text("")) == 600.0
    assert vacate_time(Config.from_text("MachineMaxVacateTime = 30\n")) == 30.0
    assert vacate_time(Config.from_text("MachineMaxVacateTime = Foo\n")) == 600.0
