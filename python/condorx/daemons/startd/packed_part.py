"""The fixed part of a slot's ad, packed once for as long as it is the same.

A slot's ad changes at every update only in its readings (`ads.varying_part`: the
clock, the load, the update's sequence number); the rest (`ads.fixed_part`) changes
with its state, claim and job alone. At 100,000 simulated slots, making and packing
each changed slot's whole ad was about a tenth of the simulator's work, most of it
for the same fixed part again. The fixed part is packed when it changes, and each
update packs only the readings and joins the two into one map.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from condorx.transport import wire


class PackedPart:
    __slots__ = ("key", "count", "pairs", "over")

    def __init__(self, key: tuple[Any, ...] | None, fixed: dict[str, Any], extras: Sequence[str]):
        """`fixed`: the fixed part with the administrator's attributes (`extras`: their
        names) set on it, made for `key` (`ads.fixed_key`)."""
        self.key = key
        self.count = len(fixed)
        self.pairs = wire.map_pairs(fixed)
        # An administrator's attribute named like a reading is set over it, as in the
        # whole ad (`SlotTable.advertised`): the reading is left out of the map.
        self.over = frozenset(n.lower() for n in extras if n in fixed)

    def ad(self, varying: dict[str, Any]) -> bytes:
        """The slot's whole ad, packed: this part joined to the readings `varying`."""
        if self.over:
            varying = {k: v for k, v in varying.items() if k.lower() not in self.over}
        return wire.packed_map(self.count + len(varying), self.pairs, wire.map_pairs(varying))
