"""Which account a job runs as, when the startd runs as root (HTCondor's rules, from
the manual's section on user accounts):

- its owner's own account, when STARTER_ALLOW_RUNAS_OWNER (default true), the job comes
  from this UID_DOMAIN (its User is owner@UID_DOMAIN, or TRUST_UID_DOMAIN is true) and
  the account exists on this machine;
- otherwise the slot's SLOT<N>_USER, else `nobody`: a user this machine does not know
  never runs as anyone who has files here.

condorx departs from HTCondor in one place: a job owned by root runs as root. condorx's
root identity belongs only to local root (on the Unix socket) and to the pool's admins
(who hold the pool key and can mint any token), who can do anything here already.

A startd that is not root cannot switch: its jobs run as its own user (None).
"""

from __future__ import annotations

import os
import pwd
import re
import time
from collections.abc import Callable

from condorx.classad import ClassAd
from condorx.language.config import Config

NOBODY = "nobody"


def account_for(cfg: Config, slot_name: str, job: ClassAd) -> str | None:
    if os.geteuid() != 0:
        return None
    owner = job.get("Owner")
    if isinstance(owner, str) and owner and _may_run_as_owner(cfg, job, owner):
        return owner
    number = _slot_number(slot_name)
    slot_user = cfg.get(f"SLOT{number}_USER") if number is not None else None
    return (slot_user or "").strip() or NOBODY


def _may_run_as_owner(cfg: Config, job: ClassAd, owner: str) -> bool:
    if not cfg.get_bool("STARTER_ALLOW_RUNAS_OWNER", True):
        return False
    user = job.get("User")
    domain = user.partition("@")[2] if isinstance(user, str) else ""
    ours = cfg.get("UID_DOMAIN") or cfg.get("FULL_HOSTNAME") or ""
    if domain and ours and domain != ours and not cfg.get_bool("TRUST_UID_DOMAIN", False):
        return False
    refresh = cfg.get_int("PASSWD_CACHE_REFRESH", 72000)
    return accounts.exists(owner, refresh, time.monotonic())


class Accounts:
    """Which accounts this machine has, each looked up at most once in a refresh time
    (PASSWD_CACHE_REFRESH), as HTCondor's passwd cache keeps them: a lookup may read
    /etc/passwd, or ask NIS or LDAP, and a startd asks at every job it starts."""

    def __init__(self, lookup: Callable[[str], object] = pwd.getpwnam) -> None:
        self._lookup = lookup
        self._known: dict[str, tuple[bool, float]] = {}  # name -> (exists, until when)

    def exists(self, name: str, refresh: float, now: float) -> bool:
        """Whether the account exists, as last looked up within `refresh` seconds of
        `now` (a monotonic clock's)."""
        known = self._known.get(name)
        if known is not None and now < known[1]:
            return known[0]
        try:
            self._lookup(name)
            found = True
        except KeyError:
            found = False
        self._known[name] = (found, now + refresh)
        return found


accounts = Accounts()


def _slot_number(name: str) -> int | None:
    """slot3@host -> 3; a dynamic slot1_2@host -> 1 (its partitionable slot's user)."""
    m = re.match(r"slot(\d+)", name)
    return int(m.group(1)) if m else None
