"""Which job attributes a user may change after submission, as HTCondor's schedd reads
its configuration: none of the immutable ones (SYSTEM_IMMUTABLE_JOB_ATTRS and
IMMUTABLE_JOB_ATTRS: Owner, ClusterId, JobUniverse, ProcId, ...), and the protected
ones (SYSTEM_PROTECTED_JOB_ATTRS and PROTECTED_JOB_ATTRS) only as a queue super user.

The attributes the schedd itself keeps (JobStatus, QDate, HoldReason, ...) are refused
where they are written (`transitions.edit`), whoever asks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from condorx.errors import Refusal, Refused
from condorx.language.config import Config
from condorx.transport import security


def _names(cfg: Config, *knobs: str) -> frozenset[str]:
    return frozenset(n.lower() for knob in knobs for n in cfg.get_list(knob))


@dataclass(frozen=True)
class AttrRules:
    immutable: frozenset[str]
    protected: frozenset[str]

    @classmethod
    def from_config(cls, cfg: Config) -> AttrRules:
        return cls(
            _names(cfg, "SYSTEM_IMMUTABLE_JOB_ATTRS", "IMMUTABLE_JOB_ATTRS"),
            _names(cfg, "SYSTEM_PROTECTED_JOB_ATTRS", "PROTECTED_JOB_ATTRS"),
        )

    def check_edit(self, user: str, names: Iterable[str], super_users: Iterable[str]) -> None:
        """Refuse (permission) an edit of an attribute `user` may not change."""
        for name in names:
            if name.lower() in self.immutable:
                raise Refused(Refusal.PERMISSION, f"{name} cannot be changed after submission")
            if name.lower() in self.protected and not security.may_act_on(user, "", super_users):
                raise Refused(
                    Refusal.PERMISSION, f"{name} may be changed by a queue super user only"
                )
