"""A daemon's security policy for HTCondor's clients, read as HTCondor reads it, and
the reconciliation of that policy with a client's.

For each permission level (READ, WRITE, ADMINISTRATOR, DAEMON, ...):
SEC_<LEVEL>_AUTHENTICATION, _ENCRYPTION, _INTEGRITY, else SEC_DEFAULT_*, else OPTIONAL;
SEC_<LEVEL>_AUTHENTICATION_METHODS, else SEC_DEFAULT_AUTHENTICATION_METHODS, else
"FS,IDTOKENS,KERBEROS,SCITOKENS,SSL", kept to the methods condorx serves. A command that
forces authentication (a queue write, an action on jobs) requires it whatever the level
says. The only crypto method offered is AES (AES-256-GCM): the others serve UDP and
peers older than 9.0.
"""

from __future__ import annotations

import functools
import ssl
from dataclasses import dataclass
from enum import IntEnum

from condorx.classad import ClassAd
from condorx.language.config import Config
from condorx.transport import locate, tokens
from condorx.transport.cedar import mapfile, scitokens, ssl_auth
from condorx.transport.cedar.commands import AuthBit, method_bit

DENIED = "DENIED"
# The methods this daemon can run, in the bits HTCondor's handshake uses.
SERVED = (AuthBit.FS, AuthBit.TOKEN, AuthBit.SSL, AuthBit.SCITOKENS, AuthBit.CLAIMTOBE)
# The methods that need the daemon's certificate (SCITOKENS runs inside SSL's TLS).
_NEED_CERTIFICATE = (AuthBit.SSL, AuthBit.SCITOKENS)
_DEFAULT_METHODS = "FS,IDTOKENS,KERBEROS,SCITOKENS,SSL"


# The levels anyone may use without proving who they are.
_OPEN_LEVELS = frozenset({"READ", "ALLOW", "CLIENT"})


class Req(IntEnum):
    """A side's stated wish for a feature (ordered as HTCondor orders them)."""

    NEVER = 0
    OPTIONAL = 1
    PREFERRED = 2
    REQUIRED = 3

    @classmethod
    def parse(cls, text: object, default: Req | None = None) -> Req:
        if not isinstance(text, str) or not text.strip():
            return cls.NEVER if default is None else default
        word = text.strip().upper()
        # HTCondor reads the first letter alone (YES is REQUIRED, NO is NEVER).
        return {"R": cls.REQUIRED, "Y": cls.REQUIRED, "P": cls.PREFERRED, "O": cls.OPTIONAL}.get(
            word[0], cls.NEVER
        )


def _act(client: Req, server: Req) -> bool | None:
    """HTCondor's table: YES (True), NO (False) or FAIL (None)."""
    if Req.NEVER in (client, server):
        return None if Req.REQUIRED in (client, server) else False
    return Req.REQUIRED in (client, server) or Req.PREFERRED in (client, server)


@dataclass(frozen=True)
class LevelPolicy:
    authentication: Req
    encryption: Req
    integrity: Req
    methods: tuple[str, ...]
    duration: int
    lease: int


@dataclass
class SecurityPolicy:
    cfg: Config
    uid_domain: str
    fs_dir: str
    trust_domain: str  # the issuer this pool's tokens name (TRUST_DOMAIN)

    @classmethod
    def from_config(cls, cfg: Config) -> SecurityPolicy:
        domain = cfg.get("UID_DOMAIN") or "localhost"
        trust = cfg.get("TRUST_DOMAIN") or domain
        return cls(cfg, domain, cfg.get("FS_LOCAL_DIR") or "/tmp", trust)

    def token_keys(self) -> dict[str, bytes]:
        """The keys tokens may be signed with, by name (POOL: the pool signing key)."""
        try:
            return {"POOL": tokens.signing_key(locate.pool_key_file(self.cfg))}
        except tokens.TokenError:
            return {}

    @functools.cached_property
    def ssl_context(self) -> ssl.SSLContext | None:
        """The daemon's TLS context for SSL and SCITOKENS (None: no certificate)."""
        return ssl_auth.server_context(ssl_auth.server_files(self.cfg))

    @functools.cached_property
    def scitokens(self) -> scitokens.Verifier:
        """The issuers whose SciTokens this daemon accepts, read once."""
        return scitokens.Verifier(self.cfg)

    @functools.cached_property
    def map_file(self) -> mapfile.MapFile | None:
        """CERTIFICATE_MAPFILE, read once (None when it is not set)."""
        path = self.cfg.get("CERTIFICATE_MAPFILE")
        if not path:
            return None
        return mapfile.load(path, self.cfg.get_bool("CERTIFICATE_MAPFILE_ASSUME_HASH_KEYS", False))

    def serves(self, method: int) -> bool:
        if method in _NEED_CERTIFICATE:
            return self.ssl_context is not None
        return method in SERVED

    def _knob(self, level: str, name: str) -> str | None:
        """SEC_<LEVEL>_<NAME>, else SEC_DEFAULT_<NAME>."""
        return self.cfg.get(f"SEC_{level}_{name}") or self.cfg.get(f"SEC_DEFAULT_{name}")

    def for_level(self, level: str, forced: bool) -> LevelPolicy:
        # Unset, a level above READ requires authentication, as HTCondor's recommended
        # security has it (and as condorx's lists do: they grant it to proven peers).
        default = Req.OPTIONAL if level in _OPEN_LEVELS else Req.REQUIRED
        authentication = Req.parse(self._knob(level, "AUTHENTICATION"), default)
        if forced:
            authentication = Req.REQUIRED
        methods = self._knob(level, "AUTHENTICATION_METHODS") or _DEFAULT_METHODS
        names = [m.strip().upper() for m in methods.replace(" ", ",").split(",") if m.strip()]
        served = tuple(n for n in names if method_bit(n) in SERVED and self.serves(method_bit(n)))
        return LevelPolicy(
            authentication,
            Req.parse(self._knob(level, "ENCRYPTION"), Req.OPTIONAL),
            Req.parse(self._knob(level, "INTEGRITY"), Req.OPTIONAL),
            served,
            _int(self._knob(level, "SESSION_DURATION"), 86400),
            _int(self._knob(level, "SESSION_LEASE"), 3600),
        )


@dataclass
class Decision:
    """What the daemon decided for one connection (`ad` is what it tells the client)."""

    ad: ClassAd
    authenticate: bool
    auth_required: bool
    encrypt: bool
    methods: list[int]
    crypto: bool
    duration: int
    lease: int


def _attr(ad: ClassAd, name: str, alt: str | None = None) -> Req:
    value = ad.get(name)
    if value is None and alt is not None:
        value = ad.get(alt)
    return Req.parse(value)


def reconcile(client: ClassAd, ours: LevelPolicy, trust_domain: str = "") -> Decision | None:
    """The daemon's decision, or None when the two sides cannot agree."""
    c_auth = _attr(client, "AuthenticationNew", "Authentication")
    authenticate = _act(c_auth, ours.authentication)
    encrypt = _act(_attr(client, "Encryption"), ours.encryption)
    integrity = _act(_attr(client, "Integrity"), ours.integrity)
    if authenticate is None or encrypt is None or integrity is None:
        return None
    required = Req.REQUIRED in (c_auth, ours.authentication)
    offered = [m.strip().upper() for m in str(client.get("AuthMethods") or "").split(",")]
    offered = ["TOKEN" if m in ("IDTOKENS", "IDTOKEN", "TOKENS") else m for m in offered]
    shared = [
        m for m in ours.methods if ("TOKEN" if method_bit(m) == AuthBit.TOKEN else m) in offered
    ]
    if authenticate and not shared:
        if required:
            return None
        authenticate = False
    crypto_offered = [m.strip().upper() for m in str(client.get("CryptoMethods") or "").split(",")]
    crypto = "AES" in crypto_offered
    if (encrypt or integrity) and not crypto:
        return None
    # AES-GCM always encrypts and checks integrity, whatever was asked: say so.
    if authenticate and crypto:
        encrypt = integrity = True
    if integrity and not encrypt:
        encrypt = True  # integrity alone is AES-GCM too: nothing lighter is offered
    ad = ClassAd(
        {
            "Authentication": "YES" if authenticate else "NO",
            "Encryption": "YES" if encrypt else "NO",
            "Integrity": "YES" if integrity else "NO",
            "Enact": "YES",
            "NegotiatedSession": True,
        }
    )
    if authenticate and not required:
        ad["AuthRequired"] = False
    if shared:
        ad["AuthMethods"] = shared[0]
        ad["AuthMethodsList"] = ",".join(shared)
    if trust_domain:
        ad["TrustDomain"] = trust_domain
    if any(method_bit(m) == AuthBit.TOKEN for m in ours.methods):
        ad["IssuerKeys"] = "POOL"  # whose tokens the client may offer
    if crypto:
        ad["CryptoMethods"] = "AES"
        ad["CryptoMethodsList"] = "AES"
    duration = min(_int(client.get("SessionDuration"), ours.duration), ours.duration)
    ad["SessionDuration"] = str(duration)
    lease = ours.lease
    c_lease = client.get("SessionLease")
    if isinstance(c_lease, int) and c_lease > 0:
        lease = min(lease, c_lease) if lease else c_lease
    ad["SessionLease"] = lease
    return Decision(
        ad,
        bool(authenticate),
        required,
        bool(encrypt),
        [method_bit(m) for m in shared],
        crypto,
        duration,
        lease,
    )


def _int(value: object, default: int) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        return default
