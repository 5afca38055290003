"""Serving a batch request (many requests of one kind in one message) with the handler
of the single request: each item is decoded, handled and answered on its own, so one
item's refusal costs that item only."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from condorx.daemons.core.server import Peer
from condorx.errors import CondorxError, Refusal, Refused
from condorx.transport import wire
from condorx.transport.protocol.message import Message, Reply

log = logging.getLogger("condorx.batch")

M = TypeVar("M", bound=Message)


async def each(
    peer: Peer,
    items: list[Any],
    kind: type[M],
    handle: Callable[[Peer, M, wire.Channel], Awaitable[Reply]],
    ch: wire.Channel,
) -> list[dict[str, Any]]:
    """Per item, in order: the handler's reply's fields, or {"refused": why, "kind": k}."""
    results: list[dict[str, Any]] = []
    for item in items:
        try:
            if not isinstance(item, dict):
                raise Refused(
                    Refusal.BAD_REQUEST, f"{kind.command}: an item is a map, not {item!r:.40}"
                )
            reply = await handle(peer, kind.from_wire(item), ch)
            fields = reply.to_wire()
            fields.pop("ok", None)
            results.append(fields)
        except Refused as e:
            results.append({"refused": str(e), "kind": e.kind})
        except CondorxError as e:
            results.append({"refused": str(e), "kind": "bad-request"})
        except Exception:
            # A bug costs its item, never the items around it (taken already, or not yet).
            log.exception("%s from %s: an item failed", kind.command, peer.user)
            results.append({"refused": f"{kind.command}: internal error", "kind": "internal"})
    return results
