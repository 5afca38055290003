"""`python -m condorx.daemons.schedd`: run a schedd with the pool's configuration."""

from __future__ import annotations

import logging
import sys

import trio

from condorx.config import ConfigError, load_config
from condorx.daemons.schedd.service import serve


def main() -> None:
    try:
        cfg = load_config(subsystem="SCHEDD")
    except ConfigError as e:
        print(f"condor_schedd: {e}", file=sys.stderr)
        sys.exit(1)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        trio.run(serve, cfg)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
