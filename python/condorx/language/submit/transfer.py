"""File transfer commands: ShouldTransferFiles, WhenToTransferOutput, the input and output
lists, output remaps, and the transfer plugins their URLs need."""

from __future__ import annotations

import os
import re

from condorx.language.attrs import Universe
from condorx.language.submit.commands import row
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.universes import universe
from condorx.language.submit.values import Values, references, unquoted

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

# Every spelling HTCondor takes (enum_utils.cpp), without case, and what it writes for it.
SHOULD = {
    "YES": "YES",
    "TRUE": "YES",
    "ALWAYS": "YES",
    "NO": "NO",
    "FALSE": "NO",
    "NEVER": "NO",
    "IF_NEEDED": "IF_NEEDED",
    "AUTO": "IF_NEEDED",
}
WHEN = {
    "ON_EXIT_OR_EVICT": "ON_EXIT_OR_EVICT",
    "ALWAYS": "ON_EXIT_OR_EVICT",
    "ON_EXIT": "ON_EXIT",
    "ONEXIT": "ON_EXIT",
    "ON_SUCCESS": "ON_SUCCESS",
    "ONSUCCESS": "ON_SUCCESS",
    "NONE": "NONE",
    "NULL": "NONE",
}
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
# A list item: commas separate them; double quotes (kept, as HTCondor keeps them) group.
_ITEM = re.compile(r'\s*((?:"[^"]*"|[^,"])+)\s*(?:,|$)')
# Images on these file systems are read in place, not transferred (CONTAINER_SHARED_FS).
SHARED_FS = ("/cvmfs/",)


def should(v: Values) -> str:
    """ShouldTransferFiles: the command, else IF_NEEDED (YES when only ON_EXIT_OR_EVICT
    output is asked for), as HTCondor's SetTransferFiles. A VM always transfers."""
    if universe(v) == Universe.VM:
        return "YES"
    given = _given(v, "should_transfer_files")
    if given is None:
        return "YES" if when(v) == "ON_EXIT_OR_EVICT" else "IF_NEEDED"
    mode = SHOULD.get(given.upper())
    if mode is None:
        raise SubmitError(
            f"{v.where('should_transfer_files')}: invalid value ({given}) for"
            " ShouldTransferFiles.  Please either specify YES, NO, or IF_NEEDED and try again."
        )
    return mode


def in_ad(v: Values) -> str:
    """The ShouldTransferFiles the job ad ends with, which Requirements read: a
    +ShouldTransferFiles replaces what the command decided (a value HTCondor cannot read
    counts as YES there)."""
    custom = v.get("my.shouldtransferfiles")
    return SHOULD.get(unquoted(custom).upper(), "YES") if custom else should(v)


def when(v: Values) -> str:
    """WhenToTransferOutput: the command, else ON_EXIT. A VM's is HTCondor's choice."""
    if universe(v) == Universe.VM:
        return "ON_EXIT_OR_EVICT" if v.bool("vm_checkpoint", False) else "ON_EXIT"
    given = _given(v, "when_to_transfer_output")
    if given is None:
        return "ON_EXIT"
    out = WHEN.get(given.upper())
    if out is None:
        raise SubmitError(
            f"{v.where('when_to_transfer_output')}: invalid value ({given}) for"
            " WhenToTransferOutput.  Please either specify ON_EXIT, or ON_EXIT_OR_EVICT and"
            " try again."
        )
    return out


def _given(v: Values, command: str) -> str | None:
    # A +ShouldTransferFiles is set after these are decided: it changes the ad, not them.
    text = v.get(command)
    return unquoted(text) if text is not None else None


def _check_transfer(v: Values, mode: str) -> None:
    """The contradictions HTCondor refuses: files to transfer with transfer off, output
    when nothing is transferred or none when it is, and eviction output IF_NEEDED."""
    where = v.where("should_transfer_files")
    if mode == "NO":
        files = [c for c in ("transfer_input_files", "transfer_output_files") if v.given(c)]
        if files:
            named = '" and "'.join(files)
            raise SubmitError(
                f'{where}: you specified files you want Condor to transfer via "{named}",'
                " but you disabled should_transfer_files."
            )
    explicit = _given(v, "when_to_transfer_output") is not None
    output = when(v)
    if (mode == "NO" and explicit and output != "NONE") or (mode != "NO" and output == "NONE"):
        raise SubmitError(
            f"{v.where('when_to_transfer_output')}: WhenToTransferOutput specified as"
            f" {output} yet ShouldTransferFiles defined as {mode}.  Please remove this"
            " contradiction from your submit file and try again."
        )
    if mode == "IF_NEEDED" and output == "ON_EXIT_OR_EVICT":
        raise SubmitError(
            f'{where}: "when_to_transfer_output = ON_EXIT_OR_EVICT" and'
            ' "should_transfer_files = IF_NEEDED" are incompatible.'
        )


def file_list(text: str) -> list[str]:
    """A transfer list's items: commas separate them, double quotes group them."""
    return [item.strip() for item in _ITEM.findall(text) if item.strip()]


def plugins(v: Values) -> list[str]:
    """The URL schemes the job's inputs, output destination and image need, as HTCondor
    gathers them (a classad::References): each as first written (`FTP` stays `FTP`), one
    of each whatever its case, in case-blind order."""
    urls = [unquoted(u) for u in file_list(v.get("transfer_input_files") or "")]
    urls += [unquoted(v.get("output_destination") or ""), container_transfer(v) or ""]
    # Output remapped to a URL goes there by its plugin: `name = url; name2 = url2`.
    remaps = unquoted(v.get("transfer_output_remaps") or "")
    urls += [pair.partition("=")[2].strip() for pair in remaps.split(";")]
    return references(m.group(1) for u in urls if (m := _URL.match(u)))


def container_transfer(v: Values) -> str | None:
    """A container image that file transfer brings: a plugin URL (osdf://), or a file that
    is not on a shared file system, unless transfer_container is false."""
    image = v.get("container_image") or ""
    if not image or image.startswith(("docker://", "oras://")):
        return None
    if not _URL.match(image):
        if image.startswith(SHARED_FS) or not v.bool("transfer_container", True):
            return None
    return image


def _java_inputs(v: Values) -> list[str]:
    """A java job's class file (absolute) and jar files travel with its inputs."""
    cls = v.get("executable")
    out = [cls if os.path.isabs(cls) else os.path.join(v.submit_dir(), cls)] if cls else []
    return out + file_list(v.get("jar_files") or "")


@row(
    "universe",
    "executable",
    "jar_files",
    "transfer_container",
    "should_transfer_files",
    "when_to_transfer_output",
    "transfer_input_files",
    "transfer_output_files",
    "transfer_output_remaps",
    "output_destination",
    "container_image",
    "vm_checkpoint",
)
def _transfer(v: Values) -> dict[str, Any]:
    mode = should(v)
    out: dict[str, Any] = {"ShouldTransferFiles": mode}
    _check_transfer(v, mode)
    if mode != "NO":
        out["WhenToTransferOutput"] = when(v)
    raw_in = v.get("transfer_input_files") or ""
    inputs = file_list(raw_in) if raw_in != '""' else []
    if universe(v) == Universe.JAVA and mode == "YES":
        inputs += _java_inputs(v)
    image = container_transfer(v)
    if image:
        inputs.append(image)
    if inputs:
        out["TransferInput"] = ",".join(inputs)
    raw_out = v.get("transfer_output_files")
    if raw_out == '""':
        out["TransferOutput"] = ""  # explicitly none
    elif raw_out:
        out["TransferOutput"] = ",".join(file_list(raw_out))
    if v.given("transfer_output_remaps"):
        out["TransferOutputRemaps"] = unquoted(v.get("transfer_output_remaps") or "")
    methods = plugins(v)
    if methods:
        out["WantTransferPluginMethods"] = ",".join(methods)
    return out
