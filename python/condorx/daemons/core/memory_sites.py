"""Where a daemon's Python memory was allocated, for the SIGUSR1 dump: only when it runs
with tracemalloc on (PYTHONTRACEMALLOC=1, which slows it several times over), for
finding what a schedd holds per claim or per queued job at scale."""

from __future__ import annotations

import tracemalloc


def lines(top: int = 30) -> list[str]:
    """The `top` source lines holding the most memory now, largest first; none when
    tracemalloc is off."""
    if not tracemalloc.is_tracing():
        return []
    stats = tracemalloc.take_snapshot().statistics("lineno")
    total = sum(s.size for s in stats)
    out = [f"traced Python memory: {total / 2**20:.1f} MiB in {len(stats)} places; largest:"]
    for s in stats[:top]:
        frame = s.traceback[0]
        where = f"{frame.filename.rsplit('/', 2)[-2:][-1]}:{frame.lineno}"
        out.append(f"{s.size / 2**20:9.1f} MiB {s.count:9d} blocks  {where}")
    return out
