#!/usr/bin/env python3
"""A real work source for condorx's job hooks: a SQLite table of work units that an
outside program fills, that startds fetch from, and that records what became of each.

As a program:
    workq.py add [--iwd DIR] [--out F] [--err F] [--attr NAME=VALUE ...] CMD [ARG ...]
    workq.py status                 one line per unit: id, state, slot, exit, updates
    workq.py events [ID]            what the hooks reported, oldest first
As hooks (each script beside this one calls `hook(<name>)`):
    fetch_work                      hand out the oldest pending unit as a job ad
    reply_fetch accept|reject       accepted units are the slot's; rejected go back
    evict_claim                     an evicted unit goes back to pending
    prepare_job                     make the unit's Iwd; refuse a Cmd that cannot run
    update_job_info                 record the job's progress (state, pids, CPU, size)
    job_exit exit|evict|hold|remove record how it ended; `exit` finishes the unit

The database is $WORKQ_DB, else work.db beside this file. It uses only the standard
library: the hooks run under the system's python3, not condorx's.
"""

from __future__ import annotations

import os
import pwd
import sqlite3
import sys
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS units (
    id INTEGER PRIMARY KEY,
    cmd TEXT NOT NULL,
    args TEXT NOT NULL DEFAULT '',
    iwd TEXT NOT NULL,
    out TEXT NOT NULL DEFAULT '/dev/null',
    err TEXT NOT NULL DEFAULT '/dev/null',
    owner TEXT NOT NULL DEFAULT '',      -- who added it: the account it runs as
    attrs TEXT NOT NULL DEFAULT '',      -- more job ad lines, NAME = VALUE
    state TEXT NOT NULL DEFAULT 'pending',  -- pending, offered, running, done
    slot TEXT,
    fetches INTEGER NOT NULL DEFAULT 0,
    rejects INTEGER NOT NULL DEFAULT 0,
    evictions INTEGER NOT NULL DEFAULT 0,
    updates INTEGER NOT NULL DEFAULT 0,
    job_state TEXT,
    exit_how TEXT,
    exit_code INTEGER,
    exit_signal INTEGER,
    duration REAL
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    unit INTEGER,
    hook TEXT NOT NULL,
    detail TEXT NOT NULL,
    at REAL NOT NULL
);
"""


def db() -> sqlite3.Connection:
    path = os.environ.get("WORKQ_DB") or str(Path(__file__).resolve().parent / "work.db")
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(units)")}
    if "owner" not in columns:  # a queue made before units recorded who added them
        conn.execute("ALTER TABLE units ADD COLUMN owner TEXT NOT NULL DEFAULT ''")
    return conn


# -- ads, in the old syntax the hooks are given ------------------------------------------


def parse_ads(text: str) -> list[dict[str, str]]:
    """The ads on standard input (separated by `-----`), attribute -> value text."""
    ads: list[dict[str, str]] = [{}]
    for line in text.splitlines():
        if line.strip() == "-----":
            ads.append({})
            continue
        name, eq, value = line.partition("=")
        if eq and name.strip():
            ads[-1][name.strip().lower()] = value.strip()
    return ads


def unquote(value: str | None) -> str:
    if value and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return value or ""


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def unit_of(ad: dict[str, str]) -> int | None:
    try:
        return int(ad.get("workqid", ""))
    except ValueError:
        return None


def job_ad(row: sqlite3.Row) -> str:
    lines = [
        f"WorkqId = {row['id']}",
        f"ClusterId = {row['id']}",
        "ProcId = 0",
        f"Cmd = {quote(row['cmd'])}",
        f"Arguments = {quote(row['args'])}",
        f"Iwd = {quote(row['iwd'])}",
        f"Out = {quote(row['out'])}",
        f"Err = {quote(row['err'])}",
        'In = "/dev/null"',
        "JobUniverse = 5",
        f"Owner = {quote(row['owner'] or 'nobody')}",
    ]
    lines += [ln for ln in row["attrs"].splitlines() if ln.strip()]
    return "\n".join(lines) + "\n"


# -- the hooks ------------------------------------------------------------------------------


def note(conn: sqlite3.Connection, unit: int | None, hook: str, detail: str) -> None:
    conn.execute(
        "INSERT INTO events (unit, hook, detail, at) VALUES (?, ?, ?, ?)",
        (unit, hook, detail, time.time()),
    )


def fetch_work(conn: sqlite3.Connection, args: list[str], ads: list[dict[str, str]]) -> None:
    slot = unquote(ads[0].get("name"))
    conn.execute("BEGIN IMMEDIATE")  # one unit to one slot, however many ask at once
    row = conn.execute("SELECT * FROM units WHERE state = 'pending' ORDER BY id LIMIT 1").fetchone()
    if row is not None:
        conn.execute(
            "UPDATE units SET state = 'offered', slot = ?, fetches = fetches + 1 WHERE id = ?",
            (slot, row["id"]),
        )
        note(conn, row["id"], "fetch_work", slot)
    else:
        note(conn, None, "fetch_work", f"{slot} found no work")
    conn.execute("COMMIT")
    if row is not None:
        sys.stdout.write(job_ad(row))


def reply_fetch(conn: sqlite3.Connection, args: list[str], ads: list[dict[str, str]]) -> None:
    verdict = args[0] if args else "?"
    unit = unit_of(ads[0])
    slot = unquote(ads[1].get("name")) if len(ads) > 1 else ""
    note(conn, unit, "reply_fetch", f"{verdict} {slot}".strip())
    if unit is None:
        return
    if verdict == "accept":
        conn.execute(
            "UPDATE units SET state = 'running' WHERE id = ? AND state = 'offered'", (unit,)
        )
    else:
        conn.execute(
            "UPDATE units SET state = 'pending', slot = NULL, rejects = rejects + 1 "
            "WHERE id = ? AND state = 'offered'",
            (unit,),
        )


def evict_claim(conn: sqlite3.Connection, args: list[str], ads: list[dict[str, str]]) -> None:
    unit = unit_of(ads[0])
    note(conn, unit, "evict_claim", unquote(ads[1].get("name")) if len(ads) > 1 else "")
    if unit is not None:
        conn.execute(
            "UPDATE units SET state = 'pending', slot = NULL, evictions = evictions + 1 "
            "WHERE id = ? AND state != 'done'",
            (unit,),
        )


def prepare_job(conn: sqlite3.Connection, args: list[str], ads: list[dict[str, str]]) -> None:
    job = ads[0]
    unit = unit_of(job)
    cmd, iwd = unquote(job.get("cmd")), unquote(job.get("iwd"))
    if iwd:
        Path(iwd).mkdir(parents=True, exist_ok=True)
    if not os.access(cmd, os.X_OK):
        note(conn, unit, "prepare_job", f"cannot run {cmd}")
        if unit is not None:  # it would fail anywhere: done, and failed
            conn.execute(
                "UPDATE units SET state = 'done', exit_how = 'failed' WHERE id = ?", (unit,)
            )
        print(f"workq: {cmd} is not an executable file", file=sys.stderr)
        sys.exit(3)
    note(conn, unit, "prepare_job", f"ready in {iwd}")


def update_job_info(conn: sqlite3.Connection, args: list[str], ads: list[dict[str, str]]) -> None:
    job = ads[0]
    unit = unit_of(job)
    fields = (
        "jobstate",
        "jobpid",
        "numpids",
        "jobstartdate",
        "remoteusercpu",
        "remotesyscpu",
        "imagesize",
    )
    detail = " ".join(f"{f}={unquote(job.get(f))}" for f in fields)
    note(conn, unit, "update_job_info", detail)
    if unit is not None:
        conn.execute(
            "UPDATE units SET updates = updates + 1, job_state = ? WHERE id = ?",
            (unquote(job.get("jobstate")), unit),
        )


def job_exit(conn: sqlite3.Connection, args: list[str], ads: list[dict[str, str]]) -> None:
    how = args[0] if args else "?"
    job = ads[0]
    unit = unit_of(job)
    code = job.get("exitcode")
    sig = job.get("exitsignal")
    keyword = unquote(job.get("hookkeyword"))
    note(conn, unit, "job_exit", f"{how} [{keyword}] {unquote(job.get('exitreason'))}")
    if unit is None:
        return
    conn.execute(
        "UPDATE units SET exit_how = ?, exit_code = ?, exit_signal = ?, duration = ?,"
        " state = CASE WHEN ? = 'exit' THEN 'done' ELSE state END WHERE id = ?",
        (
            how,
            int(code) if code and code.lstrip("-").isdigit() else None,
            int(sig) if sig and sig.isdigit() else None,
            float(job.get("jobduration") or 0),
            how,
            unit,
        ),
    )


HOOKS = {
    "fetch_work": fetch_work,
    "reply_fetch": reply_fetch,
    "evict_claim": evict_claim,
    "prepare_job": prepare_job,
    "update_job_info": update_job_info,
    "job_exit": job_exit,
}


def hook(name: str) -> None:
    """Run hook `name`: its arguments from argv, its ads from standard input."""
    ads = parse_ads(sys.stdin.read())
    conn = db()
    conn.row_factory = sqlite3.Row
    HOOKS[name](conn, sys.argv[1:], ads)


# -- the outside program ----------------------------------------------------------------------


def add(argv: list[str]) -> None:
    opts = {"iwd": os.getcwd(), "out": "/dev/null", "err": "/dev/null"}
    attrs: list[str] = []
    while argv and argv[0].startswith("--"):
        flag, value = argv[0][2:], argv[1]
        argv = argv[2:]
        if flag == "attr":
            name, _, v = value.partition("=")
            attrs.append(f"{name.strip()} = {v.strip()}")
        else:
            opts[flag] = value
    if not argv:
        sys.exit("workq add: which command?")
    conn = db()
    cur = conn.execute(
        "INSERT INTO units (cmd, args, iwd, out, err, owner, attrs) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            argv[0],
            " ".join(argv[1:]),
            opts["iwd"],
            opts["out"],
            opts["err"],
            pwd.getpwuid(os.getuid()).pw_name,  # a root startd runs it as this account
            "\n".join(attrs),
        ),
    )
    print(cur.lastrowid)


def status() -> None:
    conn = db()
    rows = conn.execute(
        "SELECT id, state, slot, exit_how, exit_code, updates, fetches, rejects, evictions"
        " FROM units ORDER BY id"
    )
    for row in rows:
        print(" ".join("-" if v is None else str(v) for v in row))


def events(argv: list[str]) -> None:
    conn = db()
    where, params = ("WHERE unit = ?", (int(argv[0]),)) if argv else ("", ())
    for unit, name, detail in conn.execute(
        f"SELECT unit, hook, detail FROM events {where} ORDER BY seq", params
    ):
        print(f"{unit if unit is not None else '-'} {name} {detail}")


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in ("add", "status", "events"):
        sys.exit(__doc__)
    cmd, rest = sys.argv[1], sys.argv[2:]
    if cmd == "add":
        add(rest)
    elif cmd == "status":
        status()
    else:
        events(rest)


if __name__ == "__main__":
    main()
