"""The negotiator's accountant as administrators see it: each user's priority and usage,
kept across restarts in ACCOUNTANT_DATABASE_FILE, and changed with condor_userprio.

The priorities themselves are computed in the core (`condorx.language.negotiation.Accountant`);
this keeps them on disk (one JSON document, replaced whole and fsynced, so a negotiator
killed at any moment comes back with the last state it wrote) and applies the edits.

The document holds one row per record under the names in "fields" (a pool's 10,000
submitters and their groups are written every cycle: rows take half the time of one
object per record). The first format, an object per record under "users", still reads.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from condorx.errors import Refusal, Refused
from condorx.language.negotiation import Accountant

log = logging.getLogger("condorx.negotiator")

_FIELDS = ("name", "real", "factor", "in_use", "accumulated", "begin", "last")


class Accounting:
    def __init__(self, path: Path, halflife: float, default_factor: float) -> None:
        self.path = path
        self.accountant = Accountant(halflife=halflife, default_factor=default_factor)
        self._load()

    def _load(self) -> None:
        try:
            saved = json.loads(self.path.read_text())
        except FileNotFoundError:
            return
        except (OSError, ValueError) as e:
            log.warning("cannot read the accountant's records in %s: %s", self.path, e)
            return
        if not isinstance(saved, dict):
            log.warning("cannot read the accountant's records in %s: not a document", self.path)
            return
        fields = saved.get("fields", _FIELDS)
        rows = saved.get("records")
        if isinstance(rows, list) and isinstance(fields, list):
            records = [dict(zip(fields, r, strict=False)) for r in rows if isinstance(r, list)]
        else:
            records = saved.get("users", [])
        for rec in records:
            try:
                self.accountant.restore(str(rec["name"]), *(float(rec[k]) for k in _FIELDS[1:]))
            except (KeyError, TypeError, ValueError):
                log.warning("%s: a record that does not read: %r", self.path, rec)

    def save(self) -> None:
        rows = self.accountant.records()
        body = json.dumps({"fields": _FIELDS, "records": rows}).encode()
        tmp = self.path.with_name(self.path.name + ".tmp")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def charge(self, now: float, in_use: dict[str, float]) -> None:
        self.accountant.update(now, in_use)
        self.save()

    def edit(self, action: str, user: str, value: float | None, now: float) -> None:
        """One condor_userprio edit; a refusal says what is wrong, as HTCondor's would."""
        acc = self.accountant
        if action != "resetall" and not user:
            raise Refused(Refusal.BAD_REQUEST, f"{action}: name the user")
        if action == "factor":
            if value is None or value < 1:
                raise Refused(
                    Refusal.BAD_REQUEST, "Priority factors must be greater than or equal to 1."
                )
            acc.set_factor(user, value)
        elif action in ("priority", "accumulated", "begin", "last"):
            if value is None or value < 0:
                raise Refused(Refusal.BAD_REQUEST, f"{action}: the value must not be negative")
            setter = {
                "priority": acc.set_priority,
                "accumulated": acc.set_accumulated,
                "begin": acc.set_begin,
                "last": acc.set_last,
            }[action]
            setter(user, value)
        elif action == "reset":
            acc.reset_usage(user, now)
        elif action == "resetall":
            acc.reset_all(now)
        elif action == "delete":
            acc.delete(user)
        else:
            raise Refused(Refusal.BAD_REQUEST, f"no such edit: {action!r}")
        self.save()

    def records(self) -> list[dict[str, Any]]:
        """Each user's record, with HTCondor's accounting attribute names."""
        out = []
        for name, real, factor, in_use, accumulated, begin, last in self.accountant.records():
            out.append(
                {
                    "Name": name,
                    "Priority": real * factor,
                    "RealPriority": real,
                    "PriorityFactor": factor,
                    "ResourcesUsed": in_use,
                    "WeightedResourcesUsed": in_use,
                    "WeightedAccumulatedUsage": accumulated,
                    "BeginUsageTime": int(begin),
                    "LastUsageTime": int(last),
                }
            )
        return out
