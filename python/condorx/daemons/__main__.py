"""`python -m condorx.daemons NAME [-local-name LOCAL]`: run one daemon (schedd,
collector, negotiator, startd, master, ...) with the pool's configuration. With
`-local-name`, as HTCondor's daemons take it, the daemon reads `LOCAL.<knob>` before
`<SUBSYS>.<knob>` and `<knob>`: a second negotiator of a pool is `negotiator -local-name
NEG2`, configured by `NEG2.NEGOTIATOR_SLOT_CONSTRAINT` and the like."""

from __future__ import annotations

import sys

from condorx.daemons.core.run import DAEMONS, run

if __name__ == "__main__":
    args = sys.argv[1:]
    local = None
    if len(args) == 3 and args[1] in ("-local-name", "--local-name"):
        local, args = args[2], args[:1]
    if len(args) != 1 or args[0] not in DAEMONS:
        sys.exit(f"usage: python -m condorx.daemons ({'|'.join(DAEMONS)}) [-local-name NAME]")
    run(args[0], local)
