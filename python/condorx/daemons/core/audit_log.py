"""The audit log's lines (<SUBSYS>_AUDIT_LOG): who asked a daemon what, and what came of
it, for every change to the job queue and every refused connection."""

from __future__ import annotations

from typing import Any

from condorx.transport.peer import Peer


def line(daemon: str, peer: Peer, request: dict[str, Any], reply: dict[str, Any]) -> str:
    """Who asked what, and what came of it; bulky fields (ads, files) by their size."""
    asked = [_field(k, v) for k, v in request.items() if k != "cmd" and v is not None]
    if reply.get("ok"):
        outcome = " ".join(["done", *(_field(k, v) for k, v in reply.items() if k != "ok")])
    else:
        err = reply.get("error") or {}
        outcome = f"refused ({err.get('kind')}): {err.get('message')}"
    return (
        f"{daemon} {request['cmd']} by {peer.user} ({peer.method}, {peer.address}) "
        f"{' '.join(asked)}: {outcome}"
    )


def _field(name: str, value: Any) -> str:
    if isinstance(value, list) and len(value) <= 10 and all(type(v) in (str, int) for v in value):
        return f"{name}={value!r}"  # the job ids acted on, those denied
    if isinstance(value, (list, dict, bytes)):
        return f"{name}=<{len(value)}>"
    return f"{name}={str(value)[:200]!r}" if isinstance(value, str) else f"{name}={value!r}"
