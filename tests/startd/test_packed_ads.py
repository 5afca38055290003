"""A slot's ad packed for the collector (its fixed part packed once, joined at each update
to its readings) reads as the ad `advertised` makes whole, in every kind of slot and
state, with the administrator's attributes and a drain's, and follows each change."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_policy_scope import claimed
from test_slot_table import PARTITIONABLE, table

from condorx.classad import ClassAd
from condorx.daemons.startd.draining import Drain
from condorx.daemons.startd.states import Activity, State
from condorx.daemons.startd.table import SlotTable
from condorx.transport import wire

EPOCH = 1_700_000_000.0


def both(t: SlotTable) -> tuple[list[ClassAd], list[ClassAd]]:
    """Every slot's ad, packed in parts and made whole."""
    packed = wire.ads_from_packed(wire.packed_array(t.packed_ads()))
    whole = wire.ads_from_packed(wire.pack_ads([t.advertised(s) for s in t.all_slots()]))
    return packed, whole


@pytest.mark.parametrize(
    "text",
    [
        "NUM_SLOTS = 2\n",
        PARTITIONABLE,
        # An administrator's attributes, one named like a reading: it is set over it.
        'NUM_SLOTS = 2\nSTARTD_ATTRS = Team, KeyboardIdle\nTeam = "blue"\nKeyboardIdle = 7\n',
        # Other slots' attributes in each ad: made whole, then packed.
        "NUM_SLOTS = 2\nSTARTD_SLOT_ATTRS = State\n",
    ],
)
def test_a_packed_ad_reads_as_the_whole_ad(tmp_path: Path, text: str):
    t = table(tmp_path, text)
    t.clock = lambda: EPOCH
    if t.slots[0].kind == "Partitionable":
        t.carve(t.slots[0], {"cpus": 1, "memory": 512})
    packed, whole = both(t)
    assert packed == whole
    claimed(t, t.all_slots()[-1], State.CLAIMED, Activity.BUSY)  # a new fixed part
    t.drain_attrs = Drain.asked("graceful", "resume", "test", EPOCH).ad()
    t.sequence += 1  # and new readings
    packed, again = both(t)
    assert packed == again != whole
    assert packed[-1]["State"] == "Claimed" and packed[-1]["UpdateSequenceNumber"] == t.sequence
    if "KeyboardIdle = 7" in text:
        assert all(ad["KeyboardIdle"] == 7 and ad["Team"] == "blue" for ad in packed)


@pytest.mark.parametrize("sizes", [(0, 0), (3, 4), (15, 0), (10, 6), (200, 70_000)])
def test_a_map_packed_in_parts_is_the_map(sizes: tuple[int, int]):
    a = {f"a{i}": i for i in range(sizes[0])}
    b = {f"b{i}": wire.Expr("x + 1") if i % 2 else str(i) for i in range(sizes[1])}
    body = wire.packed_map(len(a) + len(b), wire.map_pairs(a), wire.map_pairs(b))
    assert wire.unpack(body) == wire.unpack(wire.dumps({**a, **b}))
