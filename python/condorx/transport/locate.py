"""Where a pool's files and daemons are, from the configuration: one table of locations.

Each location is a `str`, not a `pathlib.Path`: every command-line tool reads this table,
and pathlib (with the urllib.parse and ipaddress it loads) was an eighth of condor_q's
start-up, 18 of 150 million instructions. A daemon that wants a Path makes one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from os.path import join

from condorx.language.config import Config


def _dir(cfg: Config, name: str, *fallback: str) -> str:
    value = cfg.get(name)
    if value:
        return value
    for other in fallback:
        value = cfg.get(other)
        if value:
            return value
    return join(_local_dir(cfg), name.lower())


def _local_dir(cfg: Config) -> str:
    return cfg.get("LOCAL_DIR") or join(os.path.expanduser("~"), ".condorx")


def spool(cfg: Config) -> str:
    return _dir(cfg, "SPOOL")


def log_dir(cfg: Config) -> str:
    return _dir(cfg, "LOG")


def audit_log(cfg: Config) -> str:
    """AUDIT_LOG, else $(LOG)/AuditLog (HTCondor's SCHEDD_AUDIT_LOG default)."""
    path = cfg.get("AUDIT_LOG")
    return path or join(log_dir(cfg), "AuditLog")


def job_queue_db(cfg: Config) -> str:
    name = cfg.get("JOB_QUEUE_DB")
    return name or join(spool(cfg), "job_queue.db")


def history_file(cfg: Config) -> str:
    name = cfg.get("HISTORY")
    return name or join(spool(cfg), "history")


def schedd_socket(cfg: Config) -> str:
    name = cfg.get("SCHEDD_SOCKET")
    return name or join(_dir(cfg, "LOCK", "LOG"), "schedd.sock")


def schedd_address_file(cfg: Config) -> str:
    name = cfg.get("SCHEDD_ADDRESS_FILE")
    return name or join(log_dir(cfg), ".schedd_address")


def pool_key_file(cfg: Config) -> str:
    name = cfg.get("SEC_TOKEN_POOL_SIGNING_KEY_FILE")
    return name or join(_local_dir(cfg), "passwords.d", "POOL")


def token_dir(cfg: Config) -> str:
    name = cfg.get("SEC_TOKEN_DIRECTORY")
    return name or join(os.path.expanduser("~"), ".condorx", "tokens.d")


def grid_token_dir(cfg: Config) -> str:
    """The tokens this pool's schedd proves itself with to other pools' schedds."""
    name = cfg.get("GRIDMANAGER_TOKEN_DIRECTORY")
    return name or join(_local_dir(cfg), "grid_tokens.d")


def collector_address_file(cfg: Config) -> str:
    name = cfg.get("COLLECTOR_ADDRESS_FILE")
    return name or join(log_dir(cfg), ".collector_address")


def collector_socket(cfg: Config) -> str:
    """The collector's local socket, for this host's users (condor_status)."""
    name = cfg.get("COLLECTOR_SOCKET")
    return name or join(_dir(cfg, "LOCK", "LOG"), "collector.sock")


def collector_bind(cfg: Config) -> tuple[str, int]:
    """Where the collector listens: COLLECTOR_HOST's port (9618 when it names none), or a
    free port when COLLECTOR_HOST is not set (a personal pool finds it by its file)."""
    host = bind_host(cfg)
    named = cfg.get("COLLECTOR_HOST")
    if not named:
        return host, 0
    _, _, port = named.strip("<>").split("?")[0].rpartition(":")
    return host, int(port) if port.isdigit() else 9618


def collector_address(cfg: Config) -> str | None:
    """How clients reach the collector: COLLECTOR_HOST, else its address file."""
    named = cfg.get("COLLECTOR_HOST")
    if named:
        text = named.strip().strip("<>")
        if not text.endswith(":0"):  # port 0: a personal pool's, published in its file
            return text if ":" in text else f"{text}:9618"
    try:
        return read_address(collector_address_file(cfg))
    except OSError:
        return None


def bind_host(cfg: Config) -> str:
    """The interface daemons listen on (NETWORK_INTERFACE; `*` for all)."""
    host = cfg.get("NETWORK_INTERFACE") or "127.0.0.1"
    return "0.0.0.0" if host == "*" else host


def advertised_host(bound: str) -> str:
    """The host to give out for a socket bound to `bound`."""
    if bound not in ("0.0.0.0", ""):
        return bound
    import socket

    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


def sinful(bound: str, port: int, alias: str | None = None) -> str:
    """A daemon's address as HTCondor writes it (a sinful string), for a socket bound to
    `bound`: with `alias`, the host's name (HTCondor's SSL clients check the daemon's
    certificate against it), and `noUDP`, for condorx daemons serve TCP alone (HTCondor's
    clients would otherwise send some commands, such as RESCHEDULE, as UDP datagrams)."""
    named = f"alias={alias}&" if alias else ""
    return f"<{advertised_host(bound)}:{port}?{named}noUDP>"


def read(path: str) -> str:
    """A location's text (an address file's, a key's): OSError when it is not there."""
    with open(path) as f:
        return f.read()


def token_files(
    directory: str, unreadable: Callable[[str, str], None] | None = None
) -> list[str]:
    """The text of each token file in `directory` (a tokens.d), stripped, in name order
    as HTCondor reads them; a file that cannot be read is passed over (and told to
    `unreadable`, with why), a directory that is not there has none."""
    try:
        names = sorted(os.listdir(directory)) if directory else []
    except OSError:
        return []
    out = []
    for name in names:
        path = os.path.join(directory, name)
        try:
            out.append(read(path).strip())
        except (OSError, UnicodeDecodeError) as e:
            if unreadable is not None:
                why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
                unreadable(path, why)
    return out


def read_address(path: str) -> str:
    """A daemon's address from its address file: the file's first line."""
    return read(path).partition("\n")[0].strip()


def write_address(path: str | os.PathLike[str], address: str) -> None:
    """Publish a daemon's address atomically (readers never see half a line), and then,
    as HTCondor's daemons write the file, its version and platform: HTCondor's clients
    that find a daemon by this file take its version from it, and refuse a daemon with
    none (htcondor2.Schedd() run by a user who may not read the daemon's own ad).

    The file written first is this process's own: `.negotiator_address.neg2` and
    `.negotiator_address` once shared one (with_suffix made both `.negotiator_address.tmp`),
    and two negotiators starting together could publish each other's address."""
    from condorx.version import platform_string, version_string

    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = staging_file(path)
    with open(tmp, "w") as f:
        f.write(f"{address}\n{version_string()}\n{platform_string()}\n")
    os.replace(tmp, path)


def staging_file(path: str | os.PathLike[str]) -> str:
    """Where `write_address` writes `path`'s new text before it takes `path`'s place."""
    return f"{os.fspath(path)}.{os.getpid()}.tmp"


def negotiator_address_file(cfg: Config) -> str:
    name = cfg.get("NEGOTIATOR_ADDRESS_FILE")
    if name:
        return name
    # A negotiator run with -local-name beside the pool's own has an address of its own.
    local = f".{cfg.local_name.lower()}" if cfg.local_name else ""
    return join(log_dir(cfg), f".negotiator_address{local}")


def startd_address_file(cfg: Config) -> str:
    name = cfg.get("STARTD_ADDRESS_FILE")
    return name or join(log_dir(cfg), ".startd_address")


def job_router_address_file(cfg: Config) -> str:
    name = cfg.get("JOB_ROUTER_ADDRESS_FILE")
    return name or join(log_dir(cfg), ".job_router_address")


def defrag_address_file(cfg: Config) -> str:
    name = cfg.get("DEFRAG_ADDRESS_FILE")
    return name or join(log_dir(cfg), ".defrag_address")


def sim_address_file(cfg: Config) -> str:
    """Where the pool simulator (all its machines) answers."""
    return join(log_dir(cfg), ".sim_address")


def execute_dir(cfg: Config) -> str:
    return _dir(cfg, "EXECUTE")


def master_address_file(cfg: Config) -> str:
    name = cfg.get("MASTER_ADDRESS_FILE")
    return name or join(log_dir(cfg), ".master_address")


def master_socket(cfg: Config) -> str:
    return join(_dir(cfg, "LOCK", "LOG"), "master.sock")
