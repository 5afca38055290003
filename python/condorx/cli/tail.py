"""condor_tail: the end of a running job's standard output (or error, or other files in the
directory it runs in), read where it runs; -f follows it as it grows.

condor_tail [-name SCHEDD] [-maxbytes N] [-f] [-no-stdout] [-stderr] JOB [FILE...]

As HTCondor's (tail.cpp): the schedd says where the job runs, and the startd there reads
the files for the job's owner alone. A job that is not running yet is waited for, asked
again every 2 seconds; status 0 once read (or, with -f, once the job has ended), 1 when
there is no such job or it may not be read.
"""

from __future__ import annotations

import re
import sys
import time

import trio

from condorx.cli import args as a
from condorx.cli.common import fail, load
from condorx.client.schedd import ScheddClient
from condorx.language.config import Config
from condorx.transport.connection import Address, call, user_credentials
from condorx.transport.protocol.startd import Peek, Peeked
from condorx.transport.wire import RemoteError, WireError

TOOL = "condor_tail"
RETRY = 2.0  # seconds between looks at a job not running yet, and between follows
OPTIONS = [
    a.Opt("version", 7, help="print the version and exit"),
    a.Opt("pool", 4, 1, help="accepted; condorx finds the schedd here", metavar="HOST"),
    a.Opt("name", 4, 1, help="the schedd of the job (its address)", metavar="SCHEDD"),
    a.Opt("debug", 5, help="accepted (condorx prints no debug log here)"),
    a.Opt("maxbytes", 8, 1, help="read at most N bytes (1024)", metavar="N"),
    a.Opt("auto-retry", 10, help="accepted (a job not running yet is always waited for)"),
    a.Opt("follow", 6, aliases=("f",), help="go on printing what is written, until the job ends"),
    a.Opt("no-stdout", 9, help="not the standard output"),
    a.Opt("stderr", 6, help="the standard error (and not the standard output)"),
]
USAGE = "condor_tail [options] <job-id> [filename1[, filename2[, ...]]]"
_JOB = re.compile(r"^(\d+)(?:\.(\d+))?$")


def where(cfg: Config, schedd: str | None, job: str) -> tuple[bool, str | None]:
    """Whether the job is in the queue, and its startd's address (None while it does not
    run); failing when the schedd cannot be asked."""
    client = ScheddClient(cfg, schedd)
    cluster, _, proc = job.partition(".")

    async def ask() -> list[list[object]]:
        out: list[list[object]] = []
        constraint = f"ClusterId == {cluster} && ProcId == {proc}"
        async for chunk in client.query_rows(["JobStatus", "StartdIpAddr"], constraint):
            out.extend(chunk)
        return out

    try:
        rows = trio.run(ask)
    except (OSError, WireError, RemoteError) as e:
        fail(f"Failed to connect to schedd: {e}")
    if not rows:
        return False, None
    status, address = rows[0]
    running = status == 2 and isinstance(address, str)
    return True, str(address) if running else None


# tail.cpp: -help exits 0 (--help is an unknown option: 1), on stderr.
@a.command(
    TOOL,
    OPTIONS,
    USAGE,
    [("JOB", "the job (cluster.proc)"), ("FILE", "its files")],
    help_exit=(0, 1),
    help_to_stderr=True,
)
def main(ctx: a.Context) -> None:
    """Print the end of a running job's output."""
    opts = a.parsed(ctx)
    if "version" in opts.flags:
        from condorx.cli.version import platform_string, version_string

        print(f"{version_string()}\n{platform_string()}")
        return
    if not opts.positional:
        fail(f"Job ID not specified.\nUsage: {USAGE}")
    m = _JOB.match(opts.positional[0])
    if m is None:
        fail(f"Invalid Job ID: {opts.positional[0]}\nUsage: {USAGE}")
    job = f"{m.group(1)}.{m.group(2) or 0}"
    files = opts.positional[1:]
    stderr = "stderr" in opts.flags
    stdout = not stderr and "no-stdout" not in opts.flags
    if not files and not stdout and not stderr:
        fail(f"No file transfer specified.\nUsage: {USAGE}")
    try:
        limit = int(opts.value("maxbytes") or 1024)
    except ValueError:
        fail(f"Error: maxbytes ({opts.value('maxbytes')}) is not valid")
    cfg = load(TOOL)
    request = Peek(job, files or None, stdout, stderr, None, limit)
    follow = "follow" in opts.flags
    read_once = False
    offsets: dict[str, int] = {}
    while True:
        queued, address = where(cfg, opts.value("name"), job)
        if address is None:
            if read_once:
                return  # the job ended while being followed
            if not queued:
                fail(f"No such job: {job}")
            time.sleep(RETRY)  # not running yet: HTCondor's waits for it too
            continue
        try:
            reply = trio.run(call, Address.parse(address), user_credentials(cfg), request)
        except RemoteError as e:
            if e.kind == "not-found" and read_once:
                return
            fail(str(e))
        except (OSError, WireError) as e:
            if read_once:
                return
            fail(f"Failed to peek at file from starter: {e}")
        peeked = Peeked.from_wire(reply)
        for name, data in peeked.data.items():
            sys.stdout.buffer.write(bytes(data))
            start = offsets.get(name)
            offsets[name] = int(peeked.sizes[name]) if start is None else start + len(data)
        sys.stdout.flush()
        read_once = True
        if not follow:
            return
        request = Peek(job, files or None, stdout, stderr, dict(offsets), limit)
        time.sleep(RETRY)


if __name__ == "__main__":
    main()
