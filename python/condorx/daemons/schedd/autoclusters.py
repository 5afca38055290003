"""The schedd's autoclusters: its idle jobs grouped as a negotiator's slots cannot tell
them apart, so that a negotiator reads one request per group (with a count) rather than
every idle job, and a match made for a group's first job may go to any job of it still
waiting, as HTCondor's schedds answer for their autoclusters.

The groups are those of the last query (per group's first job), and a match takes its
job from its group in queue order, skipping jobs that have meanwhile run, left, or been
matched otherwise. (Two negotiators whose job constraints overlap share the groups of
whichever asked last; the jobs picked are checked all the same.)"""

from __future__ import annotations

import collections
from collections.abc import Callable

import trio

from condorx.classad import ClassAd
from condorx.daemons.schedd.store import Key
from condorx.language.negotiation import autoclusters

Group = tuple[Key, int, ClassAd]  # the first job, how many jobs, the first job's ad


# The groups of this many distinct requests (a negotiator's job constraint each) are kept.
KEPT = 8


class Autoclusters:
    def __init__(self) -> None:
        # Per request (its constraint): each group's waiting jobs, by its first job.
        self.kept: dict[str, dict[Key, collections.deque[Key]]] = {}

    async def group(
        self, jobs: list[tuple[Key, ClassAd]], pool: list[ClassAd], request: str = ""
    ) -> list[Group]:
        """Group `jobs` (in queue order) for slots with the `pool`'s policies, each
        owner's apart (a negotiator matches each owner's jobs as one submitter's). The
        groups replace those of the last request like it (`request`: its constraint)."""
        owners: dict[object, list[tuple[Key, ClassAd]]] = {}
        for key, ad in jobs:
            owners.setdefault(ad.get("Owner"), []).append((key, ad))
        groups: list[Group] = []
        members_of: dict[Key, collections.deque[Key]] = {}
        for owned in owners.values():
            ads = [ad for _, ad in owned]
            found = await trio.to_thread.run_sync(autoclusters, ads, pool)
            for members in found:
                keys = [owned[i][0] for i in members]
                members_of[keys[0]] = collections.deque(keys)
                groups.append((keys[0], len(keys), owned[members[0]][1]))
        self.kept.pop(request, None)
        self.kept[request] = members_of
        while len(self.kept) > KEPT:
            del self.kept[next(iter(self.kept))]  # the oldest
        groups.sort(key=lambda g: g[0])
        return groups

    def pick(self, first: Key, usable: Callable[[Key], bool]) -> Key | None:
        """A job of `first`'s group still waiting for a match (`first` itself if it is);
        None when none is left."""
        for members_of in reversed(self.kept.values()):  # the newest first
            members = members_of.get(first)
            if members is None:
                continue
            while members:
                key = members.popleft()
                if usable(key):
                    return key
            del members_of[first]
            return None
        return first if usable(first) else None
