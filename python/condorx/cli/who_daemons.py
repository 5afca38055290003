"""condor_who -daemons: the daemons of a LOG directory, found as HTCondor's condor_who
finds them (who.cpp's query_log_dir and scan_logs_for_info).

The directory's `.<name>_address` files give addresses, its `<Name>Log` files the
daemons (SchedLog is the Schedd's, StartLog the Startd's, MatchLog the Negotiator's).
Each daemon's log gives its pid (the start-up banner's `** PID = `) and, where no
address file does, its address (`DaemonCore: command socket at`); the master's log
gives the pids it started and the statuses they exited with. Whether a daemon is alive,
its parent and its command line are read from /proc, where HTCondor's asks the daemon
for its PPID and executable (the same facts, without a round trip).
"""

from __future__ import annotations

import os
import re

from condorx.record import record

# Log name stems that are not the daemon's name (HTCondor's log_to_daemon), and file
# name stems HTCondor spells otherwise (file_to_daemon).
LOG_TO_DAEMON = {"Sched": "Schedd", "Start": "Startd", "Match": "Negotiator", "Cred": "Credd"}
FILE_TO_DAEMON = {"shared_port": "SharedPort", "job_router": "JobRouter"}
_PID = re.compile(r" \*\* PID = (\d+)")
_SOCKET = re.compile(r" DaemonCore: command socket at (<[^>]*>)")
_STARTED = re.compile(r"started (\w+) \(pid (\d+)\)")
_EXITED = re.compile(r"The (\w+) \(pid (\d+)\) exited with status (-?\d+)")
FORMAT = "%-12s %-6s %-6s %-6s %-6s %-24s %s"


@record
class Daemon:
    addr: str = ""
    log: str = ""
    pid: str = ""
    exit: str = ""


def _name(stem: str) -> str:
    stem = FILE_TO_DAEMON.get(stem.lower(), stem)
    return LOG_TO_DAEMON.get(stem, stem[:1].upper() + stem[1:])


def scan(log_dir: str) -> dict[str, Daemon]:
    """The daemons the directory's address and log files name, with what they say."""
    found: dict[str, Daemon] = {}
    for file in sorted(os.listdir(log_dir)):
        path = os.path.join(log_dir, file)
        if file.startswith(".") and file.endswith("_address"):
            daemon = found.setdefault(_name(file[1 : -len("_address")]), Daemon())
            daemon.addr = _first_line(path)
        elif file.endswith("Log") and len(file) > 3:
            found.setdefault(_name(file[:-3]), Daemon()).log = path
    for daemon in found.values():
        if daemon.log:
            text = _text(daemon.log)
            pids = _PID.findall(text)
            daemon.pid = pids[-1] if pids else ""
            sockets = _SOCKET.findall(text)
            if not daemon.addr and sockets:
                daemon.addr = sockets[-1]
    master = found.get("Master")
    if master is not None and master.log:
        _read_master_log(_text(master.log), found)
    return found


def _read_master_log(text: str, found: dict[str, Daemon]) -> None:
    """The pids the master started and how they ended, the latest of each daemon's."""
    for line in text.splitlines():
        started = _STARTED.search(line)
        exited = _EXITED.search(line)
        if started:
            daemon = found.get(_name(started.group(1)))
            if daemon is not None:
                daemon.pid, daemon.exit = started.group(2), ""
        elif exited:
            daemon = found.get(_name(exited.group(1).lower()))
            if daemon is not None and daemon.pid == exited.group(2):
                daemon.exit = exited.group(3)


def _first_line(path: str) -> str:
    text = _text(path)
    return text.splitlines()[0].strip() if text else ""


def _text(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _process(pid: str) -> tuple[str, str] | None:
    """The live process's parent pid and command line; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().rstrip(b"\0").split(b"\0")
    except (OSError, IndexError):
        return None
    if fields[0] == "Z":  # exited, not yet reaped
        return None
    return fields[1], " ".join(a.decode(errors="replace") for a in argv)


def table(log_dir: str, found: dict[str, Daemon]) -> str:
    """HTCondor's print_daemon_info: one line per daemon with a pid, exit or address."""
    lines = ["", f'LOG directory "{log_dir}"', ""]
    lines.append(FORMAT % ("Daemon", "Alive", "PID", "PPID", "Exit", "Addr", "Executable"))
    lines.append(FORMAT % ("------", "-----", "---", "----", "----", "----", "----------"))
    for name in sorted(found):
        d = found[name]
        if not (d.pid or d.exit or d.addr):
            continue
        live = _process(d.pid) if d.pid and not d.exit else None
        pid = d.pid or "?" if not d.exit else "no"
        ppid, exe = live if live is not None else ("no", "")
        lines.append(
            FORMAT % (name, "yes" if live else "no", pid, ppid, d.exit or "no", d.addr, exe)
        )
    return "\n".join(lines) + "\n"
