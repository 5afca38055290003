"""File transfer commands: ShouldTransferFiles, WhenToTransferOutput, the input and output
lists, output remaps, and the transfer plugins their URLs need."""

from __future__ import annotations

import os
import re
from typing import Any

from condorx.attrs import Universe
from condorx.submit.commands import row, universe
from condorx.submit.errors import SubmitError
from condorx.submit.values import Values, unquoted

SHOULD = ("YES", "NO", "IF_NEEDED")
WHEN = ("ON_EXIT", "ON_EXIT_OR_EVICT", "ON_SUCCESS")
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
# A list item: commas separate them; double quotes (kept, as HTCondor keeps them) group.
_ITEM = re.compile(r'\s*((?:"[^"]*"|[^,"])+)\s*(?:,|$)')
# Images on these file systems are read in place, not transferred (CONTAINER_SHARED_FS).
SHARED_FS = ("/cvmfs/",)


def should(v: Values) -> str:
    """ShouldTransferFiles; left unset with ON_EXIT_OR_EVICT output it is YES (HTCondor)."""
    if not v.given("should_transfer_files") and when(v) == "ON_EXIT_OR_EVICT":
        return "YES"
    return v.choice("should_transfer_files", SHOULD, "IF_NEEDED")


def when(v: Values) -> str:
    return v.choice("when_to_transfer_output", WHEN, "ON_EXIT")


def file_list(text: str) -> list[str]:
    """A transfer list's items: commas separate them, double quotes group them."""
    return [item.strip() for item in _ITEM.findall(text) if item.strip()]


def plugins(v: Values) -> list[str]:
    """The URL schemes the job's inputs, output destination and image need, sorted."""
    urls = file_list(v.get("transfer_input_files") or "")
    urls += [v.get("output_destination") or "", container_transfer(v) or ""]
    schemes = {m.group(1).lower() for u in urls if (m := _URL.match(unquoted(u)))}
    return sorted(schemes)


def container_transfer(v: Values) -> str | None:
    """A container image that file transfer brings: a plugin URL (osdf://), or a file that
    is not on a shared file system, unless transfer_container is false."""
    image = unquoted(v.get("container_image") or "")
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
)
def _transfer(v: Values) -> dict[str, Any]:
    mode = should(v)
    out: dict[str, Any] = {"ShouldTransferFiles": mode}
    if mode != "NO":
        out["WhenToTransferOutput"] = when(v)
    elif v.given("when_to_transfer_output"):
        raise SubmitError(
            f"{v.where('when_to_transfer_output')}: when_to_transfer_output makes no sense"
            " with should_transfer_files = NO"
        )
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
