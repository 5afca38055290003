"""Requirements as HTCondor's make_requirements builds them: the user's expression, then a
clause for each thing the job needs that the expression does not already speak of, in
HTCondor's order (platform, disk, memory, cpus, gpus, other requested resources, file
system or transfer, checkpointing, CUDA)."""

from __future__ import annotations

import re

from condorx.classad import Expr
from condorx.language.attrs import Universe
from condorx.language.submit import container, transfer, vm
from condorx.language.submit.commands import row
from condorx.language.submit.requests import GPU_PROPERTIES, requested_tags
from condorx.language.submit.universes import SCHEDD_SIDE, universe
from condorx.language.submit.values import Values

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

# Per-file encryption lists: any of them needs a machine that encrypts per file.
_ENCRYPTION_LISTS = (
    "dont_encrypt_input_files",
    "dont_encrypt_output_files",
    "encrypt_input_files",
    "encrypt_output_files",
)


@row(
    "requirements",
    "universe",
    "grid_resource",
    "request_cpus",
    "request_gpus",
    "require_gpus",
    "gpus_minimum_memory",
    "gpus_minimum_capability",
    "cuda_version",
    "encrypt_execute_directory",
    "checkpoint_exit_code",
    "preserve_relative_paths",
    "transfer_checkpoint_files",
    "when_to_transfer_output",
    "vm_type",
    "vm_checkpoint",
    "vm_networking",
    "vm_networking_type",
    "xen_kernel",
    *_ENCRYPTION_LISTS,
)
def _requirements(v: Values) -> dict[str, Any]:
    user = v.expr("requirements")
    text = user.text if user else ""
    mentioned = {m.lower() for m in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)}
    u = universe(v)
    clauses = [f"({text})"] if text else []
    out: dict[str, Any] = {}
    if transfer.should(v) != "YES":
        out["FileSystemDomain"] = v.facts["fs_domain"]
    if u == Universe.GRID and not (v.get("grid_resource") or "").lower().startswith("condor"):
        # Another batch system's job: its own system decides where it runs.
        return out | {"Requirements": Expr(" && ".join(clauses) or "true")}
    clauses += _platform(v, u, mentioned)
    clauses += _resources(v, u, mentioned)
    if u not in SCHEDD_SIDE:
        clauses.append(_file_system(v))
    if v.given("checkpoint_exit_code"):
        clauses.append("TARGET.HasSelfCheckpointTransfers")
    if v.given("cuda_version"):
        clauses.append("CUDAVersion <= TARGET.CUDAMaxSupportedVersion")
    out["Requirements"] = Expr(" && ".join(clauses) or "true")
    return out


def _platform(v: Values, u: Universe, mentioned: set[str]) -> list[str]:
    if u == Universe.JAVA:
        return [] if "hasjava" in mentioned else ["TARGET.HasJava"]
    out = []
    if "arch" not in mentioned:
        out.append(f'(TARGET.Arch == "{v.facts["arch"]}")')
    if u == Universe.VM:
        return out + vm.requirement_clauses(v, mentioned)
    box = container.requirement_clauses(v)
    if box:
        out += box
    elif "opsys" not in mentioned:
        out.append(f'(TARGET.OpSys == "{v.facts["opsys"]}")')
    return out


def _resources(v: Values, u: Universe, mentioned: set[str]) -> list[str]:
    # Disk and Memory clauses stand even where the user's expression names them (HTCondor).
    out = ["(TARGET.Disk >= RequestDisk)"]
    if u == Universe.VM:
        out += vm.memory_clauses(v, mentioned)
    else:
        out.append("(TARGET.Memory >= RequestMemory)")
    if v.bool("encrypt_execute_directory", False):
        out.append("TARGET.HasEncryptExecuteDirectory")
    cpus = v.literal_or_expr("request_cpus")
    wants_cpus = isinstance(cpus, int | float) and cpus > 1 or _is_expression(cpus)
    if wants_cpus and "cpus" not in mentioned:
        out.append("(TARGET.Cpus >= RequestCpus)")
    for tag in requested_tags(v):
        if tag.lower() not in mentioned:
            out.append(_resource_clause(v, tag))
    return out


def _is_expression(value: Any) -> bool:
    return isinstance(value, Expr) and value.text.lower() != "undefined"


def _resource_clause(v: Values, tag: str) -> str:
    if tag == "GPUs":
        if any(v.given(c) for c in GPU_PROPERTIES) or v.given("require_gpus"):
            return "(countMatches(MY.RequireGPUs,TARGET.AvailableGPUs) >= RequestGPUs)"
        return "(TARGET.GPUs >= RequestGPUs)"
    value = v.get(f"request_{tag.lower()}") or v.own(f"my.request{tag.lower()}") or ""
    if value.startswith('"'):  # a string resource matches by pattern
        return f"regexp(Request{tag}, TARGET.{tag})"
    return f"(TARGET.{tag} >= Request{tag})"


def _file_system(v: Values) -> str:
    mode = transfer.in_ad(v)
    if mode == "NO":
        return "(TARGET.FileSystemDomain == MY.FileSystemDomain)"
    needs = ["TARGET.HasFileTransfer"]
    if (
        v.bool("preserve_relative_paths", False)
        or v.given("transfer_checkpoint_files")
        or transfer.when(v) == "ON_SUCCESS"
    ):
        needs.append('versioncmp(split(TARGET.CondorVersion)[1],"8.9.7") >= 0')
    if any(v.given(c) for c in _ENCRYPTION_LISTS):
        needs.append("TARGET.HasPerFileEncryption")
    for method in transfer.plugins(v):
        needs.append(f'stringListIMember("{method}",TARGET.HasFileTransferPluginMethods)')
    can = " && ".join(needs)
    if mode == "YES":
        return f"({can})"
    return f"((TARGET.FileSystemDomain == MY.FileSystemDomain) || ({can}))"
