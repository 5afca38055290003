"""condorx: a high-throughput batch scheduling system in the HTCondor tradition.

The packages, lowest layer first (a module imports only from its own layer or below;
`tests/test_seams.py` checks it):

- `_core`: the Rust core (the ClassAd language, matchmaking, CronTab), reached only
  through the wrappers of the layers below `client` (`classad`, `language`, `host`, and
  in `transport` the frames' and CEDAR's ad codecs).
- `errors`, `version`, `record`: the exception hierarchy, the version string and records
  (dataclasses made without compiling source, for what the tools import), used by every
  layer.
- `classad`: the ClassAd language's Python face, the first module of the `language`
  layer. It stays at the package root because `condorx.classad` is a drop-in for
  HTCondor's `classad2` module: scripts and HTCondor's conformance runner import it by
  that name.
- `host`: this machine: accounts, /proc, files a job could have touched, benchmarks.
- `language`: the languages: cron, matchmaking, configuration, submit files, DAG files,
  user logs and the history file.
- `transport`: the wire: frames, streams, authentication, sessions, the typed protocol,
  HTCondor's CEDAR.
- `client`: a client per daemon.
- `daemons`, `dagman`, `sim`: the daemons, condor_dagman, the pool simulator.
- `cli`, `demo`, `bench`, `testing`: the tools, the demos, the negotiation benchmark and
  the test fixtures.
"""

from __future__ import annotations

from condorx._core import __version__
from condorx.errors import ClassAdParseError, CondorxError

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ClassAdParseError", "CondorxError", "__version__", "analyze"]


def __getattr__(name: str) -> Any:
    # `condorx.analyze` is imported when first asked for: every tool imports this
    # package, and most never analyze (it would cost each of them its start-up time).
    if name == "analyze":
        from condorx.language.analyze import analyze

        return analyze
    raise AttributeError(f"module 'condorx' has no attribute {name!r}")
