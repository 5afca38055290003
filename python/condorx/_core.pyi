"""Stubs for the Rust extension `condorx._core` (the ClassAd engine)."""

from collections.abc import Iterator
from typing import Any, final

__all__ = [
    "CondorxError",
    "ClassAdParseError",
    "ClassAd",
    "ExprTree",
    "_register_sentinels",
    "parse_ads",
    "parse_next",
    "parse_one",
    "quote",
    "unquote",
    "function_names",
    "eval_each",
    "count_true",
    "eval_against",
    "symmetric_matches",
    "negotiate",
    "analyze",
    "Accountant",
    "Groups",
    "ConcurrencyLimits",
    "set_user_maps",
    "CronError",
    "AdReadError",
    "cron_check",
    "cron_next_runs",
    "cron_next_run_each",
    "deferral_on_arrival",
    "cron_recompute",
    "benchmark_mips",
    "benchmark_kflops",
    "ads_from_wire",
    "ads_from_msgpack",
    "ads_to_msgpack",
    "cedar_put_ads",
    "cedar_get_ad",
    "autoclusters",
    "pool_policies",
    "waiting_groups",
    "__version__",
]

__version__: str

class CondorxError(Exception):
    """Base class of condorx's own exceptions."""

class CronError(ValueError):
    """A CronTab field that is malformed or out of range; carries .attribute (CronHour, ...)."""

class AdReadError(ValueError):
    """Ads from a peer that break the wire's rules; carries .ad (its index, or None for
    the body), .attribute (or None) and .reason."""

    ad: int | None
    attribute: str | None
    reason: str

class ClassAdParseError(ValueError):
    """ClassAd text that does not parse; carries .line, .column, .attribute and .offset."""

    line: int
    column: int
    offset: int
    attribute: str | None

@final
class ExprTree:
    """A parsed ClassAd expression, optionally tied to the ad it was looked up in."""

    def __new__(cls, text: str | ExprTree) -> ExprTree: ...
    def eval(self, scope: ClassAd | None = None, target: ClassAd | None = None) -> Any:
        """Evaluate in `scope` (or the ad this came from) with `target` as TARGET."""
    def simplify(self, scope: ClassAd | None = None, target: ClassAd | None = None) -> ExprTree:
        """The value of this expression, as a literal expression."""
    def sameAs(self, other: ExprTree) -> bool:  # noqa: N802
        """Structural equality (attribute names compared without case)."""
    def unknown_functions(self) -> list[str]:
        """Names of called functions that are not built in (they evaluate to ERROR)."""
    def __reduce__(self) -> tuple[Any, tuple[str]]: ...
    def __bool__(self) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class ClassAd:
    """A mutable mapping of case-insensitive attribute names to expressions."""

    def __new__(cls, input: str | dict[str, Any] | None = None) -> ClassAd: ...
    def __getitem__(self, key: str, /) -> Any: ...
    def __setitem__(self, key: str, value: Any, /) -> None: ...
    def __delitem__(self, key: str, /) -> None: ...
    def __contains__(self, key: str, /) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __copy__(self) -> ClassAd: ...
    def __reduce__(self) -> tuple[Any, tuple[str]]: ...
    def keys(self) -> list[str]: ...
    def values(self) -> list[Any]: ...
    def items(self) -> list[tuple[str, Any]]: ...
    def get(self, key: str, default: Any = None) -> Any: ...
    def setdefault(self, key: str, default: Any = None) -> Any: ...
    def update(self, other: Any) -> None: ...
    def clear(self) -> None: ...
    def copy(self) -> ClassAd: ...
    def eval(self, attr: str, target: ClassAd | None = None) -> Any:
        """Evaluate attribute `attr` in this ad (KeyError when it has none)."""
    def lookup(self, attr: str) -> ExprTree:
        """The expression of attribute `attr`, unevaluated."""
    def matches(self, other: ClassAd) -> bool:
        """True when `other`'s Requirements hold with this ad as its TARGET."""
    def symmetricMatch(self, other: ClassAd) -> bool:  # noqa: N802
        """True when both ads' Requirements hold against each other."""
    def printOld(self) -> str:  # noqa: N802
        """The ad in old syntax, one `Name = expression` line per attribute."""
    def formatOld(self) -> str:  # noqa: N802
        """Same as printOld."""
    def printJson(self) -> str:  # noqa: N802
        """The ad as JSON, as `condor_q -json` prints it."""
    def formatJson(self) -> str:  # noqa: N802
        """Same as printJson."""
    def externalRefs(self, expr: ExprTree) -> list[str]:  # noqa: N802
        """References `expr` makes that this ad cannot resolve."""
    def internalRefs(self, expr: ExprTree) -> list[str]:  # noqa: N802
        """Attributes of this ad that `expr` reads."""
    def pop(self, key: str, default: Any = None) -> Any:
        """Remove attribute `key` and return its value."""
    def chain(self, parent: ClassAd) -> None:
        """Show `parent`'s attributes wherever this ad sets none (a proc's cluster ad)."""
    def unchain(self) -> None:
        """Drop the chain set by `chain`."""
    def own_keys(self) -> list[str]:
        """The names this ad sets itself, not through its chain."""
    def flatten(self) -> ClassAd:
        """A new unchained ad with every attribute this one shows."""
    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last attribute."""

def _register_sentinels(undefined: Any, error: Any) -> None: ...
def autoclusters(jobs: list[ClassAd], pool: list[ClassAd]) -> list[list[int]]:
    """The groups of `jobs` (indexes) that slots like `pool` cannot tell apart."""

def waiting_groups(
    jobs: list[ClassAd],
    skip: list[bool],
    constraint: ExprTree | None,
    pool: list[ClassAd],
    apart: list[str],
) -> list[list[int]]:
    """Of `jobs`, those not marked in `skip` for which `constraint` is true, grouped as
    `autoclusters` groups them, jobs writing any of `apart` differently kept apart."""

def pool_policies(slots: list[ClassAd]) -> list[ClassAd]:
    """A few ads holding every distinct expression the slots write."""

def ads_from_wire(maps: list[Any], expr_type: type) -> list[ClassAd]:
    """Each wire map as a ClassAd (expressions as `expr_type`); AdReadError naming the
    first map that is not plain."""

def ads_from_msgpack(body: bytes, stamp: ClassAd | None = None) -> list[ClassAd]:
    """The ads of a msgpack array of wire maps, each with `stamp`'s attributes set over
    its own; AdReadError naming the ad and attribute where it is not plain."""

def cedar_put_ads(
    ads: list[ClassAd],
    encrypted: bool,
    projection: list[str] | None = None,
    exclude: list[str] | None = None,
) -> list[bytes]:
    """Each ad in HTCondor's wire form (count, `Name = expr` strings, two empty
    strings), only the projection's attributes when given, never the excluded."""

def cedar_get_ad(lines: list[str], literals_only: bool = False) -> ClassAd:
    """An ad from the `Name = expr` strings a peer sent (old syntax, one each)."""

def ads_to_msgpack(ads: list[ClassAd], projection: list[str] | None = None) -> bytes:
    """The ads as one msgpack array of wire maps, for `ads_from_msgpack`; with
    `projection`, only the attributes it names."""

def parse_ads(text: str, old: bool) -> list[ClassAd]:
    """Every ad of `text`, old or new syntax."""

def parse_next(text: str, offset: int) -> tuple[ClassAd, int] | None:
    """The next new-syntax ad from byte `offset`, with the offset after it."""

def parse_one(text: str) -> ClassAd:
    """One new-syntax ad."""

def quote(s: str) -> str:
    """A Python string as a ClassAd string literal."""

def unquote(s: str) -> str:
    """A ClassAd string literal back to the string it denotes."""

def function_names() -> list[str]:
    """The names of every built-in function."""

def eval_each(expr: ExprTree, ads: list[ClassAd]) -> list[Any]:
    """Evaluate `expr` in each ad."""

def eval_against(expr: ExprTree, my: ClassAd, targets: list[ClassAd]) -> list[Any]:
    """Evaluate `expr` in `my` with each ad of `targets` as TARGET."""

def count_true(expr: ExprTree, ads: list[ClassAd]) -> int:
    """How many ads make `expr` true."""

def symmetric_matches(jobs: list[ClassAd], slots: list[ClassAd]) -> list[tuple[int, int]]:
    """Every (job, slot) index pair that matches symmetrically."""

def negotiate(
    slots: list[ClassAd],
    submitters: list[tuple[str, float, list[ClassAd]]],
    pre_job_rank: str | None = None,
    post_job_rank: str | None = None,
    consider_preemption: bool = True,
    preemption_requirements: str | None = None,
    preemption_rank: str | None = None,
    priorities: dict[str, float] | None = None,
    stamp_time: int | None = None,
    exhaustive: bool = False,
    groups: Groups | None = None,
    pool_size: float = 0.0,
    usage: dict[str, float] | None = None,
    limits: ConcurrencyLimits | None = None,
    time_limits: tuple[float, float, float, float, list[int], list[float]] | None = None,
    slot_weights: bool = True,
) -> tuple[
    list[tuple[int, int, int, float, str | None, ClassAd | None, str | None]],
    list[tuple[int, str, list[int]]],
    int,
    int,
    list[tuple[str, float]],
]:
    """One negotiation cycle: (matches, rejections by submitter and reason, clusters,
    pairs evaluated, seconds per phase). With `stamp_time`, each rejected job gets
    LastRejMatchReason and LastRejMatchTime. `exhaustive` evaluates every free slot for
    every cluster instead of walking shared rankings: the same matches, slower. With
    `groups`, the pool (`pool_size` weighted slots, `usage` held now per submitter) is
    shared by accounting group under hierarchical quotas; the outcome is kept in `groups`.
    With `limits`, jobs are held to their concurrency limits (the counts kept there).
    `time_limits`: (per submitter, per schedd, left of the cycle, per pie spin, each
    submitter's schedd index, the seconds each has used), the negotiator's time limits.
    `slot_weights`: a slot weighs its SlotWeight (NEGOTIATOR_USE_SLOT_WEIGHTS)."""

@final
class ConcurrencyLimits:
    """The pool's concurrency limits: <NAME>_LIMIT by name, CONCURRENCY_LIMIT_DEFAULT_<tag>
    by tag, CONCURRENCY_LIMIT_DEFAULT; what running jobs hold; the last cycle's counts."""

    def __new__(
        cls, maxima: dict[str, float], scoped: dict[str, float], default: float
    ) -> ConcurrencyLimits: ...
    def hold(self, strings: list[str]) -> None:
        """What the running jobs hold now: each slot's ConcurrencyLimits strings."""
    def maximum(self, name: str) -> float:
        """The most of `name` the pool allows."""
    def counts(self) -> dict[str, float]:
        """The counts after the last cycle (held, and matched), by lowercase name."""
    @staticmethod
    def parse(text: str) -> list[tuple[str, float]]:
        """The valid limits of a ConcurrencyLimits string: (lowercase name, amount)."""

@final
class Groups:
    """GROUP_NAMES as a tree with its quotas and knobs, kept from cycle to cycle (round
    robin remembers whom it served), with what the last cycle gave each group."""

    def __new__(
        cls,
        groups: list[tuple[str, float | None, float | None, bool | None, bool | None]],
        accept_surplus: bool = False,
        autoregroup: bool = False,
        oversubscribe: bool = True,
        max_rounds: int = 3,
        round_robin_rate: float = 1.0e100,
        strict: bool = True,
        weighted: bool = True,
        consider_preemption: bool = True,
        sort_expr: str | None = None,
    ) -> Groups:
        """`groups`: (name, GROUP_QUOTA_<g>, GROUP_QUOTA_DYNAMIC_<g>,
        GROUP_ACCEPT_SURPLUS_<g>, GROUP_AUTOREGROUP_<g>), None where unset."""
    @property
    def warnings(self) -> list[str]:
        """What building the tree dropped or defaulted, in HTCondor's words."""
    @property
    def names(self) -> list[str]:
        """Full names, the root `<none>` first, then breadth first."""
    def has_groups(self) -> bool: ...
    def assigned(self, submitter: str) -> str:
        """The group `group.user@domain` is charged to."""
    def accepts_surplus(self, group: str) -> bool | None: ...
    def quotas(self, pool: float) -> dict[str, float]:
        """Each group's quota in a pool of `pool` weighted slots, before any demand."""
    def last_shares(self) -> list[tuple[str, dict[str, float]]]:
        """Per group: quota, subtree_quota, requested, allocated, usage, subtree_usage,
        sort_key, as the last cycle left them."""
    def last_rounds(self) -> int: ...
    def last_turns(self) -> list[tuple[int, str, bool]]:
        """(round, group, the root's turn with the regrouping groups' submitters too),
        in the order the last cycle negotiated them."""
    def last_warnings(self) -> list[str]: ...

def analyze(
    job: ClassAd, slots: list[ClassAd]
) -> tuple[int, int, int, int, bool, list[tuple[str, int, int, int, int, list[str]]]]:
    """Why `job` does not match: (slots, matching, rejected by the job, rejecting the job,
    has Requirements, clauses), a clause being (text, true on, false on, undefined on,
    matches without it, attributes no slot defines)."""

@final
class Accountant:
    """User priorities from usage, decayed with PRIORITY_HALFLIFE."""

    def __new__(cls, halflife: float = 86400.0, default_factor: float = 1000.0) -> Accountant: ...
    def update(self, now: float, in_use: dict[str, float]) -> None:
        """Advance to `now` with `in_use` slots per user since the last update."""
    def set_factor(self, user: str, factor: float) -> None: ...
    def real_priority(self, user: str) -> float: ...
    def factor(self, user: str) -> float: ...
    def effective_priority(self, user: str) -> float: ...
    def set_priority(self, user: str, real: float) -> None: ...
    def set_accumulated(self, user: str, seconds: float) -> None: ...
    def set_begin(self, user: str, when: float) -> None: ...
    def set_last(self, user: str, when: float) -> None: ...
    def reset_usage(self, user: str, now: float) -> None: ...
    def reset_all(self, now: float) -> None: ...
    def knows(self, user: str) -> bool:
        """Whether there is a record of `user`."""
    def delete(self, user: str) -> bool: ...
    def last_update(self) -> float: ...
    def records(self) -> list[tuple[str, float, float, float, float, float, float]]:
        """(name, real priority, factor, in use, accumulated, begin, last) per user."""
    def restore(
        self,
        name: str,
        real_priority: float,
        factor: float,
        in_use: float,
        accumulated: float,
        begin: float,
        last: float,
    ) -> None: ...

_CronFields = tuple[str | None, str | None, str | None, str | None, str | None]

def cron_check(spec: _CronFields) -> None:
    """Check a schedule's five fields (None for `*`); raises CronError naming the bad field."""

def cron_next_runs(spec: _CronFields, after: int, n: int, tz: str | None = None) -> list[int]:
    """The next `n` run times (Unix seconds) after `after`, in `tz` (None: local zone)."""

def cron_next_run_each(
    specs: list[_CronFields], after: int, tz: str | None = None
) -> list[int | None]:
    """The next run time of each schedule after `after` (None: invalid or never runs)."""

def deferral_on_arrival(now: int, deferral_time: int, window: int) -> tuple[str, int]:
    """What the execute side does with a deferred job arriving at `now`: ("wait", seconds),
    ("start", 0) or ("hold", seconds late), late meaning by more than `window`."""

def cron_recompute(
    ads: list[ClassAd], now: int, tz: str | None = None
) -> tuple[list[tuple[int, int]], list[int]]:
    """The schedd's pass over its queue: for each idle job with a CronTab field, its next
    run after `now` less its CronWindow. Returns (index, new time) for each job whose
    DeferralTime changes, and the index of each job whose schedule is invalid or never runs."""

def benchmark_mips() -> float:
    """The startd's integer benchmark: millions of integer instructions a second."""

def benchmark_kflops() -> float:
    """The startd's floating-point benchmark: thousands of flops a second (daxpy)."""

def set_user_maps(maps: list[tuple[str, list[tuple[str, bool, str]]]]) -> None:
    """Replace the process's user maps (for `userMap()`): (name, rules in order), each
    rule (principal, whether it is a regular expression, what it maps to)."""
