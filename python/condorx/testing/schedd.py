"""A real schedd process in a directory of its own, for tests and benchmarks: started,
killed with -9, restarted and stopped on demand (a LocalPool with just a schedd)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from condorx.client.schedd import ScheddClient
from condorx.testing.pool import LocalPool


class LocalSchedd(LocalPool):
    def __init__(self, root: Path, extra_config: str = "") -> None:
        super().__init__(root, extra_config)
        self.address_file = self.daemon("schedd").address_file

    def start(self, *names: str, timeout: float = 30.0) -> None:  # noqa: D102 - the schedd unless told otherwise
        super().start(*(names or ("schedd",)), timeout=timeout)

    def kill9(self) -> None:
        self.daemon("schedd").kill9()

    def client(self, **kw: Any) -> ScheddClient:
        return ScheddClient(self.cfg, **kw)

    def call(self, fn: Any, *args: Any) -> Any:
        return trio.run(fn, *args)
