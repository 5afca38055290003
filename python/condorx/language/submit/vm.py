"""The vm universe: a job that is a virtual machine, as HTCondor's SetVMParams describes it.

condorx's startds run no hypervisor, so such a job matches only a slot that advertises
HasVM (none of condorx's do); it is queued as HTCondor queues it, and waits.
"""

from __future__ import annotations

from condorx.language.attrs import Universe
from condorx.language.submit.commands import row
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.quantities import MIB_UNITS, quantity
from condorx.language.submit.universes import universe
from condorx.language.submit.values import Values, unquoted

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

_XEN_BUILT_IN = ("included", "vmx")  # kernels that are no file: the image's, hardware VT


def memory(v: Values) -> int | None:
    """The VM's memory in MiB (vm_memory), None outside the vm universe."""
    if universe(v) != Universe.VM:
        return None
    mem = quantity(v, "vm_memory", MIB_UNITS)
    if mem is None:
        raise SubmitError(
            f"{v.where('universe')}: vm_memory cannot be found. Please specify vm_memory"
            " for vm universe in your submit description file."
        )
    if not isinstance(mem, int) or mem <= 0:
        raise SubmitError(f"{v.where('vm_memory')}: vm_memory is incorrectly specified")
    return mem


def vm_type(v: Values) -> str:
    return (v.get("vm_type") or "").lower()


@row(
    "universe",
    "vm_type",
    "vm_memory",
    "vm_checkpoint",
    "vm_networking",
    "vm_networking_type",
    "vm_vnc",
    "vm_vcpus",
    "vm_macaddr",
    "vm_no_output_vm",
    "vm_disk",
    "xen_kernel",
    "xen_initrd",
    "xen_root",
    "xen_kernel_params",
    "when_to_transfer_output",
    "input",
    "output",
    "error",
)
def _vm(v: Values) -> dict[str, Any]:
    mem = memory(v)
    if mem is None:
        return {}
    out: dict[str, Any] = {"JobVMMemory": mem}
    if v.given("vm_type"):
        out["JobVMType"] = vm_type(v)
    networking = v.bool("vm_networking", False)
    if networking and v.bool("vm_checkpoint", False):
        given = (v.get("when_to_transfer_output") or "").upper()
        if given not in ("ON_EXIT_OR_EVICT", "ALWAYS"):
            raise SubmitError(
                f"{v.where('vm_networking')}: You explicitly requested both VM checkpoint and"
                " VM networking. However, VM networking is currently conflict with VM"
                " checkpoint. If you still want to use both VM networking and VM checkpoint,"
                ' you explicitly must define "when_to_transfer_output = ON_EXIT_OR_EVICT"'
            )
    for std in ("input", "output", "error"):
        if (v.get(std) or "/dev/null") != "/dev/null":
            raise SubmitError(
                f"{v.where(std)}: You cannot use input, ouput, and error parameters in the"
                " submit description file for vm universe"
            )
    out |= {
        "JobVMCheckpoint": v.bool("vm_checkpoint", False),
        "JobVMNetworking": networking,
        "JobVMVNCConsole": v.bool("vm_vnc", False),
        "JobVM_VCPUS": max(_leading_int(v.get("vm_vcpus") or "1"), 1),
    }
    if networking and v.given("vm_networking_type"):
        out["JobVMNetworkingType"] = v.get("vm_networking_type")
    if v.given("vm_macaddr"):
        out["JobVM_MACADDR"] = v.get("vm_macaddr")
    if v.given("vm_no_output_vm"):
        out["VMPARAM_No_Output_VM"] = v.bool("vm_no_output_vm", False)
    kind = vm_type(v)
    if kind == "xen":
        out |= _xen(v)
    if kind in ("xen", "kvm"):
        out["VMPARAM_vm_Disk"] = _disk(v)
    elif kind == "vmware":
        raise SubmitError(f"{v.where('vm_type')}: A vm_type of 'vmware' is no longer supported")
    return out


def _leading_int(text: str) -> int:
    """The number text begins with, as strtol reads it (0 when none)."""
    digits = ""
    for i, c in enumerate(text.strip()):
        if c.isdigit() or (i == 0 and c in "+-"):
            digits += c
        else:
            break
    try:
        return int(digits)
    except ValueError:
        return 0


def _disk(v: Values) -> str:
    disk = v.get("vm_disk")
    if disk is None:
        raise SubmitError(
            f"{v.where('vm_type')}: '<vm>_disk' cannot be found. Please specify '<vm>_disk'"
            " for the virtual machine in your submit description file."
        )
    if any(not 3 <= len(item.split(":")) <= 4 for item in disk.split(",")):
        raise SubmitError(
            f"{v.where('vm_disk')}: 'vm_disk' has incorrect format. The format should be like"
            ' "<filename>:<devicename>:<permission>"'
        )
    return disk


def _xen(v: Values) -> dict[str, Any]:
    kernel = v.get("xen_kernel")
    if kernel is None:
        raise SubmitError(
            f"{v.where('vm_type')}: 'xen_kernel' cannot be found. Please specify 'xen_kernel'"
            ' for the xen virtual machine; it must be one of "included", "vmx", <file-name>.'
        )
    out: dict[str, Any] = {"VMPARAM_Xen_Kernel": kernel}
    real_file = kernel.lower() not in _XEN_BUILT_IN
    if kernel.lower() == "vmx":
        out["JobVMHardwareVT"] = True
    if v.given("xen_initrd"):
        if not real_file:
            raise SubmitError(
                f"{v.where('xen_initrd')}: To use xen_initrd, xen_kernel should be a real"
                " kernel file."
            )
        out["VMPARAM_Xen_Initrd"] = v.get("xen_initrd")
    if real_file:
        if not v.given("xen_root"):
            raise SubmitError(
                f"{v.where('xen_kernel')}: 'xen_root' cannot be found. Please specify"
                " 'xen_root' for the xen virtual machine in your submit description file."
            )
        out["VMPARAM_Xen_Root"] = v.get("xen_root")
    if v.given("xen_kernel_params"):
        out["VMPARAM_Xen_Kernel_Params"] = unquoted(v.get("xen_kernel_params") or "").strip("'")
    return out


def requirement_clauses(v: Values, mentioned: set[str]) -> list[str]:
    """What a vm job asks of a slot beyond its Arch (HTCondor's SetRequirements)."""
    out = []
    if "hasvm" not in mentioned:
        out.append("(TARGET.HasVM is true)")
    if "vm_type" not in mentioned:
        out.append("(TARGET.VM_Type == MY.JobVMType)")
    if "vm_availnum" not in mentioned:
        out.append("(TARGET.VM_AvailNum > 0)")
    if v.bool("vm_checkpoint", False):
        out.append(
            "((MY.VM_CkptMac is undefined) || (TARGET.VM_All_Guest_Macs is undefined)"
            ' || (stringListIMember(MY.VM_CkptMac,TARGET.VM_All_Guest_Macs,",") == false))'
        )
    return out


def memory_clauses(v: Values, mentioned: set[str]) -> list[str]:
    """The memory (and hardware) clauses that stand where another job's Memory one does."""
    out = []
    if vm_type(v) != "xen":
        out.append("(TARGET.TotalMemory >= MY.JobVMMemory)")
    if "vm_memory" not in mentioned:
        out.append("(TARGET.VM_Memory >= MY.JobVMMemory)")
    if vm_type(v) == "xen" and (v.get("xen_kernel") or "").lower() == "vmx":
        if "vm_hardware_vt" not in mentioned:
            out.append("TARGET.VM_Hardware_VT")
    if v.bool("vm_networking", False):
        if "vm_networking" not in mentioned:
            out.append("TARGET.VM_Networking")
        if v.given("vm_networking_type"):
            out.append('stringListIMember(JobVMNetworkingType,TARGET.VM_Networking_Types,",")')
    return out
