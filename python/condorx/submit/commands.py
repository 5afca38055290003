"""The table from submit commands to job ClassAd attributes, as condor_submit maps them.

Each row is a function that reads the (expanded) commands it needs through `Values` and
returns the attributes it sets. `Values` records what each row read, so that for procs
after the first only the rows that read a command whose value changed are run again.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from condorx.attrs import HoldCode, JobStatus, Universe
from condorx.classad import ExprTree
from condorx.submit.errors import SubmitError
from condorx.wire import Expr

Row = Callable[["Values"], dict[str, Any]]
ROWS: list[Row] = []

# Commands a row reads; any other name in a submit file must be a macro some value uses.
KNOWN: set[str] = set()


def row(*commands: str) -> Callable[[Row], Row]:
    KNOWN.update(commands)

    def register(fn: Row) -> Row:
        ROWS.append(fn)
        return fn

    return register


class Values:
    """One proc's expanded command values, with the line each came from for errors."""

    def __init__(
        self,
        get: Callable[[str], str | None],
        where: Callable[[str], str],
        facts: dict[str, str],
    ) -> None:
        self._get = get
        self.where = where
        self.facts = facts  # submit-side facts: cwd, ARCH, OPSYS, FILESYSTEM_DOMAIN, ...
        self.reads: set[str] = set()
        self._iwd: str | None = None

    def get(self, name: str) -> str | None:
        self.reads.add(name)
        v = self._get(name)
        return v if v else None

    def bool(self, name: str, default: bool) -> bool:
        v = self.get(name)
        if v is None:
            return default
        low = v.strip().lower()
        if low in ("true", "yes", "t", "y", "1"):
            return True
        if low in ("false", "no", "f", "n", "0"):
            return False
        raise SubmitError(f"{self.where(name)}: {name} must be true or false, not {v!r}")

    def choice(self, name: str, choices: Sequence[str], default: str) -> str:
        """A value that must be one of `choices` (compared without case)."""
        value = (self.get(name) or default).strip()
        for c in choices:
            if value.lower() == c.lower():
                return c
        raise SubmitError(
            f"{self.where(name)}: {name} must be one of {', '.join(choices)}, not {value!r}"
        )

    def iwd(self) -> str:
        if self._iwd is None:
            base = self.facts["cwd"]
            d = self.get("initialdir") or self.get("initial_dir")
            self._iwd = os.path.normpath(os.path.join(base, d)) if d else base
        return self._iwd

    def path(self, name: str) -> str | None:
        v = self.get(name)
        if v is None:
            return None
        return v if os.path.isabs(v) else os.path.normpath(os.path.join(self.iwd(), v))

    def expr(self, name: str) -> Expr | None:
        v = self.get(name)
        if v is None:
            return None
        try:
            return Expr(str(ExprTree(v)))
        except ValueError as e:
            raise SubmitError(
                f"{self.where(name)}: {name} is not a valid expression: {e}"
            ) from None


def _literal_or_expr(v: Values, name: str) -> Any:
    """A value that may be a plain number or an expression (priority, deferral_time, ...)."""
    e = v.expr(name)
    if e is None:
        return None
    try:
        return int(e.text)
    except ValueError:
        return e


UNIVERSES = {
    "vanilla": Universe.VANILLA,
    "scheduler": Universe.SCHEDULER,
    "local": Universe.LOCAL,
    "grid": Universe.GRID,
    "java": Universe.JAVA,
    "parallel": Universe.PARALLEL,
    "vm": Universe.VM,
    "container": Universe.CONTAINER,
    "docker": Universe.VANILLA,
}


def universe(v: Values) -> Universe:
    name = (v.get("universe") or "vanilla").strip().lower()
    if name.isdigit() and int(name) in {u.value for u in Universe}:
        return Universe(int(name))
    if name not in UNIVERSES:
        known = ", ".join(sorted(UNIVERSES))
        raise SubmitError(f"{v.where('universe')}: unknown universe {name!r} (one of {known})")
    return UNIVERSES[name]


@row("universe", "grid_resource")
def _universe(v: Values) -> dict[str, Any]:
    u = universe(v)
    out: dict[str, Any] = {"JobUniverse": int(u)}
    grid = v.get("grid_resource")
    if u == Universe.GRID:
        if not grid:
            raise SubmitError(f"{v.where('universe')}: grid universe jobs need grid_resource")
        out["GridResource"] = grid
    elif grid:
        out["GridResource"] = grid
    return out


@row("executable", "initialdir", "initial_dir", "transfer_executable")
def _executable(v: Values) -> dict[str, Any]:
    cmd = v.path("executable")
    if cmd is None:
        raise SubmitError(f"{v.where('queue')}: no executable was given (executable = ...)")
    out: dict[str, Any] = {"Cmd": cmd, "Iwd": v.iwd()}
    if v.get("transfer_executable") is not None:
        out["TransferExecutable"] = v.bool("transfer_executable", True)
    return out


@row("arguments", "args")
def _arguments(v: Values) -> dict[str, Any]:
    raw = v.get("arguments") or v.get("args")
    if raw is None:
        return {"Args": ""}
    text = raw.strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        inner = text[1:-1].replace('""', '"')
        _check_v2(inner, v.where("arguments"))
        return {"Arguments": inner}
    if '"' in text:
        raise SubmitError(
            f"{v.where('arguments')}: a double quote in old-syntax arguments; "
            "surround the whole value with double quotes to use the new syntax"
        )
    return {"Args": text}


def _check_v2(inner: str, where: str) -> None:
    try:
        shlex.split(inner.replace("\\", "\\\\"))
    except ValueError as e:
        raise SubmitError(f"{where}: bad new-syntax arguments: {e}") from None


@row("environment", "env", "getenv")
def _environment(v: Values) -> dict[str, Any]:
    out: dict[str, Any] = {}
    raw = v.get("environment") or v.get("env")
    if raw is not None:
        text = raw.strip()
        if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
            inner = text[1:-1].replace('""', '"')
            for word in _env_words(inner, v.where("environment")):
                if "=" not in word:
                    raise SubmitError(f"{v.where('environment')}: {word!r} is not NAME=value")
            out["Environment"] = inner
        else:
            for part in text.split(";"):
                if part.strip() and "=" not in part:
                    raise SubmitError(f"{v.where('environment')}: {part!r} is not NAME=value")
            out["Env"] = text
    getenv = v.get("getenv")
    if getenv is not None:
        out["GetEnv"] = v.bool("getenv", False) if getenv.lower() in _BOOLS else True
    return out


_BOOLS = {"true", "false", "yes", "no", "t", "f", "y", "n", "1", "0"}


def _env_words(inner: str, where: str) -> list[str]:
    try:
        return shlex.split(inner)
    except ValueError as e:
        raise SubmitError(f"{where}: bad new-syntax environment: {e}") from None


def _file_row(command: str, attr: str, default: str | None) -> None:
    """One row per file command: a proc whose output differs re-runs only that row."""

    @row(command, "initialdir", "initial_dir")
    def file_attr(v: Values) -> dict[str, Any]:
        path = v.path(command) or default
        return {attr: path} if path else {}


for _cmd, _attr, _default in (
    ("input", "In", "/dev/null"),
    ("output", "Out", "/dev/null"),
    ("error", "Err", "/dev/null"),
    ("log", "UserLog", None),
):
    _file_row(_cmd, _attr, _default)


@row("stream_output", "stream_error")
def _streams(v: Values) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for cmd, attr in (("stream_output", "StreamOut"), ("stream_error", "StreamErr")):
        if v.get(cmd) is not None:
            out[attr] = v.bool(cmd, False)
    return out


_MEMORY_UNITS = {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}
_DISK_UNITS = {"k": 1, "m": 1024, "g": 1024 * 1024, "t": 1024 * 1024 * 1024}
_WITH_UNIT = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*([KMGT])(?:i?B)?\s*$", re.IGNORECASE)


def _quantity(v: Values, name: str, units: Mapping[str, float]) -> Any:
    raw = v.get(name)
    if raw is None:
        return None
    m = _WITH_UNIT.match(raw)
    if m:
        return max(1, int(-(-float(m.group(1)) * units[m.group(2).lower()] // 1)))
    try:
        n = float(raw)
    except ValueError:
        return v.expr(name)
    if n < 0:
        raise SubmitError(f"{v.where(name)}: {name} must not be negative")
    return int(n) if n == int(n) else n


@row("request_cpus", "request_memory", "request_disk", "request_gpus")
def _requests(v: Values) -> dict[str, Any]:
    cpus = _literal_or_expr(v, "request_cpus")
    memory = _quantity(v, "request_memory", _MEMORY_UNITS)
    disk = _quantity(v, "request_disk", _DISK_UNITS)
    out: dict[str, Any] = {
        "RequestCpus": 1 if cpus is None else cpus,
        "RequestMemory": memory
        if memory is not None
        else Expr("ifThenElse(MemoryUsage =!= undefined, MemoryUsage, (ImageSize + 1023) / 1024)"),
        "RequestDisk": disk if disk is not None else Expr("DiskUsage"),
    }
    gpus = _literal_or_expr(v, "request_gpus")
    if gpus is not None:
        out["RequestGPUs"] = gpus
    return out


@row("priority", "prio", "rank", "nice_user", "batch_name", "accounting_group")
def _scheduling(v: Values) -> dict[str, Any]:
    prio = _literal_or_expr(v, "priority") if v.get("priority") else _literal_or_expr(v, "prio")
    out: dict[str, Any] = {
        "JobPrio": 0 if prio is None else prio,
        "Rank": v.expr("rank") or 0.0,
        "NiceUser": v.bool("nice_user", False),
    }
    if v.get("batch_name"):
        out["JobBatchName"] = v.get("batch_name")
    if v.get("accounting_group"):
        out["AcctGroup"] = v.get("accounting_group")
    return out


@row("hold")
def _hold(v: Values) -> dict[str, Any]:
    if v.bool("hold", False):
        return {"JobStatus": int(JobStatus.HELD), "HoldReasonCode": int(HoldCode.SUBMITTED_ON_HOLD)}
    return {"JobStatus": int(JobStatus.IDLE)}


_POLICY = {
    "on_exit_remove": ("OnExitRemove", True),
    "on_exit_hold": ("OnExitHold", False),
    "periodic_hold": ("PeriodicHold", False),
    "periodic_remove": ("PeriodicRemove", False),
    "periodic_release": ("PeriodicRelease", False),
}
_POLICY_EXTRA = {
    "on_exit_hold_reason": "OnExitHoldReason",
    "on_exit_hold_subcode": "OnExitHoldSubCode",
    "periodic_hold_reason": "PeriodicHoldReason",
    "periodic_hold_subcode": "PeriodicHoldSubCode",
}


@row(*_POLICY, *_POLICY_EXTRA)
def _policy(v: Values) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for cmd, (attr, default) in _POLICY.items():
        e = v.expr(cmd)
        out[attr] = default if e is None else _bool_literal(e)
    for cmd, attr in _POLICY_EXTRA.items():
        e = v.expr(cmd)
        if e is not None:
            out[attr] = e
    return out


def _bool_literal(e: Expr) -> Any:
    low = e.text.lower()
    return True if low == "true" else False if low == "false" else e


_DEFERRAL = {
    "deferral_time": "DeferralTime",
    "deferral_window": "DeferralWindow",
    "deferral_prep_time": "DeferralPrepTime",
}
_CRON = {
    "cron_minute": "CronMinute",
    "cron_hour": "CronHour",
    "cron_day_of_month": "CronDayOfMonth",
    "cron_month": "CronMonth",
    "cron_day_of_week": "CronDayOfWeek",
}
_CRON_TIMES = {"cron_prep_time": "CronPrepTime", "cron_window": "CronWindow"}


@row(*_DEFERRAL, *_CRON, *_CRON_TIMES)
def _deferral(v: Values) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for cmd, attr in {**_DEFERRAL, **_CRON_TIMES}.items():
        value = _literal_or_expr(v, cmd)
        if value is not None:
            out[attr] = value
    cron = {attr: v.get(cmd) for cmd, attr in _CRON.items() if v.get(cmd) is not None}
    if cron:
        out.update({attr: cron.get(attr, "*") for attr in _CRON.values()})
        _check_cron(v, out)
    given = [c for c in (*_DEFERRAL, *_CRON, *_CRON_TIMES) if v.get(c) is not None]
    if given and universe(v) == Universe.SCHEDULER:
        raise SubmitError(
            f"{v.where(given[0])}: {given[0]}: job deferral and cron scheduling do not apply"
            " to the scheduler universe"
        )
    return out


def _check_cron(v: Values, attrs: dict[str, Any]) -> None:
    """A bad schedule is refused here, naming the command and why (cron_hour = 25)."""
    from condorx.cron import ATTRIBUTES, CronError, CronSpec, parse

    try:
        parse(CronSpec(*(str(attrs[a]) for a in ATTRIBUTES)))
    except CronError as e:
        attr = getattr(e, "attribute", None)
        command = next((c for c, a in _CRON.items() if a == attr), "cron_minute")
        raise SubmitError(f"{v.where(command)}: {command}: {e}") from None


_TRANSFER = ("YES", "NO", "IF_NEEDED")
_WHEN = ("ON_EXIT", "ON_EXIT_OR_EVICT", "ON_SUCCESS")


@row(
    "should_transfer_files",
    "when_to_transfer_output",
    "transfer_input_files",
    "transfer_output_files",
)
def _transfer(v: Values) -> dict[str, Any]:
    should = v.choice("should_transfer_files", _TRANSFER, "IF_NEEDED")
    when = v.choice("when_to_transfer_output", _WHEN, "ON_EXIT")
    out: dict[str, Any] = {"ShouldTransferFiles": should, "WhenToTransferOutput": when}
    if v.get("transfer_input_files"):
        out["TransferInput"] = _file_list(v.get("transfer_input_files") or "")
    if v.get("transfer_output_files"):
        out["TransferOutput"] = _file_list(v.get("transfer_output_files") or "")
    return out


def _file_list(text: str) -> str:
    return ",".join(p.strip() for p in re.split(r"[,\s]+", text) if p.strip())


@row("x509userproxy", "use_x509userproxy")
def _proxy(v: Values) -> dict[str, Any]:
    path = v.path("x509userproxy")
    if path is None and v.bool("use_x509userproxy", False):
        path = os.environ.get("X509_USER_PROXY") or f"/tmp/x509up_u{os.getuid()}"
    if path is None:
        return {}
    if not os.path.exists(path):
        raise SubmitError(f"{v.where('x509userproxy')}: the proxy file {path} does not exist")
    return {"x509userproxy": path}


_NOTIFY = {"never": 0, "always": 1, "complete": 2, "error": 3}


@row("notification", "notify_user")
def _notification(v: Values) -> dict[str, Any]:
    n = v.choice("notification", list(_NOTIFY), "never")
    out: dict[str, Any] = {"JobNotification": _NOTIFY[n]}
    if v.get("notify_user"):
        out["NotifyUser"] = v.get("notify_user")
    return out


@row("requirements")
def _requirements(v: Values) -> dict[str, Any]:
    """The user's Requirements with the clauses condor_submit appends, each left out when
    the user's expression already speaks of that attribute."""
    user = v.expr("requirements")
    text = user.text if user else ""
    clauses = []
    if universe(v) in (Universe.SCHEDULER, Universe.LOCAL, Universe.GRID):
        return {"Requirements": Expr(f"({text})" if text else "true")}
    mentioned = {m.lower() for m in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)}
    if "arch" not in mentioned:
        clauses.append(f'(TARGET.Arch == "{v.facts["arch"]}")')
    if "opsys" not in mentioned:
        clauses.append(f'(TARGET.OpSys == "{v.facts["opsys"]}")')
    if "disk" not in mentioned:
        clauses.append("(TARGET.Disk >= RequestDisk)")
    if "memory" not in mentioned:
        clauses.append("(TARGET.Memory >= RequestMemory)")
    should = (v.get("should_transfer_files") or "IF_NEEDED").strip().upper()
    if should == "YES":
        clauses.append("(TARGET.HasFileTransfer)")
    elif should == "NO":
        clauses.append("(TARGET.FileSystemDomain == MY.FileSystemDomain)")
    else:
        clauses.append(
            "((TARGET.HasFileTransfer) || (TARGET.FileSystemDomain == MY.FileSystemDomain))"
        )
    # The schedd appends the prep-time clause, whoever submits the job.
    if text:
        clauses.insert(0, f"({text})")
    return {"Requirements": Expr(" && ".join(clauses)), "FileSystemDomain": v.facts["fs_domain"]}


# Commands the description may use that no row reads: they steer condor_submit itself.
KNOWN.update({"queue"})
