"""What every command-line tool does the same way: load the configuration, run one client
call, and turn a daemon's refusal or a configuration error into one line and an exit code.

A client call runs without an event loop (`transport.blocking`): a tool that asks one
question answers without starting trio. A tool that waits on timers or on several
conversations at once (condor_wait, condor_tail -f, pool up) runs trio itself."""

from __future__ import annotations

import sys
from collections.abc import Callable

from condorx.language.config import Config, ConfigError, load_config
from condorx.transport import blocking
from condorx.transport.wire import RemoteError, WireError

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any, NoReturn


def fail(message: str, code: int = 1) -> NoReturn:
    print(message, file=sys.stderr)
    sys.exit(code)


def load(tool: str, subsystem: str = "TOOL") -> Config:
    try:
        return load_config(subsystem=subsystem)
    except ConfigError as e:
        fail(f"{tool}: configuration error: {e}")


def run_client(fn: Callable[..., Any], *args: Any, tool: str = "") -> Any:
    name = tool or sys.argv[0].rsplit("/", 1)[-1]
    try:
        return blocking.run(fn, *args)
    except RemoteError as e:
        fail(f"{name}: {e}")
    except (WireError, OSError) as e:
        fail(f"{name}: {e}")
    except BrokenPipeError:
        sys.exit(0)
