"""`python -m condorx.daemons.schedd`: run a schedd with the pool's configuration."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import trio

from condorx.config import ConfigError, load_config
from condorx.daemons.schedd.service import serve


def main() -> None:
    try:
        cfg = load_config(subsystem="SCHEDD")
    except ConfigError as e:
        print(f"condor_schedd: {e}", file=sys.stderr)
        sys.exit(1)
    _log_to(cfg.get("SCHEDD_LOG"))
    try:
        trio.run(serve, cfg)
    except KeyboardInterrupt:
        pass


def _log_to(path: str | None) -> None:
    """The daemon log (SCHEDD_LOG), falling back to standard error."""
    fmt = "%(asctime)s %(levelname)s %(name)s %(message)s"
    if path:
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            logging.basicConfig(level=logging.INFO, format=fmt, filename=path)
            return
        except OSError as e:
            print(f"condor_schedd: cannot write {path}: {e.strerror}", file=sys.stderr)
    logging.basicConfig(level=logging.INFO, format=fmt)


if __name__ == "__main__":
    main()
