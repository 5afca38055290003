"""The daemon's side of condorx's token handshake: checking the peer's proof, and the
reply that proves the daemon in turn and fixes the connection's protection (the client's
side is `condorx.transport.connection`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from condorx.transport import security
from condorx.transport.peer import Peer
from condorx.transport.session import Keys, Mode, Policy, negotiate


@dataclass(frozen=True)
class Accepted:
    """A handshake's outcome: who the peer is, and the protection its frames get."""

    peer: Peer
    keys: Keys | None = None
    mode: Mode = Mode.CLEAR


def check_token(
    pool_key: bytes,
    policy: Policy,
    hello: dict[str, Any],
    reply: dict[str, Any],
    addr: str,
    local: bool = False,
) -> Accepted:
    """Who proved what in `reply` (AuthError if nothing): the pool's identity, or a
    token's user, limited to the levels its scopes name."""
    user, nonce, mac = reply.get("user"), reply.get("nonce"), reply.get("mac")
    token = reply.get("token")
    if not (isinstance(user, str) and isinstance(nonce, bytes) and isinstance(mac, bytes)):
        raise security.AuthError("malformed token authentication")
    if token is not None and not isinstance(token, str):
        raise security.AuthError("malformed token authentication")
    asked = Policy.from_wire(reply.get("protection"))
    secret = security.check_proof(pool_key, user, hello["nonce"], nonce, mac, asked.terms(), token)
    # Local: the kernel carries the frames, nobody between to hide them from.
    mode = Mode.CLEAR if local else negotiate(policy, asked)
    keys = Keys.derive(secret, hello["nonce"], nonce, user)
    peer = Peer(user, "token", addr)
    if token is not None:
        shown = security.token_facts(token)
        peer = Peer(user, "token", addr, token=shown, limits=security.token_limits(shown))
    return Accepted(peer, keys, mode)


def welcome(accepted: Accepted) -> dict[str, Any]:
    """The reply that ends the handshake; after a token handshake it proves the daemon
    and fixes the protection the frames that follow get."""
    reply: dict[str, Any] = {"ok": True, "user": accepted.peer.user}
    if accepted.keys is not None:
        reply["protection"] = accepted.mode.value
        reply["accept"] = accepted.keys.acceptance(accepted.mode, accepted.peer.user)
    return reply
