"""The resources a job requests beyond cpus, memory and disk: `request_<name>` commands,
`+Request<Tag>` attributes, and the GPU property commands."""

from __future__ import annotations

import re

from condorx.classad import Expr
from condorx.language.submit.values import Values

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


def is_undefined(value: Any) -> bool:
    """An expression that is just `undefined` (a request the file unsets)."""
    return isinstance(value, Expr) and value.text.lower() == "undefined"


_STANDARD_REQUESTS = {"cpus", "memory", "disk", "gpus"}


def custom_requests(v: Values) -> dict[str, str]:
    """`request_<name>` commands beyond the standard four: attribute tag -> command."""
    out = {}
    for spelled in v.names():
        name = spelled.lower()
        tag = spelled[8:]
        if name.startswith("request_") and tag.lower() not in _STANDARD_REQUESTS:
            if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]+", tag) and v.given(name):
                out[tag] = name
    return out


def requested_tags(v: Values) -> list[str]:
    """Every resource a job asks for beyond cpus, memory and disk (GPUs too), sorted without
    case as HTCondor orders their Requirements clauses: from `request_<name>` and from any
    job attribute the file names `Request<Tag>` (`+RequestFoo`)."""
    tags = {t.lower(): t for t in custom_requests(v)}
    if v.given("request_gpus"):
        tags["gpus"] = "GPUs"
    for spelled in v.names():
        attr = spelled[1:] if spelled.startswith("+") else spelled[3:]
        if spelled.startswith("+") or spelled.lower().startswith("my."):
            tag = attr[7:]
            if attr.lower().startswith("request") and re.fullmatch(r"[A-Za-z][\w]+", tag):
                if tag.lower() not in ("cpus", "memory", "disk"):
                    tags.setdefault(tag.lower(), tag)
    return [tags[k] for k in sorted(tags)]


# GPU property commands: (command, attribute, the RequireGPUs clause it adds).
GPU_PROPERTIES = {
    "gpus_minimum_capability": ("GPUsMinCapability", "Capability >= GPUsMinCapability"),
    "gpus_maximum_capability": ("GPUsMaxCapability", "Capability <= GPUsMaxCapability"),
    "gpus_minimum_memory": ("GPUsMinMemory", "GlobalMemoryMb >= GPUsMinMemory"),
    "gpus_minimum_runtime": ("GPUsMinRuntime", "MaxSupportedVersion >= GPUsMinRuntime"),
}
