"""The schedd's autoclusters: its idle jobs grouped as a negotiator's slots cannot tell
them apart, so that a negotiator reads one request per group (with a count) rather than
every idle job, and a match made for a group's first job may go to any job of it still
waiting, as HTCondor's schedds answer for their autoclusters.

The groups are those of the last query (per group's first job), and a match takes its
job from its group in queue order, skipping jobs that have meanwhile run, left, or been
matched otherwise. (Two negotiators whose job constraints overlap share the groups of
whichever asked last; the jobs picked are checked all the same.)

The query's constraint, the jobs skipped (matched or running) and the grouping are one
pass in the core (`waiting_groups`): at a million jobs, walking them in Python took
longer than the negotiator's whole match."""

from __future__ import annotations

from collections.abc import Callable

import trio

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.schedd.store import Key
from condorx.language.negotiation import waiting_groups

Group = tuple[Key, int, ClassAd]  # the first job, how many jobs, the first job's ad


# The groups of this many distinct requests (a negotiator's job constraint each) are kept.
KEPT = 8


# What tells groups apart whatever the pool reads: whose jobs, and their limits.
_APART = ["Owner", "AccountingGroup", "ConcurrencyLimits"]


class Waiting:
    """A group's jobs in queue order, taken from the front: the query's keys and the
    group's positions among them (no copy of a million keys per query)."""

    __slots__ = ("keys", "members", "next")

    def __init__(self, keys: list[Key], members: list[int]) -> None:
        self.keys = keys
        self.members = members
        self.next = 0

    def take(self) -> Key | None:
        if self.next >= len(self.members):
            return None
        self.next += 1
        return self.keys[self.members[self.next - 1]]


class Autoclusters:
    def __init__(self) -> None:
        # Per request (its constraint): each group's waiting jobs, by its first job.
        self.kept: dict[str, dict[Key, Waiting]] = {}

    async def group(
        self,
        keys: list[Key],
        ads: list[ClassAd],
        skip: list[bool],
        constraint: ExprTree | None,
        pool: list[ClassAd],
        request: str = "",
    ) -> list[Group]:
        """Group the jobs (`keys` and their `ads`, in queue order) not marked in `skip`
        for which `constraint` is true, for slots with the `pool`'s policies, each
        accounting name's apart (a negotiator matches its jobs as one submitter's), and
        each set of concurrency limits (HTCondor's schedd keeps them apart too). The
        groups replace those of the last request like it (`request`: its constraint)."""
        found = await trio.to_thread.run_sync(waiting_groups, ads, skip, constraint, pool, _APART)
        groups: list[Group] = []
        members_of: dict[Key, Waiting] = {}
        for members in found:
            first = keys[members[0]]
            members_of[first] = Waiting(keys, members)
            groups.append((first, len(members), ads[members[0]]))
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
            while (key := members.take()) is not None:
                if usable(key):
                    return key
            del members_of[first]
            return None
        return first if usable(first) else None
