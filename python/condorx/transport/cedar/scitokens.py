"""SciTokens a daemon accepts (the SCITOKENS method's verdict on a client's token), as
HTCondor's `validate_scitoken` judges them, over PyJWT.

HTCondor fetches each issuer's keys from the issuer itself; a pool may have no route
to it, so condorx reads them from a local key set (a JWKS file) for each issuer it
trusts, and trusts no other:

    SCITOKENS_ISSUERS = OSG
    SCITOKENS_ISSUER_OSG = https://scitokens.org/osg-connect
    SCITOKENS_ISSUER_OSG_KEY_SET_FILE = /etc/condor/scitokens/osg.jwks
    SCITOKENS_ISSUER_OSG_ALGORITHMS = RS256      (optional: the keys' own by default)

A token is checked by the key its header names (`kid`), with that key's algorithm and
no other (its `alg`, else the one its type and curve fix): a token cannot choose.
Then its times (exp required), its issuer, and its audience: with
SCITOKENS_SERVER_AUDIENCE, `aud` must name one of those or the WLCG "any" audience;
without it, a token that names an audience is refused, as HTCondor's enforcer has it.
Its `condor:/LEVEL` scopes bound what its holder may do (none: nothing); a WLCG token
(`wlcg.ver`) from an issuer SEC_SCITOKENS_FOREIGN_TOKEN_ISSUERS names (or `*`, when
SEC_SCITOKENS_ALLOW_FOREIGN_TOKEN_TYPES) has `compute.read` as READ and
`compute.create`, `.modify` and `.cancel` together as WRITE.

The client's name is `issuer,subject`, which the map file (method SCITOKENS) must map.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from condorx.language.config import Config
from condorx.transport import tokens

log = logging.getLogger("condorx.security")

ANY_AUDIENCES = frozenset({"ANY", "https://wlcg.cern.ch/jwt/v1/any"})
# Public-key algorithms only: a key set's symmetric key would let anyone who read it
# sign tokens.
_ASYMMETRIC = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)


@dataclass(frozen=True)
class Issuer:
    url: str
    keys: tuple[Any, ...]  # PyJWK
    algorithms: frozenset[str] | None  # configured; None: each key's own


@dataclass(frozen=True)
class Verdict:
    issuer: str
    subject: str
    scopes: tuple[str, ...]
    authz: tuple[str, ...]  # the levels its scopes allow, after HTCondor's "DENY"
    token_id: str
    groups: tuple[str, ...]

    @property
    def name(self) -> str:
        """What the map file is asked about."""
        return f"{self.issuer},{self.subject}"


class Verifier:
    def __init__(self, cfg: Config) -> None:
        self.issuers = {i.url: i for i in _issuers(cfg)}
        self.audiences = [
            a for a in (cfg.get("SCITOKENS_SERVER_AUDIENCE") or "").replace(",", " ").split()
        ]
        foreign = cfg.get("SEC_SCITOKENS_FOREIGN_TOKEN_ISSUERS") or ""
        self.foreign_allowed = cfg.get_bool("SEC_SCITOKENS_ALLOW_FOREIGN_TOKEN_TYPES", False)
        self.foreign = frozenset(foreign.replace(",", " ").split())

    def verify(self, token: str) -> Verdict | None:
        """The token's verdict, or None (the reason logged)."""
        try:
            return self._verify(token)
        except tokens.TokenError as e:
            log.warning("SciToken refused: %s", e)
            return None

    def _verify(self, token: str) -> Verdict:
        import jwt

        try:
            header = jwt.get_unverified_header(token)
            claimed = jwt.decode(token, options={"verify_signature": False})
        except jwt.InvalidTokenError as e:
            raise tokens.TokenError(f"not a JWT: {e}") from None
        url = claimed.get("iss")
        issuer = self.issuers.get(url) if isinstance(url, str) else None
        if issuer is None or not isinstance(url, str):
            raise tokens.TokenError(f"issuer {url!r} is not trusted here (SCITOKENS_ISSUERS)")
        key = _key_for(issuer, header.get("kid"))
        algorithm = key.algorithm_name
        if algorithm not in _ASYMMETRIC or (
            issuer.algorithms is not None and algorithm not in issuer.algorithms
        ):
            raise tokens.TokenError(f"{url}'s key {key.key_id!r} is for {algorithm}, not served")
        claims = tokens.check(
            token, key, [algorithm], issuer=url, audience=None, required=("sub", "exp")
        )
        self._check_audience(claims.get("aud"))
        return self._verdict(url, claims)

    def _check_audience(self, aud: object) -> None:
        named = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
        if aud is None and not self.audiences:
            return
        if any(a in ANY_AUDIENCES or a in self.audiences for a in named):
            return
        wanted = " or ".join(self.audiences) or "no audience (SCITOKENS_SERVER_AUDIENCE)"
        raise tokens.TokenError(f"the token is for {aud!r}, not {wanted}")

    def _verdict(self, url: str, claims: dict[str, Any]) -> Verdict:
        scopes = tuple(str(claims.get("scope") or "").split())
        authz = ["DENY"] + [
            s[len("condor:/") :].strip("/") for s in scopes if s.startswith("condor:/")
        ]
        if "wlcg.ver" in claims and (
            self.foreign_allowed and ("*" in self.foreign or url in self.foreign)
        ):
            if "compute.read" in scopes:
                authz.append("READ")
            if {"compute.create", "compute.modify", "compute.cancel"} <= set(scopes):
                authz.append("WRITE")
        groups = claims.get("wlcg.groups")
        return Verdict(
            url,
            str(claims["sub"]),
            scopes,
            tuple(a for a in authz if a),
            str(claims.get("jti") or ""),
            tuple(str(g) for g in groups) if isinstance(groups, list) else (),
        )


def _key_for(issuer: Issuer, kid: object) -> Any:
    """The issuer's key the token names; its only one if the token names none."""
    if kid is None and len(issuer.keys) == 1:
        return issuer.keys[0]
    for key in issuer.keys:
        if key.key_id == kid:
            return key
    raise tokens.TokenError(f"{issuer.url} has no key {kid!r} in its key set")


def _issuers(cfg: Config) -> list[Issuer]:
    out = []
    for tag in (cfg.get("SCITOKENS_ISSUERS") or "").replace(",", " ").split():
        url = cfg.get(f"SCITOKENS_ISSUER_{tag}")
        path = cfg.get(f"SCITOKENS_ISSUER_{tag}_KEY_SET_FILE")
        if not url or not path:
            log.error(
                "SciTokens issuer %s needs SCITOKENS_ISSUER_%s and its _KEY_SET_FILE", tag, tag
            )
            continue
        algorithms = cfg.get(f"SCITOKENS_ISSUER_{tag}_ALGORITHMS")
        try:
            keys = _key_set(path)
        except (OSError, ValueError) as e:
            log.error("SciTokens issuer %s: cannot read the key set %s: %s", tag, path, e)
            continue
        pinned = frozenset(algorithms.replace(",", " ").split()) if algorithms else None
        out.append(Issuer(url, keys, pinned))
    return out


def _key_set(path: str) -> tuple[Any, ...]:
    """A JWKS file's keys (one key alone is taken too)."""
    import jwt

    with open(path) as f:
        data = json.load(f)
    listed = data.get("keys") if isinstance(data, dict) and "keys" in data else [data]
    if not isinstance(listed, list) or not listed:
        raise ValueError("no keys")
    try:
        return tuple(jwt.PyJWK(k) for k in listed)
    except jwt.PyJWKError as e:
        raise ValueError(str(e)) from None
