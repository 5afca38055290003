"""Reading an ad dump: what `condor_status -l`, `condor_q -l` and `condor_history -l`
print (old-syntax ads, one after another, a blank line between)."""

from __future__ import annotations

from pathlib import Path

from condorx.classad import ClassAd, parseAds
from condorx.errors import CondorxError


class DumpError(CondorxError):
    """A dump that cannot be read or used; says which file and which ad."""


def read(path: Path) -> list[ClassAd]:
    """The dump's ads, in order (an ad's number in errors counts from 1)."""
    try:
        text = path.read_text(errors="replace")
    except OSError as e:
        raise DumpError(f"cannot read {path}: {e.strerror}") from None
    try:
        return list(parseAds(text, "old"))
    except ValueError as e:
        raise DumpError(f"{path}: not ClassAds: {e}") from None
