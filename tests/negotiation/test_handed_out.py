"""A slot handed out sits the cycles out until the collector shows another ad for it."""

from __future__ import annotations

from condorx.classad import ClassAd
from condorx.daemons.negotiator.handed_out import HandedOut


def slot(name: str, seq: int, heard: int) -> ClassAd:
    return ClassAd({"Name": name, "UpdateSequenceNumber": seq, "LastHeardFrom": heard})


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def names(ads: list[ClassAd]) -> list[str]:
    return [str(a["Name"]) for a in ads]


def test_a_slot_handed_out_is_left_out_while_its_ad_is_the_same():
    held = HandedOut(bound=60, claim_bound=30, clock=Clock())
    a, b = slot("slot1@x", 5, 1000), slot("slot2@x", 5, 1000)
    held.hold(a)
    assert names(held.unheld([a, b])) == ["slot2@x"]
    assert names(held.unheld([slot("slot1@x", 5, 1000), b])) == ["slot2@x"]


def test_a_newer_ad_ends_the_hold():
    held = HandedOut(bound=60, claim_bound=30, clock=Clock())
    held.hold(slot("slot1@x", 5, 1000))
    assert names(held.unheld([slot("slot1@x", 6, 1000)])) == ["slot1@x"]
    # and for good: the old ad showing again (it cannot, but) is not held either
    assert names(held.unheld([slot("slot1@x", 5, 1000)])) == ["slot1@x"]


def test_a_restarted_startd_counting_from_one_again_is_heard_by_the_time():
    held = HandedOut(bound=60, claim_bound=30, clock=Clock())
    held.hold(slot("slot1@x", 5, 1000))
    assert names(held.unheld([slot("slot1@x", 5, 1003)])) == ["slot1@x"]


def test_the_bound_ends_a_hold_on_an_ad_that_never_changes():
    clock = Clock()
    held = HandedOut(bound=60, claim_bound=30, clock=clock)
    a = slot("slot1@x", 5, 1000)
    held.hold(a)
    clock.now += 59
    assert held.unheld([a]) == []
    clock.now += 1
    assert names(held.unheld([a])) == ["slot1@x"]


def test_a_slot_gone_from_the_collector_is_forgotten():
    held = HandedOut(bound=60, claim_bound=30, clock=Clock())
    a = slot("slot1@x", 5, 1000)
    held.hold(a)
    assert held.unheld([]) == []
    assert held.held == {}
    assert names(held.unheld([a])) == ["slot1@x"]


def unclaimed(seq: int, state: str = "Unclaimed", entered: int = 900) -> ClassAd:
    ad = slot("slot1@x", seq, 1000 + seq)
    ad["State"], ad["EnteredCurrentState"] = state, entered
    return ad


def test_a_slot_claimed_by_its_offer_is_held_until_it_offers_another_or_its_claim_bound():
    clock = Clock()
    held = HandedOut(bound=60, claim_bound=30, clock=clock)
    offers = {"slot1@x": "c1"}
    held.hold(unclaimed(5), "c1")
    # Advertised again while the schedd's claim is on its way: still Unclaimed, held.
    assert held.unheld([unclaimed(6)], offers) == []
    # Claimed, run and released within the second: the same state, another offer.
    assert names(held.unheld([unclaimed(7)], {"slot1@x": "c2"})) == ["slot1@x"]
    held.hold(unclaimed(8), "c2")
    assert names(held.unheld([unclaimed(9, "Owner", 950)], {"slot1@x": "c2"})) == ["slot1@x"]
    held.hold(unclaimed(10), "c2")
    clock.now += 29
    assert held.unheld([unclaimed(11)], {"slot1@x": "c2"}) == []
    clock.now += 1  # never claimed within MATCH_TIMEOUT: offered again
    assert names(held.unheld([unclaimed(11)], {"slot1@x": "c2"})) == ["slot1@x"]


def pslot(seq: int, cpus: int, carved: int | None) -> ClassAd:
    ad = {"Name": "slot1@x", "UpdateSequenceNumber": seq, "LastHeardFrom": 1000, "Cpus": cpus}
    if carved is not None:
        ad["DynamicSlotsCarved"] = carved
    return ClassAd(ad)


def test_a_carved_slot_is_held_until_its_ad_shows_every_carving():
    """Three matches carve a partitionable slot in one cycle: its ads that show one and
    two claims (and readings that change) keep it held; the one that shows all three
    ends the hold, as does MATCH_TIMEOUT."""
    clock = Clock()
    held = HandedOut(bound=60, claim_bound=30, clock=clock)
    for _ in range(3):
        held.carve(pslot(5, 12, carved=7), 2)
    assert held.unheld([pslot(6, 10, carved=8)]) == []
    assert held.unheld([pslot(7, 8, carved=9)]) == []
    assert held.unheld([pslot(8, 10, carved=9)]) == []  # a job ended meanwhile: still held
    assert names(held.unheld([pslot(9, 8, carved=10)])) == ["slot1@x"]
    held.carve(pslot(9, 8, carved=10), 2)
    clock.now += 30
    assert names(held.unheld([pslot(9, 8, carved=10)])) == ["slot1@x"]


def test_another_startds_carved_slot_is_held_until_its_cpus_show_the_carvings():
    held = HandedOut(bound=60, claim_bound=30, clock=Clock())
    held.carve(pslot(5, 12, carved=None), 4)
    held.carve(pslot(5, 12, carved=None), 4)
    assert held.unheld([pslot(6, 8, carved=None)]) == []
    assert names(held.unheld([pslot(7, 4, carved=None)])) == ["slot1@x"]


def claimed(state: str, group: str, seq: int) -> ClassAd:
    return ClassAd(
        {
            "Name": "slot1@x",
            "UpdateSequenceNumber": seq,
            "LastHeardFrom": 1000,
            "State": state,
            "AccountingGroup": group,
            "RemoteUser": group.rsplit(".", 1)[-1],
            "Cpus": 1,
        }
    )


def test_a_preempted_slot_is_the_incoming_submitters_until_its_ad_shows_it():
    """A preempting match: the slot is held, and charged to the incoming name, while
    its ads still show the old claim (retiring, vacating); the ad of the new claim ends
    it. The groups' usage counts it so, not twice and not for the old group."""
    from condorx.daemons.negotiator.pool_usage import pool_usage

    clock = Clock()
    held = HandedOut(bound=60, claim_bound=30, clock=clock)
    old = claimed("Claimed", "physics.alice", 5)
    held.hold(old, None, incoming="chemistry.bob")
    for ad in (claimed("Claimed", "physics.alice", 6), claimed("Preempting", "physics.alice", 7)):
        assert held.unheld([ad]) == []
        assert held.incoming() == {"slot1@x": "chemistry.bob"}
        assert pool_usage([ad], True, held.incoming()).weighted == {"chemistry.bob": 1.0}
    assert pool_usage([old], True).weighted == {"physics.alice": 1.0}
    new = claimed("Claimed", "chemistry.bob", 8)
    assert names(held.unheld([new])) == ["slot1@x"] and held.incoming() == {}
    held.hold(new, None, incoming="physics.alice")
    clock.now += 30  # MATCH_TIMEOUT: the preemption did not happen
    assert names(held.unheld([new])) == ["slot1@x"]
