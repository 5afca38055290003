"""The job attributes only the schedd may set (SYSTEM_SECURE_JOB_ATTRS and
SECURE_JOB_ATTRS: OsUser, the token's AuthToken* claims, a proxy's subject, ...), so that
policy may trust them. A client's submission that sets one has it ignored, as
HTCondor's schedd ignores it when IGNORE_ATTEMPTS_TO_SET_SECURE_JOB_ATTRS is true (its
default); when that is false, the submission is refused, with HTCondor's words."""

from __future__ import annotations

import logging
from typing import Any

from condorx.errors import Refusal, Refused
from condorx.language.config import Config

log = logging.getLogger("condorx.schedd")


class SecureAttrs:
    def __init__(self, cfg: Config) -> None:
        listed = f"{cfg.get('SYSTEM_SECURE_JOB_ATTRS') or ''} {cfg.get('SECURE_JOB_ATTRS') or ''}"
        self.names = frozenset(n.lower() for n in listed.replace(",", " ").split())
        self.ignore = cfg.get_bool("IGNORE_ATTEMPTS_TO_SET_SECURE_JOB_ATTRS", True)

    def scrub(self, attrs: Any, job: str) -> Any:
        """`attrs` (a wire map of job `job`'s attributes) without the secure ones."""
        if not isinstance(attrs, dict):
            return attrs
        found = [name for name in attrs if name.lower() in self.names]
        if not found:
            return attrs
        if not self.ignore:
            raise Refused(
                Refusal.PERMISSION,
                f"Attempt to edit secure attribute {found[0]} in job {job}. Failing!",
            )
        for name in found:
            log.warning("attempt to edit secure attribute %s in job %s. Ignoring!", name, job)
        return {name: value for name, value in attrs.items() if name not in found}
