"""The table from submit commands to job ClassAd attributes, as HTCondor's condor_submit
maps them (its SetUniverse, SetExecutable, SetArguments, ... in submit_utils).

Each row is a function that reads the (expanded) commands it needs through `Values` and
returns the attributes it sets. Requirements are built in `requirements.py`, the
containers' attributes in `container.py`, the simple one-attribute commands from
`keywords.SIMPLE`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from condorx.classad import Expr
from condorx.language import argsyntax, concurrency
from condorx.language.attrs import HoldCode, JobStatus, Universe
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.keywords import SIMPLE, Kind
from condorx.language.submit.quantities import KIB_UNITS, MIB_UNITS, quantity
from condorx.language.submit.requests import GPU_PROPERTIES, custom_requests, is_undefined
from condorx.language.submit.universes import (
    PSEUDO_EXECUTABLE_GRIDS,
    SCHEDD_SIDE,
    grid_type,
    universe,
)
from condorx.language.submit.values import Values, references, signal_name, squeeze, unquoted

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

    Row = Callable[[Values], dict[str, Any]]
ROWS: list[Row] = []

# Every command some row reads: a name outside it that no value uses draws a warning.
KNOWN: set[str] = {"queue"}


def row(*commands: str) -> Callable[[Row], Row]:
    KNOWN.update(commands)

    def register(fn: Row) -> Row:
        ROWS.append(fn)
        return fn

    return register


@row("universe", "grid_resource", "vm_memory", "kill_sig", "machine_count")
def _universe(v: Values) -> dict[str, Any]:
    u = universe(v)
    if u == Universe.STANDARD:
        raise SubmitError(f"{v.where('universe')}: 'Standard' is not a supported universe.")
    out: dict[str, Any] = {"JobUniverse": int(u)}
    if v.given("kill_sig"):
        out["KillSig"] = signal_name(v, "kill_sig")
    elif u in (*SCHEDD_SIDE, Universe.JAVA, Universe.PARALLEL, Universe.VM):
        out["KillSig"] = "SIGTERM"
    if u == Universe.PARALLEL:
        out.update(_parallel(v))
    if u not in SCHEDD_SIDE:
        out["JobLeaseDuration"] = 2400
    return out


@row("remove_kill_sig", "hold_kill_sig")
def _other_signals(v: Values) -> dict[str, Any]:
    out = {}
    for command, attr in (("remove_kill_sig", "RemoveKillSig"), ("hold_kill_sig", "HoldKillSig")):
        if v.given(command):
            out[attr] = signal_name(v, command)
    return out


def _parallel(v: Values) -> dict[str, Any]:
    count = v.literal_or_expr("machine_count")
    if count is None:
        raise SubmitError(f"{v.where('universe')}: parallel universe jobs need machine_count")
    if not isinstance(count, int) or count < 1:
        raise SubmitError(f"{v.where('machine_count')}: machine_count must be a positive number")
    return {"MinHosts": count, "MaxHosts": count, "WantIOProxy": True, "JobRequiresSandbox": True}


@row(
    "executable",
    "initialdir",
    "transfer_executable",
    "docker_image",
    "container_image",
    "submit_file",
)
def _executable(v: Values) -> dict[str, Any]:
    """Cmd, relative to the submit directory (not initialdir), Iwd and JobSubmitFile."""
    u = universe(v)
    out: dict[str, Any] = {"Iwd": v.iwd()}
    submit_file = v.get("submit_file")
    if submit_file is not None:
        out["JobSubmitFile"] = submit_file
    cmd = v.get("executable")
    image = v.given("docker_image") or v.given("container_image")
    if cmd is None and image:
        out.update({"Cmd": "", "TransferExecutable": False})
        return out
    if cmd is None:
        raise SubmitError(f"{v.where('queue')}: No 'executable' parameter was provided")
    if u == Universe.JAVA:
        out.update({"Cmd": "java", "TransferExecutable": False})
        return out
    if u == Universe.VM or grid_type(v) in PSEUDO_EXECUTABLE_GRIDS:
        return out | {"Cmd": cmd, "TransferExecutable": False}
    # HTCondor reads only the first letter: anything but F... transfers it. An executable
    # that stays where it is is named as written (the execute side finds it from Iwd).
    if (v.get("transfer_executable") or "t")[0] in "fF":
        return out | {"Cmd": squeeze(cmd), "TransferExecutable": False}
    full = cmd if os.path.isabs(cmd) or "://" in cmd else os.path.join(v.submit_dir(), cmd)
    return out | {"Cmd": squeeze(full)}


@row("arguments", "universe", "executable")
def _arguments(v: Values) -> dict[str, Any]:
    raw = v.get("arguments")
    if universe(v) == Universe.JAVA:
        if raw is None:
            raise SubmitError(
                f"{v.where('universe')}: In Java universe, you must specify the class name"
                " to run. Example: arguments = MyClass"
            )
    if raw is None:
        # Blanks alone (`$(a) $(b)` with neither set) are an empty old-syntax list.
        return {"Args": ""} if v.text("arguments") else {"Arguments": ""}
    try:
        if argsyntax.is_v2(raw):
            return {"Arguments": argsyntax.join_v2(argsyntax.submit_v2(raw))}
        return {"Args": argsyntax.check_v1_args(raw)}
    except argsyntax.SyntaxProblem as e:
        raise SubmitError(f"{v.where('arguments')}: {e}") from None


def _stdio_row(command: str, attr: str, stream: str, transfer: str) -> None:
    """In, Out, Err: the path as written (the schedd reads it against Iwd)."""

    @row(command, stream, transfer)
    def stdio(v: Values) -> dict[str, Any]:
        path = v.get(command)
        if path is None or path == "/dev/null":
            return {attr: "/dev/null", f"Transfer{attr}": False}
        out: dict[str, Any] = {attr: path}
        if v.given(transfer) and not v.bool(transfer, True):
            out[f"Transfer{attr}"] = False
        else:
            out[f"Stream{attr}"] = v.bool(stream, False)
        return out


for _cmd, _attr, _stream, _xfer in (
    ("input", "In", "stream_input", "transfer_input"),
    ("output", "Out", "stream_output", "transfer_output"),
    ("error", "Err", "stream_error", "transfer_error"),
):
    _stdio_row(_cmd, _attr, _stream, _xfer)


@row("log", "initialdir")
def _log(v: Values) -> dict[str, Any]:
    path = v.get("log")
    return {"UserLog": v.in_iwd(path)} if path else {}


_DEFAULT_MEMORY = Expr(
    "ifthenelse(MemoryUsage isnt undefined,MemoryUsage,(ImageSize + 1023) / 1024)"
)


@row("request_cpus", "request_memory", "request_disk", "request_gpus", "universe")
def _requests(v: Values) -> dict[str, Any]:
    cpus = v.literal_or_expr("request_cpus")
    memory = quantity(v, "request_memory", MIB_UNITS)
    disk = quantity(v, "request_disk", KIB_UNITS)
    default_memory = Expr("MY.JobVMMemory") if universe(v) == Universe.VM else _DEFAULT_MEMORY
    out: dict[str, Any] = {
        "RequestCpus": 1 if cpus is None else cpus,  # (`undefined` is dropped below)
        "RequestMemory": default_memory if memory is None else memory,
        "RequestDisk": Expr("DiskUsage") if disk is None else disk,
    }
    # A batch system's job takes no default requests (HTCondor's UseDefaultResourceParams).
    if universe(v) == Universe.GRID and (v.get("grid_resource") or "").lower().startswith("batch"):
        given = {"RequestCpus": cpus, "RequestMemory": memory, "RequestDisk": disk}
        out = {k: val for k, val in given.items() if val is not None}
    gpus = v.literal_or_expr("request_gpus")
    if gpus is not None:
        out["RequestGPUs"] = gpus
    for suffix, command in custom_requests(v).items():
        out[f"Request{suffix}"] = v.literal_or_expr(command)
    # `request_cpus = undefined` asks for no attribute at all (HTCondor).
    return {k: val for k, val in out.items() if not is_undefined(val)}


@row("request_gpus", "require_gpus", *GPU_PROPERTIES, "cuda_version")
def _gpus(v: Values) -> dict[str, Any]:
    """A GPU job's RequireGPUs: the user's own clause and then one per property given."""
    out: dict[str, Any] = {}
    cuda = v.get("cuda_version")
    if cuda is not None:
        out["CUDAVersion"] = _cuda(v, cuda)
    if not v.given("request_gpus"):
        return out
    user = v.get("require_gpus")
    clauses = [f"({user})" if user and " " in user.strip() else user] if user else []
    for command, (attr, clause) in GPU_PROPERTIES.items():
        if not v.given(command):
            continue
        if command == "gpus_minimum_memory":
            out[attr] = quantity(v, command, MIB_UNITS)
        else:
            out[attr] = v.literal_or_expr(command)
        prop = clause.split()[0]
        if not (user and prop.lower() in user.lower()):
            clauses.append(clause)
    if clauses:
        text = " && ".join(c for c in clauses if c)
        out["RequireGPUs"] = v.parse(text, "require_gpus")
    return out


def _cuda(v: Values, text: str) -> int:
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?", text)
    if m is None:
        raise SubmitError(f"{v.where('cuda_version')}: cuda_version must be like 11.2")
    return int(m.group(1)) * 1000 + int(m.group(2) or 0)


@row("priority", "rank", "nice_user", "accounting_group", "accounting_group_user")
def _scheduling(v: Values) -> dict[str, Any]:
    prio = v.literal_or_expr("priority")
    out: dict[str, Any] = {"JobPrio": 0 if prio is None else prio, "Rank": 0.0}
    if v.given("rank"):
        out["Rank"] = v.literal_or_expr("rank")
    user = v.get("accounting_group_user") or str(v.facts["user"])
    group = v.get("accounting_group")
    if v.bool("nice_user", False):
        # A nice-user job gives way at once; an accounting_group given too wins the group.
        group = group or "nice-user"
        out["MaxJobRetirementTime"] = 0
    if group:
        out.update(AccountingGroup=f"{group}.{user}", AcctGroup=group, AcctGroupUser=user)
    elif v.given("accounting_group_user"):
        out.update(AccountingGroup=user, AcctGroupUser=user)
    return out


@row("hold")
def _hold(v: Values) -> dict[str, Any]:
    if v.bool("hold", False):
        return {
            "JobStatus": int(JobStatus.HELD),
            "HoldReason": "submitted on hold at user's request",
            "HoldReasonCode": int(HoldCode.SUBMITTED_ON_HOLD),
        }
    return {"JobStatus": int(JobStatus.IDLE)}


_POLICY = {
    "on_exit_remove": "OnExitRemove",
    "on_exit_hold": "OnExitHold",
    "periodic_hold": "PeriodicHold",
    "periodic_remove": "PeriodicRemove",
    "periodic_release": "PeriodicRelease",
    "on_exit_hold_reason": "OnExitHoldReason",
    "on_exit_hold_subcode": "OnExitHoldSubCode",
    "periodic_hold_reason": "PeriodicHoldReason",
    "periodic_hold_subcode": "PeriodicHoldSubCode",
    "periodic_vacate": "PeriodicVacate",
}


# What SUBMIT_INSERT_DEFAULT_POLICY_EXPRS writes for a policy the file leaves unset.
_DEFAULT_POLICY = {
    "PeriodicHold": False,
    "PeriodicRelease": False,
    "PeriodicRemove": False,
    "PeriodicVacate": False,
    "OnExitRemove": True,
    "OnExitHold": False,
}


@row(*_POLICY, "max_retries", "retry_until", "success_exit_code")
def _policy(v: Values) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for cmd, attr in _POLICY.items():
        value = v.literal_or_expr(cmd)
        if value is not None:
            out[attr] = value
    out.update(_retries(v, out))
    if v.facts.get("default_policy"):
        out = _DEFAULT_POLICY | out
    return out


def _retries(v: Values, policy: dict[str, Any]) -> dict[str, Any]:
    """max_retries: the job runs again until it succeeds or has run max_retries + 1 times."""
    retries = v.literal_or_expr("max_retries")
    success = v.literal_or_expr("success_exit_code")
    if retries is None and success is None and not v.given("retry_until"):
        return {}
    out: dict[str, Any] = {"OnExitHold": policy.get("OnExitHold", False)}
    if retries is None:
        retries = 2
    out["JobMaxRetries"] = retries
    code = "0"
    if success is not None:
        out["JobSuccessExitCode"] = success
        code = "JobSuccessExitCode"
    rule = f"NumJobCompletions > JobMaxRetries || ExitCode is {code}"
    until = v.get("retry_until")
    if until is not None:
        rule += f" || ExitCode is {until}" if until.lstrip("-").isdigit() else f" || ({until})"
    own = v.get("on_exit_remove")
    if own is not None:  # the user's own rule is one more way out
        rule += f" || ({own})"
    out["OnExitRemove"] = v.parse(rule, "on_exit_remove")
    return out


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
        value = v.literal_or_expr(cmd)
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
    from condorx.language.cron import ATTRIBUTES, CronError, CronSpec, parse

    try:
        parse(CronSpec(*(str(attrs[a]) for a in ATTRIBUTES)))
    except CronError as e:
        attr = getattr(e, "attribute", None)
        command = next((c for c, a in _CRON.items() if a == attr), "cron_minute")
        raise SubmitError(f"{v.where(command)}: {command}: {e}") from None


@row("x509userproxy", "use_x509userproxy")
def _proxy(v: Values) -> dict[str, Any]:
    path = v.get("x509userproxy")
    if path is not None:
        path = v.in_iwd(path)
    elif v.bool("use_x509userproxy", False):
        path = os.environ.get("X509_USER_PROXY") or f"/tmp/x509up_u{os.getuid()}"
    if path is None:
        return {}
    if not os.path.exists(path):
        raise SubmitError(f"{v.where('x509userproxy')}: unable to read proxy file {path}")
    return {"x509userproxy": path}


_NOTIFY = {"never": 0, "always": 1, "complete": 2, "error": 3}


@row("notification")
def _notification(v: Values) -> dict[str, Any]:
    n = v.choice("notification", list(_NOTIFY), "never")
    return {"JobNotification": _NOTIFY[n]}


@row("concurrency_limits", "concurrency_limits_expr")
def _concurrency(v: Values) -> dict[str, Any]:
    raw = v.get("concurrency_limits")
    if raw and v.given("concurrency_limits_expr"):
        raise SubmitError(
            f"{v.where('concurrency_limits')}: concurrency_limits and concurrency_limits_expr"
            " can't be used together"
        )
    if v.given("concurrency_limits_expr"):
        return {"ConcurrencyLimits": v.expr("concurrency_limits_expr")}
    if not raw:
        return {}
    names = sorted(concurrency.words(unquoted(raw).lower()))
    for name in names:
        if not concurrency.valid(name):
            raise SubmitError(
                f"{v.where('concurrency_limits')}: Invalid concurrency limit '{name}'"
            )
    return {"ConcurrencyLimits": ",".join(names)} if names else {}


# A service's token request: <service>_oauth_permissions, _resource or _options, maybe
# with a handle after it (`mytokens_oauth_permissions_read`).
_OAUTH_KEY = re.compile(r"_oauth_(permissions|resource|options)", re.IGNORECASE)


@row("use_oauth_services")
def _oauth(v: Values) -> dict[str, Any]:
    """The services' tokens the job needs, as HTCondor's NeedsOAuthServices lists them: a
    service each of whose requests has a handle is named `service*handle` for each, and
    the names are in case-blind order (a classad::References)."""
    raw = v.get("use_oauth_services")
    if raw is None:
        return {}
    enabled = {w.lower(): w for w in re.split(r"[,\s]+", raw) if w}
    names: list[str] = []
    with_handles: set[str] = set()
    for key in v.names():
        m = _OAUTH_KEY.search(key)
        if m is None or key.startswith("+") or key.lower().startswith("my."):
            continue
        service = key[: m.start()]
        if service.lower() not in enabled:
            continue
        if m.end() < len(key):  # a handle, after the `_` that follows
            with_handles.add(service.lower())
            service = f"{service}*{key[m.end() + 1 :]}"
        names.append(service)
    names += [name for low, name in enabled.items() if low not in with_handles]
    ordered = references(names)
    return {"OAuthServicesNeeded": ",".join(ordered)} if ordered else {}


@row("leave_in_queue")
def _leave(v: Values) -> dict[str, Any]:
    value = v.bool_or_expr("leave_in_queue")
    return {"LeaveJobInQueue": False if value is None else value}


@row("checkpoint_exit_code")
def _checkpoint(v: Values) -> dict[str, Any]:
    code = v.literal_or_expr("checkpoint_exit_code")
    if code is None:
        return {}
    return {"SuccessCheckpointExitCode": code, "WantFTOnCheckpoint": True}


def _simple_row(command: str, attr: str, kind: Kind) -> None:
    @row(command)
    def simple(v: Values) -> dict[str, Any]:
        raw = v.get(command)
        if raw is None:
            return {}
        if kind is Kind.STRING:
            return {attr: raw}
        if kind is Kind.STRIPPED:
            return {attr: unquoted(raw)}
        if kind is Kind.PATH:
            return {attr: v.in_iwd(unquoted(raw))}
        if kind is Kind.LIST:
            return {attr: ",".join(w for w in re.split(r"\s*,\s*|\s+", unquoted(raw)) if w)}
        if kind is Kind.BOOL:
            return {attr: v.bool_or_expr(command)}
        if kind is Kind.INT:
            if not re.fullmatch(r"\s*[-+]?\d+", raw):
                raise SubmitError(f"{v.where(command)}: invalid integer setting {command} = {raw}")
            return {attr: int(raw)}
        return {attr: v.literal_or_expr(command)}


for _command, (_attr, _kind) in SIMPLE.items():
    _simple_row(_command, _attr, _kind)
