"""condorx: a high-throughput batch scheduling system in the HTCondor tradition.

The ClassAd language lives in the Rust core (`condorx._core`); `condorx.classad` is its
Python face, shaped like HTCondor's `classad2` module so that code can switch.
"""

from condorx._core import __version__
from condorx.analyze import analyze
from condorx.errors import ClassAdParseError, CondorxError

__all__ = ["ClassAdParseError", "CondorxError", "__version__", "analyze"]
