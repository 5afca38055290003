"""The command-line tools answer without starting an event loop: their client calls run
over blocking sockets (`transport.blocking`), and what only a daemon or an encrypted
connection needs (trio, cryptography) is not loaded to start them, nor click: they read
their own words (`cli.args.Tool`)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import trio

from condorx.transport import blocking

TOOLS = ["condorx.cli.q", "condorx.cli.status", "condorx.cli.submit", "condorx.cli.act"]
TOOLS += ["condorx.cli.history"]


@pytest.mark.parametrize("module", TOOLS)
def test_a_tool_starts_without_trio_or_click(module: str):
    code = f"import sys, {module}; print(sorted({{'trio', 'click'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_blocking_run_returns_what_the_call_returns():
    async def answer(x: int) -> int:
        return x + 1

    assert blocking.run(answer, 41) == 42


class _Suspends:
    """An awaitable that gives way to a loop, as a timer or a lock would."""

    def __await__(self):  # type: ignore[no-untyped-def]
        yield


def test_a_blocking_run_refuses_a_call_that_would_wait_on_a_loop():
    async def waits() -> None:
        await _Suspends()

    async def sleeps() -> None:
        await trio.sleep(1)

    with pytest.raises(RuntimeError, match="waits waited on an event loop"):
        blocking.run(waits)
    with pytest.raises(RuntimeError):  # trio's own refusal, outside its loop
        blocking.run(sleeps)
    assert not blocking.active()


def test_condor_q_loads_only_the_messages_it_sends():
    # Each message type costs its dataclass's making at import, on every run of a tool.
    code = "import sys, condorx.cli.q; print(sorted(m for m in sys.modules if '.schedd.' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['condorx.transport.protocol.schedd.query']"
