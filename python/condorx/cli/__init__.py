"""The command-line tools: thin click commands over the library.

A tool's imports make tens of thousands of objects and no garbage. At Python's default
young-generation threshold (700 allocations) the cyclic collector ran 14 times over them
while condor_q loaded, 4.4-5.7 ms of a 70 ms run. So the threshold is raised while the
tools' modules load, and `running()` puts it back once they have: what the imports made
is frozen first, so no later collection walks it again.
"""

from __future__ import annotations

import gc

_THRESHOLDS = gc.get_threshold()
gc.set_threshold(100_000, *_THRESHOLDS[1:])


def running() -> None:
    """The tool's modules are loaded and it starts its work: collect as usual from here."""
    gc.freeze()
    gc.set_threshold(*_THRESHOLDS)
