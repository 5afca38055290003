"""The manual sections the project is built from (`../shared/seeds` beside the project),
for tests that check an example exactly as the manual prints it."""

from __future__ import annotations

import re
from pathlib import Path

SEEDS = Path(__file__).resolve().parents[3].parent / "shared" / "seeds"


def router_example() -> str:
    """The job router's example configuration (Job Router manual), as printed there."""
    text = (SEEDS / "002_d8d03e2c662317ad.txt").read_text()
    m = re.search(r"(# These settings become the default.*?MAX_HISTORY_ROTATIONS = 20)", text, re.S)
    if m is None:
        raise LookupError("the job router seed has no example configuration")
    return m.group(1)
