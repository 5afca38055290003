"""Answering queries over many ads (the schedd's jobs, the collector's ads): a constraint
chooses them and each requested expression is evaluated over all of them in one core
call."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from condorx.classad import ClassAd, ExprTree, eval_each
from condorx.errors import Refusal, Refused
from condorx.transport import wire
from condorx.transport.cedar.codec import put_ads

T = TypeVar("T")


def select(items: Sequence[T], ads: Sequence[ClassAd], constraint: Any) -> list[T]:
    """The items whose ad satisfies `constraint` (everything when there is none)."""
    if constraint is None or constraint == "" or constraint is True:
        return list(items)
    try:
        expr = ExprTree(str(constraint))
    except ValueError as e:
        raise Refused(Refusal.BAD_REQUEST, f"constraint: {e}") from None
    values = eval_each(expr, list(ads))
    return [item for item, v in zip(items, values, strict=True) if v is True]


def evaluate(exprs: Iterable[Any], ads: list[ClassAd]) -> list[list[Any]]:
    """One row per ad: the value of each expression in it, ready for the wire."""
    columns = []
    for text in exprs:
        try:
            expr = ExprTree(str(text))
        except ValueError as e:
            raise Refused(Refusal.BAD_REQUEST, f"expression {text!r}: {e}") from None
        columns.append(wire.plain_values(eval_each(expr, ads)))
    return [list(row) for row in zip(*columns, strict=True)] if columns else [[] for _ in ads]


def projection_of(req: Any) -> list[str] | None:
    """A query's `projection`: the attributes wanted (None: all)."""
    projection = req.projection
    if projection is not None and not all(isinstance(p, str) for p in projection):
        raise Refused(Refusal.BAD_REQUEST, "query: 'projection' must be a list of names")
    return projection or None


def cedar_rows(ads: list[ClassAd], req: Any) -> list[bytes]:
    """The ads in HTCondor's wire form, as a query for the CEDAR face asks (`cedar`:
    "clear" or "encrypted" strings; `projection`: the attributes wanted, else all)."""
    return put_ads(ads, req.cedar == "encrypted", projection_of(req))
