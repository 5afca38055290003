"""The file-transfer protocol in-process (`condorx.transport.cedar.transfer`): what one side
uploads, the other downloads, on a sealed connection (chunks that fill their messages)
and on a clear one (raw bytes on the stream): empty files, files of several chunks, and
a name that would leave the job's directory, which is refused."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
import trio
import trio.testing

from condorx.transport.cedar import transfer
from condorx.transport.cedar.face import Call
from condorx.transport.cedar.packets import Connection

KEY = hashlib.sha256(b"a session key").digest()
FILES = {
    "empty": b"",
    "small.txt": b"hello\n",
    "big.bin": bytes(range(256)) * (2 * transfer.CHUNK // 256 + 3),  # three chunks
    "exact.bin": b"x" * transfer.CHUNK,
}


def _calls(encrypted: bool) -> tuple[Call, Call]:
    a_to_b = trio.testing.memory_stream_one_way_pair()
    b_to_a = trio.testing.memory_stream_one_way_pair()
    a = Connection(trio.StapledStream(a_to_b[0], b_to_a[1]), max_message=1 << 24)
    b = Connection(trio.StapledStream(b_to_a[0], a_to_b[1]), max_message=1 << 24)
    if encrypted:
        a.start_encryption(KEY)
        b.start_encryption(KEY)
    return (Call(None, a, 0, None, None, None), Call(None, b, 0, None, None, None))  # type: ignore[arg-type]


async def _both(encrypted: bool, files: dict[str, bytes]) -> tuple[bool, Any]:
    up, down = _calls(encrypted)
    out: dict[str, Any] = {}

    async def receive() -> None:
        got = await transfer.download(down)
        out["got"] = got
        await transfer.acknowledge(down, got.ok, got.reason)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(receive)
        out["sent"] = await transfer.upload(up, files, final=False)
    return out["sent"], out["got"]


@pytest.mark.parametrize("encrypted", [True, False], ids=["sealed", "clear"])
def test_what_is_uploaded_is_downloaded(encrypted):
    sent, got = trio.run(_both, encrypted, FILES)
    assert sent is True and got.ok
    assert got.files == FILES
    assert set(got.modes.values()) == {0o644}


def test_no_files_is_a_transfer_too():
    sent, got = trio.run(_both, True, {})
    assert sent is True and got.ok and got.files == {}


@pytest.mark.parametrize("name", ["../escape", "a/b", "", ".."])
def test_a_name_outside_the_jobs_directory_is_refused(name):
    with pytest.raises(ExceptionGroup) as info:
        trio.run(_both, True, {name: b"data"})
    assert info.group_contains(transfer.TransferError, match="not a plain name")


def test_a_sandbox_over_the_limit_is_refused():
    async def go() -> None:
        up, down = _calls(True)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(transfer.upload, up, {"big": b"y" * 1000})
            try:
                await transfer.download(down, transfer.Limits(total=999))
            finally:
                nursery.cancel_scope.cancel()

    with pytest.raises(ExceptionGroup) as info:
        trio.run(go)
    assert info.group_contains(transfer.TransferError, match="1000 bytes")
