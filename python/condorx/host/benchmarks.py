"""The machine's benchmarks (the startd's Mips and KFlops), measured in the core: an
integer loop and a daxpy, each for a fraction of a second."""

from __future__ import annotations

from condorx import _core


def mips() -> float:
    """Millions of integer instructions a second."""
    return _core.benchmark_mips()


def kflops() -> float:
    """Thousands of floating-point operations a second."""
    return _core.benchmark_kflops()
