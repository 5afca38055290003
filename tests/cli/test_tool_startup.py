"""The command-line tools answer without starting an event loop: their client calls run
over blocking sockets (`transport.blocking`), and what only a daemon or an encrypted
connection needs (trio, cryptography) is not loaded to start them, nor click: they read
their own words (`cli.args.Tool`), nor dataclasses: what they import makes records
(`condorx.record`), which compile no source, nor typing."""

from __future__ import annotations

import subprocess
import sys

import pytest
import trio

from condorx.transport import blocking

TOOLS = ["condorx.cli.q", "condorx.cli.status", "condorx.cli.submit", "condorx.cli.act"]
TOOLS += ["condorx.cli.history"]


# What a tool must not load to start: an event loop, click, what only a connection over
# TCP needs (a token, OpenSSL's hashes, cryptography), and dataclasses, whose classes
# cost 1 ms each to make and whose import loads `inspect` (issue 30: 40% of a start-up).
NOT_AT_START = {"trio", "click", "cryptography", "hashlib", "_hashlib", "uuid"}
NOT_AT_START |= {"dataclasses", "inspect"}
# Nor typing (4 ms): its names are for annotations only, under a TYPE_CHECKING of our own.
NOT_AT_START |= {"typing"}
# Nor pathlib, with the urllib.parse and ipaddress it loads: 18 of condor_q's 150 million
# instructions. `transport.locate` gives locations as str.
NOT_AT_START |= {"pathlib", "urllib.parse", "ipaddress"}
# Nor socket, whose enums are made as it loads (13.8 million): `_socket` serves a tool.
NOT_AT_START |= {"socket", "selectors"}


@pytest.mark.parametrize("module", TOOLS)
def test_a_tool_starts_without_trio_click_cryptography_or_dataclasses(module: str):
    code = f"import sys, {module}; print(sorted({NOT_AT_START!r} & set(sys.modules)))"
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
    # Each message type costs its making at import, on every run of a tool.
    code = "import sys, condorx.cli.q; print(sorted(m for m in sys.modules if '.schedd.' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['condorx.transport.protocol.schedd.query']"


def test_a_client_on_the_local_socket_never_makes_a_token(monkeypatch, tmp_path):
    # Making a token from the pool key loads cryptography: only TCP needs one.

    from condorx.client import schedd
    from condorx.language.config import Config
    from condorx.transport.connection import Address, Credentials

    asked: list[object] = []
    monkeypatch.setattr(schedd, "user_credentials", lambda cfg: asked.append(cfg) or Credentials())
    monkeypatch.delenv("CONDORX_TOKEN", raising=False)
    client = schedd.ScheddClient(Config.from_text(""))
    assert client._creds_for(Address(unix=str(tmp_path / "schedd.sock"))) == Credentials()
    assert asked == []
    client._creds_for(Address(host="127.0.0.1", port=9618))
    assert len(asked) == 1


@pytest.mark.parametrize("module", TOOLS)
def test_a_tools_imports_run_no_collection_and_its_run_collects_as_usual(module):
    # The imports make no garbage; 14 collections over them were 5 ms of condor_q's run.
    # (A few young ones come before `condorx.cli` is reached, each over a few hundred objects.)
    code = (
        "import gc; starts = []; default = gc.get_threshold()\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and starts.append(info))\n"
        "import condorx.cli; before = len(starts)\n"
        f"import {module}\n"
        "from condorx.cli import running; print(len(starts) - before); running()\n"
        "print(gc.get_threshold() == default)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "True"]


# What each tool's run loads, not only its import: (module, function, words).
RUNS = [
    ("condorx.cli.q", "main", ["-totals"]),
    ("condorx.cli.q", "main", []),
    ("condorx.cli.status", "main", []),
    ("condorx.cli.history", "main", []),
    ("condorx.cli.submit", "main", ["job.sub"]),
    ("condorx.cli.act", "rm", ["1.0"]),
]


def test_a_tools_whole_run_loads_none_of_them(pool):
    pool.start("collector", "schedd")
    (pool.root / "job.sub").write_text("executable = /bin/true\nqueue\n")
    pool.cli("condorx.cli.submit", "job.sub")
    loaded = {}
    for module, fn, words in RUNS:
        # The words as the console script gets them; what is loaded, read as it exits.
        code = (
            f"import atexit, sys; sys.argv = ['tool', *{words!r}]\n"
            f"atexit.register(lambda: print(sorted({NOT_AT_START!r} & set(sys.modules))))\n"
            f"from {module} import {fn}; {fn}()"
        )
        run = subprocess.run(
            [sys.executable, "-c", code],
            env=pool.env,
            cwd=pool.root,
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, run.stderr
        loaded[f"{module} {' '.join(words)}"] = run.stdout.strip().splitlines()[-1]
    assert loaded == {name: "[]" for name in loaded}
