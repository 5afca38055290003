"""Quantities in submit commands (a number in the command's own unit, or with a K/M/G/T
suffix), and the sizes condor_submit reckons for a submission from its files."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from condorx.language.submit.values import Values

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

MIB_UNITS = {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}
KIB_UNITS = {"k": 1, "m": 1024, "g": 1024 * 1024, "t": 1024 * 1024 * 1024}
_NUMBER_UNIT = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)\s*([KMGT])?(?:i?B)?$", re.IGNORECASE)


def quantity(v: Values, name: str, units: Mapping[str, float]) -> Any:
    """A number with an optional K/M/G/T unit (none: the command's own unit), rounded up
    to a whole one as HTCondor's parse_int64_bytes does (`2048.0` is 2048); anything else
    is an expression."""
    raw = v.get(name)
    if raw is None:
        return None
    m = _NUMBER_UNIT.match(raw)
    if m:
        scale = units[m.group(2).lower()] if m.group(2) else 1
        return int(-(-float(m.group(1)) * scale // 1))
    return v.literal_or_expr(name)


def sizes(ad: Mapping[str, Any], v: Values) -> dict[str, Any]:
    """ExecutableSize, ImageSize, DiskUsage and TransferInputSizeMB, in KiB rounded up, as
    HTCondor reckons them once for a submission (from its first job): the executable, and
    for the disk the input files too."""
    if isinstance(ad.get("JobVMMemory"), int):  # a VM's image is its memory
        exe = int(ad["JobVMMemory"]) * 1024
    else:
        exe = _kib(ad.get("Cmd")) if ad.get("Cmd") not in ("", "java") else 0
    iwd = str(ad.get("Iwd") or v.submit_dir())
    inputs = 0
    if ad.get("TransferIn") is not False and ad.get("In") not in (None, "/dev/null"):
        inputs += _kib(os.path.join(iwd, str(ad["In"])))
    for name in str(ad.get("TransferInput") or "").split(","):
        name = name.strip().strip('"')
        if name and "://" not in name:
            inputs += _kib(os.path.join(iwd, name))
    image = quantity(v, "image_size", KIB_UNITS)
    out: dict[str, Any] = {
        "ExecutableSize": exe,
        "ImageSize": exe if image is None else image,
        "DiskUsage": exe + inputs,
        "TransferInputSizeMB": (exe + inputs) // 1024,
    }
    disk = quantity(v, "disk_usage", KIB_UNITS)
    if disk is not None:
        out["DiskUsage"] = disk
        del out["TransferInputSizeMB"]
    return out


def _kib(path: Any) -> int:
    """A file's size in KiB rounded up; a directory's, its files' together."""
    name = str(path)
    try:
        if os.path.isdir(name):
            total = sum(
                os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(name) for f in fs
            )
            return (total + 1023) // 1024
        return (os.path.getsize(name) + 1023) // 1024 if os.path.isfile(name) else 0
    except OSError:
        return 0
