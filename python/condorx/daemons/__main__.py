"""`python -m condorx.daemons NAME`: run one daemon (schedd, collector, negotiator, startd,
master) with the pool's configuration."""

from __future__ import annotations

import sys

from condorx.daemons.run import DAEMONS, run

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in DAEMONS:
        sys.exit(f"usage: python -m condorx.daemons ({'|'.join(DAEMONS)})")
    run(sys.argv[1])
