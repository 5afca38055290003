"""`condor_master`: run the master in the foreground (`condorx pool up` starts it in the
background)."""

from __future__ import annotations

from condorx.daemons.core.run import run


def main() -> None:
    run("master")


if __name__ == "__main__":
    main()
