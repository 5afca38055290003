"""`python -m condorx.daemons.schedd` (and `condor_schedd`): run a schedd."""

from __future__ import annotations

from condorx.daemons.core.run import run


def main() -> None:
    run("schedd")


if __name__ == "__main__":
    main()
