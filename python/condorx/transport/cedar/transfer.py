"""HTCondor's file-transfer protocol (FileTransfer's DoUpload / DoDownload), for plain
files: what `Schedd.spool()` and `Schedd.retrieve()` of HTCondor's bindings speak once
their command is accepted.

One transfer moves one job's files. The uploader opens with whether this is the final
transfer and the sandbox's size; then, per file, the command XferFile (1) and the file's
name, each its own message. Before the first file the two sides give each other the go
ahead (an interval each way, then `Result = 2`: go ahead for every file). Then the file's
mode and body. The body is `[size][chunk size]` and chunks that each fill one message
when the session encrypts (AES-GCM sessions always do), or `[size]` and raw bytes on the
stream when nothing is encrypted; an empty file ends with the marker 666. After the last
file: Finished (0), the uploader's acknowledgement, then the downloader's.

A file's name is a plain name here: nothing may land outside the job's directory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from condorx.classad import ClassAd
from condorx.transport.cedar.codec import CedarError, Reader
from condorx.transport.cedar.face import Call

XFER_FILE = 1
FINISHED = 0
GO_AHEAD_ALWAYS = 2
ALIVE_INTERVAL = 300  # what a stock peer asks for; less makes it send a Timeout ad first
CHUNK = 256 * 1024  # a stock sender's chunk (the receiver takes the sender's)
EMPTY_FILE = 666  # PUT_FILE_EOM_NUM: an empty file's body
MISSING = 1 << 24  # the uploader could not read the file: an empty body follows
MODE_MASK = 0o777


class TransferError(CedarError):
    """The peer broke the transfer protocol, or sent what may not be kept."""


@dataclass
class Received:
    """What a download brought: each file's bytes and mode, and whether the uploader
    says it sent them all (its acknowledgement's Result)."""

    files: dict[str, bytes] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)
    ok: bool = True
    reason: str = ""


@dataclass
class Limits:
    """How much one download may bring (a stranger's sandbox is bounded)."""

    files: int = 10_000
    total: int = 4 * 1024**3


async def download(call: Call, limits: Limits | None = None) -> Received:
    """Receive one job's files (the peer uploads); acknowledged before returning."""
    limits = limits or Limits()
    head = await call.payload()
    head.integer()  # final transfer or not: the same to us
    if not head.at_end():
        head.classad()  # {SandboxSize = N}
    got = Received()
    asked = False
    total = 0
    while True:
        command = (await call.payload()).integer()
        if command == FINISHED:
            break
        if command != XFER_FILE:
            raise TransferError(f"file transfer command {command} is not served")
        name = (await call.payload()).text()
        if not asked:  # the go-ahead, both ways, before the first file
            await _give_go_ahead(call)
            await _take_go_ahead(call)
            asked = True
        mode = (await call.payload()).integer()
        data = await _receive_body(call, limits.total - total)
        total += len(data)
        if mode == MISSING:
            got.ok, got.reason = False, f"the sender could not read {name}"
            continue
        _check_name(name)
        if len(got.files) >= limits.files:
            raise TransferError(f"more than {limits.files} files in one transfer")
        got.files[name] = data
        got.modes[name] = mode & MODE_MASK
    ack = (await call.payload()).classad()
    if ack.get("Result") != 0:
        got.ok = False
        got.reason = got.reason or str(ack.get("HoldReason") or "the sender's transfer failed")
    return got


async def acknowledge(call: Call, ok: bool, reason: str = "") -> None:
    """The downloader's acknowledgement, once the files are kept (or could not be)."""
    ad = ClassAd({"Result": 0 if ok else -1})
    if not ok:
        ad["HoldReasonCode"] = 12  # DownloadFileError
        ad["HoldReasonSubCode"] = 0
        ad["HoldReason"] = reason
    await call.send(call.writer().classad(ad))


async def upload(call: Call, files: dict[str, bytes], final: bool = True) -> bool:
    """Send one job's files (the peer downloads); whether the peer kept them."""
    head = call.writer().integer(1 if final else 0)
    head.classad(ClassAd({"SandboxSize": sum(len(d) for d in files.values())}))
    await call.send(head)
    asked = False
    for name, data in files.items():
        await call.send(call.writer().integer(XFER_FILE))
        await call.send(call.writer().string(name))
        if not asked:
            await _take_go_ahead(call)
            await _give_go_ahead(call)
            asked = True
        await call.send(call.writer().integer(0o644))
        await _send_body(call, data)
    await call.send(call.writer().integer(FINISHED))
    await call.send(call.writer().classad(ClassAd({"Result": 0})))
    ack = (await call.payload()).classad()
    return ack.get("Result") == 0


# ---- the go-ahead --------------------------------------------------------------------


async def _give_go_ahead(call: Call) -> None:
    """The peer asks (its interval); we answer go ahead for every file."""
    interval = (await call.payload()).integer()
    if interval < ALIVE_INTERVAL:
        keep = ClassAd({"Timeout": ALIVE_INTERVAL, "Result": 0})
        await call.send(call.writer().classad(keep))
    ad = ClassAd({"Result": GO_AHEAD_ALWAYS, "MaxTransferBytes": -1})
    await call.send(call.writer().classad(ad))


async def _take_go_ahead(call: Call) -> None:
    """We ask (our interval); the peer answers until it says go or refuses."""
    await call.send(call.writer().integer(ALIVE_INTERVAL))
    while True:
        ad = (await call.payload()).classad()
        result = ad.get("Result")
        if not isinstance(result, int):
            raise TransferError("a go-ahead without a Result")
        if result < 0:
            raise TransferError(f"the peer refused the transfer: {ad.get('HoldReason') or ''}")
        if result > 0:
            return


# ---- a file's body ------------------------------------------------------------------


async def _receive_body(call: Call, room: int) -> bytes:
    head = await call.payload()
    size = head.integer()
    if size < 0 or size > room:
        raise TransferError(f"a file of {size} bytes (at most {max(room, 0)} more may come)")
    if call.conn.encrypted:
        chunk = head.integer()
        if chunk <= 0:
            raise TransferError(f"a chunk size of {chunk}")
        if size == 0:
            _empty_marker(await call.payload())
            return b""
        parts, left = [], size
        while left:
            msg = await call.payload()
            piece = msg.rest()
            if len(piece) != min(chunk, left):
                raise TransferError("a file chunk that does not fill its message")
            parts.append(piece)
            left -= len(piece)
        return b"".join(parts)
    if size == 0:
        _empty_marker(await call.payload())
        return b""
    return await call.conn.receive_raw(size)


def _empty_marker(msg: Reader) -> None:
    if msg.integer() != EMPTY_FILE:
        raise TransferError("an empty file without its end marker")


async def _send_body(call: Call, data: bytes) -> None:
    if call.conn.encrypted:
        await call.send(call.writer().integer(len(data)).integer(CHUNK))
        for start in range(0, len(data), CHUNK):
            await call.conn.send(data[start : start + CHUNK])
    else:
        await call.send(call.writer().integer(len(data)))
        if data:
            await call.conn.send_raw(data)
    if not data:
        await call.send(call.writer().integer(EMPTY_FILE))


def _check_name(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\0" in name:
        raise TransferError(f"a file name that is not a plain name: {name!r}")
