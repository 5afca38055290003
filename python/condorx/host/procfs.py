"""A process's line in /proc/<pid>/stat, read by the starter (a job's usage, whether it
has stopped), the startd (the CPU a job uses) and the tests (whether a job is stopped)."""

from __future__ import annotations


def stat_fields(pid: int | str) -> list[str] | None:
    """The fields after the command name, from the state on (state, ppid, pgrp, session,
    ...: proc(5)'s fields 3 onwards); None when the process is gone. The command name may
    hold spaces and parentheses, so the fields start after its last closing paren."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()
