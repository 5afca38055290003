"""Where a pool's files and daemons are, from the configuration: one table of locations."""

from __future__ import annotations

import os
from pathlib import Path

from condorx.config import Config


def _dir(cfg: Config, name: str, *fallback: str) -> Path:
    value = cfg.get(name)
    if value:
        return Path(value)
    for other in fallback:
        value = cfg.get(other)
        if value:
            return Path(value)
    local = cfg.get("LOCAL_DIR") or os.path.join(os.path.expanduser("~"), ".condorx")
    return Path(local) / name.lower()


def spool(cfg: Config) -> Path:
    return _dir(cfg, "SPOOL")


def log_dir(cfg: Config) -> Path:
    return _dir(cfg, "LOG")


def job_queue_db(cfg: Config) -> Path:
    name = cfg.get("JOB_QUEUE_DB")
    return Path(name) if name else spool(cfg) / "job_queue.db"


def history_file(cfg: Config) -> Path:
    name = cfg.get("HISTORY")
    return Path(name) if name else spool(cfg) / "history"


def schedd_socket(cfg: Config) -> Path:
    name = cfg.get("SCHEDD_SOCKET")
    return Path(name) if name else _dir(cfg, "LOCK", "LOG") / "schedd.sock"


def schedd_address_file(cfg: Config) -> Path:
    name = cfg.get("SCHEDD_ADDRESS_FILE")
    return Path(name) if name else log_dir(cfg) / ".schedd_address"


def pool_key_file(cfg: Config) -> Path:
    name = cfg.get("SEC_TOKEN_POOL_SIGNING_KEY_FILE")
    if name:
        return Path(name)
    local = cfg.get("LOCAL_DIR") or os.path.join(os.path.expanduser("~"), ".condorx")
    return Path(local) / "passwords.d" / "POOL"


def token_dir(cfg: Config) -> Path:
    name = cfg.get("SEC_TOKEN_DIRECTORY")
    return Path(name) if name else Path(os.path.expanduser("~")) / ".condorx" / "tokens.d"
