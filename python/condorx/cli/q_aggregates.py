"""condor_q -autocluster and -group-by: the schedd's queue aggregated, one ad per group
(`ScheddClient.aggregate`), printed as HTCondor's condor_q prints it: with -af, -format,
-long or -json as any ads, else in its AUTOCLUSTER table (queue.cpp's
autoclusterNormal_PrintFormat)."""

from __future__ import annotations

import sys
import time

from condorx.classad import ClassAd

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

HEADER = "   ID COUNT UNIVERSE CPUS MEMORY     DISK REQUIREMENTS"
# CondorUniverseNameUcFirst, as the table's JOB_UNIVERSE column names universes.
UNIVERSES = {
    1: "Standard",
    5: "Vanilla",
    7: "Scheduler",
    8: "MPI",
    9: "Grid",
    10: "Java",
    11: "Parallel",
    12: "Local",
    13: "VM",
    14: "Container",
}


def _number(ad: ClassAd, name: str, width: int) -> str:
    value = ad.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "??".rjust(width)
    return f"{int(value):{width}d}"


def row(ad: ClassAd) -> str:
    """One group's line: ID, COUNT, UNIVERSE, CPUS, MEMORY, DISK and REQUIREMENTS."""
    ident = ad.get("AutoClusterId", ad.get("Id"))
    universe = ad.get("JobUniverse")
    name = UNIVERSES.get(universe, "??") if isinstance(universe, int) else "??"
    requirements = str(ad.lookup("Requirements")) if "Requirements" in ad else "??"
    cells = [
        f"{ident:5d}" if isinstance(ident, int) else "??".rjust(5),
        _number(ad, "JobCount", 5),
        name.ljust(8),
        _number(ad, "RequestCpus", 4),
        _number(ad, "RequestMemory", 6),
        _number(ad, "RequestDisk", 8),
        requirements,
    ]
    return " ".join(cells) + "\n"


async def print_table(title: str, chunks: Any) -> None:
    """The AUTOCLUSTER table: a title, the header, one line per group; no totals."""
    out = sys.stdout
    out.write(f"\n\n-- {title} @ {time.strftime('%m/%d/%y %H:%M:%S')}\n{HEADER}\n")
    async for chunk in chunks:
        out.write("".join(row(ad) for ad in chunk))
    out.flush()
