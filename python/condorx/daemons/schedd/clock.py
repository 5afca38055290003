"""The schedd's clock, a port: the epoch seconds its rules stamp on jobs and compare with.

The daemon runs on `wall`; a test passes its own (a trio MockClock's time plus an epoch)
to check a timing rule exactly, without waiting for it."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], int]


def wall() -> int:
    """This machine's time, in whole seconds since the epoch."""
    return int(time.time())
