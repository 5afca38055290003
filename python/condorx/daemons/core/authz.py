"""Who may do what, as HTCondor's ALLOW_<LEVEL> / DENY_<LEVEL> lists say.

Each command needs a permission level (READ, WRITE, ADMINISTRATOR, DAEMON, NEGOTIATOR,
CONFIG, ADVERTISE_STARTD/SCHEDD/MASTER; ALLOW is anyone's). A peer is its identity,
`user@domain` (`unauthenticated@unmapped` when it proved nothing), and its address. The
lists are read as HTCondor's daemons read them:

- per level, `ALLOW_<L>_<SUBSYS>` before `ALLOW_<L>` (each also under the `SUBSYS.` and
  local-name prefixes, as the configuration resolves any name), the first non-empty value
  winning, no merging; then the next level of the configuration chain (ADVERTISE_* falls
  back to DAEMON, every level to DEFAULT; LEGACY_ALLOW_SEMANTICS puts WRITE under DAEMON);
- DENY is looked up the same way, and a DENY match wins;
- an entry is `user@domain/host`; without `/` it is a user when it has `@` (any host),
  else a host (any user); `*` wildcards as HTCondor's (one anywhere, one more at the end);
  hosts are `*`, addresses, CIDR or dotted masks, partial addresses (`128.105.*`) and
  names (resolved when the lists are read; wildcard names matched against the peer's
  forward-confirmed reverse name); `condor@X` and `condor_pool@X` go together;
- with neither list matching, a level is still granted when a level that implies it is
  (WRITE, NEGOTIATOR, CONFIG and ADVERTISE_* imply READ; ADMINISTRATOR and DAEMON imply
  WRITE); a level above READ and WRITE with no ALLOW list is denied to everyone.

What the configuration does not set, condorx sets as HTCondor's packages do (their
`use security:recommended`): READ and WRITE for everyone, ADMINISTRATOR for the pool's
identity, root and the user the daemons run as, DAEMON and NEGOTIATOR for the pool's
identity. On top of the lists, condorx asks every level but READ for a proven identity
(HTCondor's recommended security requires authentication for them too).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from condorx.language.config import Config
from condorx.transport import security, wire
from condorx.transport.peer import Peer
from condorx.transport.protocol.table import Command

ALLOW = "ALLOW"
READ, WRITE = "READ", "WRITE"
LEVELS = (
    ALLOW,
    READ,
    WRITE,
    "NEGOTIATOR",
    "ADMINISTRATOR",
    "CONFIG",
    "DAEMON",
    "ADVERTISE_STARTD",
    "ADVERTISE_SCHEDD",
    "ADVERTISE_MASTER",
)
# Levels a grant of which grants this one (HTCondor's implied-permission table, reversed).
IMPLIED_BY = {
    READ: (
        "WRITE",
        "NEGOTIATOR",
        "CONFIG",
        "ADVERTISE_STARTD",
        "ADVERTISE_SCHEDD",
        "ADVERTISE_MASTER",
    ),
    WRITE: ("ADMINISTRATOR", "DAEMON"),
}
UNAUTHENTICATED = "unauthenticated@unmapped"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _config_next(level: str, legacy: bool) -> str | None:
    """The level whose lists a level without its own takes (HTCondor's config chain)."""
    if level.startswith("ADVERTISE_"):
        return "DAEMON"
    if level == "DAEMON" and legacy:
        return WRITE
    return "DEFAULT" if level != "DEFAULT" else None


def defaults(me: str) -> dict[str, str]:
    """condorx's ALLOW lists where the configuration sets none (HTCondor's recommended)."""
    pool = "condor@* condor@password"
    return {
        READ: "*",
        WRITE: "*",
        "ADMINISTRATOR": f"{pool} root@* {me}@*",
        "DAEMON": pool,
        "NEGOTIATOR": pool,
    }


# What FLOCK_FROM (the schedds, by host or identity, that may flock here) adds to a level
# the configuration does not set for that daemon itself: a flocking schedd advertises its
# submitters to the collector and claims the startds' slots. (HTCondor's host-based
# defaults add it to ALLOW_WRITE_COLLECTOR and ALLOW_WRITE_STARTD, WRITE there covering
# what condorx asks ADVERTISE_SCHEDD and DAEMON for.)
FLOCK_GRANTS = {("COLLECTOR", "ADVERTISE_SCHEDD"), ("STARTD", "DAEMON")}


def _set(cfg: Config | None, level: str, sub: str) -> bool:
    """Whether the configuration sets the daemon's own list for `level`."""
    value = cfg.get(f"ALLOW_{level}_{sub}") if cfg is not None else None
    return bool(value and value.strip())


# ---- matching -------------------------------------------------------------------------


def wildcard(pattern: str, text: str) -> bool:
    """HTCondor's wildcard match, ignoring case: one `*` anywhere, and a second only at
    the very end (then the rest need only be contained); any other `*` is literal."""
    p, t = pattern.lower(), text.lower()
    if "*" not in p:
        return p == t
    if p == "*":
        return True
    contains = p.endswith("*") and p.count("*") >= 2
    if contains:
        p = p[:-1]
    star = p.find("*")
    head, tail = p[:star], p[star + 1 :]
    if not t.startswith(head):
        return False
    rest = t[len(head) :]
    if contains:
        return tail in rest
    return rest.endswith(tail) and len(rest) >= len(tail)


def _network(text: str) -> Network | None:
    """An address, CIDR, dotted mask or partial address (`128.105.*`); None otherwise."""
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        pass
    body = text.rstrip("*").rstrip(".")
    parts = body.split(".")
    if body and text != body and len(parts) < 4 and all(p.isdigit() for p in parts):
        octets = [*parts, *["0"] * (4 - len(parts))]
        try:
            return ipaddress.ip_network(f"{'.'.join(octets)}/{8 * len(parts)}", strict=False)
        except ValueError:
            return None
    if text.endswith(":*"):
        groups = text[:-2].split(":")
        try:
            padded = ":".join(groups + ["0"] * (8 - len(groups)))
            return ipaddress.ip_network(f"{padded}/{16 * len(groups)}", strict=False)
        except ValueError:
            return None
    return None


@dataclass(frozen=True)
class Host:
    """An entry's host part: anyone, networks, or names (a wildcard name is matched
    against the peer's own name)."""

    anyone: bool = False
    networks: tuple[Network, ...] = ()
    names: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Host:
        if text in ("*", "*/*"):
            return cls(anyone=True)
        net = _network(text)
        if net is not None:
            return cls(networks=(net,))
        if "*" in text or any(c in text for c in "<>?:"):
            return cls(names=(text.lower(),))
        return cls(networks=_resolve(text), names=(text.lower(),))

    def matches(self, ip: Address | None, names: Callable[[], list[str]]) -> bool:
        if self.anyone:
            return True
        if ip is not None and any(ip in net for net in self.networks):
            return True
        return bool(self.names) and any(wildcard(n, peer) for n in self.names for peer in names())


@lru_cache(maxsize=1024)
def _resolve(name: str) -> tuple[Network, ...]:
    """A host name's addresses (when the lists are read; none if it does not resolve)."""
    try:
        infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return ()
    out = []
    for info in infos:
        try:
            out.append(ipaddress.ip_network(info[4][0]))
        except ValueError:
            continue
    return tuple(dict.fromkeys(out))


@lru_cache(maxsize=4096)
def _names_of(ip: str) -> tuple[str, ...]:
    """The peer's names: its reverse name and aliases, each kept only if it resolves
    back to the peer (forward-confirmed, as HTCondor keeps them)."""
    try:
        name, aliases, _ = socket.gethostbyaddr(ip)
    except (OSError, UnicodeError):
        return ()
    address = ipaddress.ip_address(ip)
    return tuple(n for n in (name, *aliases) if any(address in net for net in _resolve(n)))


@dataclass(frozen=True)
class Entry:
    user: str
    host: Host

    @classmethod
    def parse(cls, text: str) -> list[Entry]:
        user, host = _split(text)
        users = [user]
        low = user.lower()
        if low.startswith("condor@"):  # the pool's identity goes by either name
            users.append("condor_pool@" + user[len("condor@") :])
        elif low.startswith("condor_pool@"):
            users.append("condor@" + user[len("condor_pool@") :])
        parsed = Host.parse(host)
        return [cls(u, parsed) for u in users]

    def matches(self, fqu: str, ip: Address | None, names: Callable[[], list[str]]) -> bool:
        return wildcard(self.user, fqu) and self.host.matches(ip, names)


def _split(text: str) -> tuple[str, str]:
    """An entry's (user, host), as HTCondor splits it."""
    if "/" not in text:
        return (text, "*") if "@" in text else ("*", text)
    first, _, rest = text.partition("/")
    if rest.count("/") >= 1:
        return first, rest
    if "@" in first or first.startswith("*"):
        return first, rest
    if _network(text) is not None:
        return "*", text
    return first, rest


def _is_all(text: str | None) -> bool:
    return text is not None and text.strip() in ("*", "*/*")


def _entries(text: str | None) -> list[Entry]:
    if not text:
        return []
    out: list[Entry] = []
    for word in text.replace(",", " ").split():
        out.extend(Entry.parse(word))
    return out


# ---- decisions ------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One level's lists, and how they decide (HTCondor's per-level behaviour)."""

    behaviour: str  # "allow", "deny", "only-denies" or "table"
    allow: tuple[Entry, ...] = ()
    deny: tuple[Entry, ...] = ()
    text: str = ""  # what the configuration said, for the refusal's reason

    @classmethod
    def of(cls, level: str, allow: str | None, deny: str | None) -> Rule:
        said = f"ALLOW_{level} = {allow or ''}; DENY_{level} = {deny or ''}"
        if level == ALLOW:
            return cls("allow", text=said)
        if _is_all(deny) or (allow is None and level not in (READ, WRITE)):
            return cls("deny", text=said)
        if _is_all(allow):
            return cls("only-denies" if deny else "allow", (), tuple(_entries(deny)), said)
        return cls("table", tuple(_entries(allow)), tuple(_entries(deny)), said)


@dataclass
class Authorizer:
    rules: dict[str, Rule]
    _cache: dict[tuple[str, str, str], bool] = field(default_factory=dict)

    @classmethod
    def from_config(cls, cfg: Config | None, subsystem: str, me: str = "") -> Authorizer:
        """The lists a daemon of `subsystem` reads from `cfg` (None: condorx's own)."""
        from condorx.transport.security import current_user

        fallback = defaults(me or current_user())
        legacy = cfg.get_bool("LEGACY_ALLOW_SEMANTICS", False) if cfg is not None else False
        sub = subsystem.upper()

        def lookup(kind: str, level: str) -> str | None:
            at: str | None = level
            while at is not None:
                if cfg is not None:
                    for name in (f"{kind}_{at}_{sub}", f"{kind}_{at}"):
                        value = cfg.get(name)
                        if value and value.strip():
                            return value
                if kind == ALLOW and at in fallback:
                    return fallback[at]
                at = _config_next(at, legacy)
            return None

        def allowed(level: str) -> str | None:
            found = lookup(ALLOW, level)
            flock_from = cfg.get("FLOCK_FROM") if cfg is not None else None
            if (sub, level) in FLOCK_GRANTS and flock_from and not _set(cfg, level, sub):
                return f"{found or ''} {flock_from}"
            return found

        rules = {lv: Rule.of(lv, allowed(lv), lookup("DENY", lv)) for lv in LEVELS}
        return cls(rules)

    def verify(self, level: str, fqu: str, address: str) -> bool:
        """Whether the lists let `fqu` at `address` use `level`."""
        key = (level, fqu.lower(), address)
        found = self._cache.get(key)
        if found is None:
            found = self._verify(level, fqu, _ip(address), set())
            if len(self._cache) > 65536:
                self._cache.clear()
            self._cache[key] = found
        return found

    def _verify(self, level: str, fqu: str, ip: Address | None, seen: set[str]) -> bool:
        rule = self.rules.get(level)
        if rule is None or level in seen:
            return False
        seen.add(level)
        if rule.behaviour in ("allow", "deny"):
            return rule.behaviour == "allow"

        def names() -> list[str]:
            return list(_names_of(str(ip))) if ip is not None else []

        if any(e.matches(fqu, ip, names) for e in rule.deny):
            return False
        if rule.behaviour == "only-denies":
            return True
        if any(e.matches(fqu, ip, names) for e in rule.allow):
            return True
        return any(self._verify(q, fqu, ip, seen) for q in IMPLIED_BY.get(level, ()))

    def reason(self, level: str) -> str:
        rule = self.rules.get(level)
        return rule.text if rule is not None else f"no level {level}"


def _ip(address: str) -> Address | None:
    """The peer's address, from `host:port` (a peer on the Unix socket is local)."""
    if address in ("local", "unix", "?", ""):
        return ipaddress.ip_address("127.0.0.1")
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        host = address
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def describe(rules: dict[str, Rule]) -> dict[str, Any]:
    """Each level's behaviour (for a daemon's log at start)."""
    return {level: rule.behaviour for level, rule in rules.items()}


def not_allowed(peer: Peer, command: Command, identity: str) -> dict[str, Any]:
    """The error reply to a peer the lists do not grant the command's level."""
    if peer.user == security.ANONYMOUS:
        return wire.error_reply("authentication", f"{command.name} needs an identity: use a token")
    level = command.permission.level
    return wire.error_reply(
        "permission",
        f"{peer.user} may not {command.name}: it needs {level} permission, which"
        f" ALLOW_{level} / DENY_{level} do not grant {identity} from {peer.address}",
    )
