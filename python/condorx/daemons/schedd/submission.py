"""A submission as the queue takes it: the cluster ad and each proc's ad, decoded from the
wire once, by the handler, before any queue change is staged (so a batch's staging does
no decoding, and a bad attribute refuses the whole submission by proc and name).

Each proc keeps the map it was sent as, which is its row in the job queue: a 100,000-proc
submission is stored without reading the rows back out of the ads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from condorx.classad import ClassAd
from condorx.errors import Refusal, Refused
from condorx.language.attrs import PROTECTED
from condorx.transport import wire


@dataclass(frozen=True)
class Proc:
    own: dict[str, Any]  # the attributes it was sent with, as a wire map
    ad: ClassAd  # the same, decoded


@dataclass(frozen=True)
class Submission:
    cluster: ClassAd
    procs: tuple[Proc, ...]

    @classmethod
    def decode(cls, cluster_map: Mapping[str, Any], proc_maps: Sequence[Any]) -> Submission:
        """The submission a client's maps describe; a refusal (bad-request) names the
        proc and attribute that cannot be taken."""
        if not proc_maps:
            raise Refused(Refusal.BAD_REQUEST, "a submission needs at least one proc")
        cluster = wire.ad_from_wire(cluster_map, "cluster ad")
        checked: set[tuple[Any, ...]] = set()
        owns = []
        for proc, proc_map in enumerate(proc_maps):
            if not isinstance(proc_map, Mapping):
                raise Refused(Refusal.BAD_REQUEST, f"proc {proc}: expected a map of attributes")
            keys = tuple(proc_map)
            if keys not in checked:  # the procs of a cluster mostly set the same names
                _check_names(proc, keys)
                checked.add(keys)
            owns.append(dict(proc_map))
        ads = wire.ads_from_wire(owns, "proc")  # one call into the core for them all
        return cls(cluster, tuple(Proc(own, ad) for own, ad in zip(owns, ads, strict=True)))


def _check_names(proc: int, keys: tuple[Any, ...]) -> None:
    for name in keys:
        if not isinstance(name, str) or not wire.is_attr_name(name):
            raise Refused(Refusal.BAD_REQUEST, f"proc {proc}: bad attribute name {name!r}")
        if name.lower() in PROTECTED and name.lower() != "jobstatus":
            raise Refused(Refusal.BAD_REQUEST, f"proc {proc}: {name} is set by the schedd")
