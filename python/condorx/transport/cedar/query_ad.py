"""What a query ad from HTCondor's clients asks: its constraint, the attributes wanted,
and how many ads at most."""

from __future__ import annotations

from condorx.classad import ClassAd


def constraint_of(query: ClassAd, attr: str = "Requirements") -> str | None:
    """The query's constraint as expression text (None: every ad)."""
    if attr not in query:
        return None
    return str(query.lookup(attr))


def projection_of(query: ClassAd) -> list[str] | None:
    value = query.get("Projection")
    if isinstance(value, list):  # a list expression (the bindings' history sends one)
        return [str(v) for v in value if isinstance(v, str)] or None
    if not isinstance(value, str) or not value.strip():
        return None
    return value.replace(",", " ").split()


def limit_of(query: ClassAd) -> int | None:
    value = query.get("LimitResults")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
