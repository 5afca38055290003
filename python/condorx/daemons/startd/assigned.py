"""The environment a job is given for the custom resources of its slot (HTCondor's
starter, `SetEnvironmentForAssignedRes`): `_CONDOR_Assigned<name>` with the slot's
`Assigned<name>`, and the variables ENVIRONMENT_FOR_Assigned<name> lists, each set to
those identifiers, rewritten by its pattern:

    ENVIRONMENT_FOR_AssignedGPUs = GPU_DEVICE_ORDINAL=/(CUDA|OCL)//  CUDA_VISIBLE_DEVICES=/CUDA//

gives a job on a slot with `AssignedGPUs = "CUDA0, CUDA1"` CUDA_VISIBLE_DEVICES=0,1. A
slot with the resource but none assigned gives those variables
ENVIRONMENT_VALUE_FOR_UnAssigned<name> (10000 for GPUs, which CUDA takes for none).
"""

from __future__ import annotations

import re
from typing import Any

from condorx.language import resources
from condorx.language.config import Config

# Names whose bare form (no pattern) keeps only the digits and commas of the ids.
_DIGITS_ONLY = ("CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")


def environment(cfg: Config, slot_ad: dict[str, Any]) -> dict[str, str]:
    env: dict[str, str] = {}
    for tag in resources.listed(slot_ad):
        attr = f"Assigned{tag}"
        protos = (cfg.get(f"ENVIRONMENT_FOR_{attr}") or "").strip()
        assigned = slot_ad.get(attr)
        if not isinstance(assigned, str) and not (tag in slot_ad and protos):
            continue
        if not isinstance(assigned, str):
            assigned = cfg.get(f"ENVIRONMENT_VALUE_FOR_Un{attr}") or ""
        if protos:
            env.update(_set_by(protos, assigned))
        env[f"_CONDOR_{attr}"] = assigned
    return env


def _set_by(protos: str, assigned: str) -> dict[str, str]:
    """`NAME` or `NAME=/pattern/replacement/`, one after another (any non-blank
    character may stand for the slashes)."""
    out: dict[str, str] = {}
    rest = protos
    while rest.strip():
        rest = rest.lstrip()
        name, eq, spec = rest.partition("=")
        if not eq:
            name = name.strip()
            out[name] = _digits(assigned) if name in _DIGITS_ONLY else assigned
            break
        name, spec = name.strip(), spec.lstrip()
        sep = spec[:1]
        parts = spec[1:].split(sep, 2) if sep else []
        if len(parts) < 3:
            break  # no end marker: HTCondor ignores this one and the rest
        pattern, replacement, rest = parts
        if name == "CUDA_VISIBLE_DEVICES" and not pattern:
            out[name] = _digits(assigned)
        else:
            out[name] = ",".join(_rewrite(i, pattern, replacement) for i in _ids(assigned))
        rest = rest[1:] if rest.startswith(",") else rest
    return out


def _ids(assigned: str) -> list[str]:
    return [i for i in re.split(r"[\s,]+", assigned) if i]


def _digits(assigned: str) -> str:
    return "".join(c for c in assigned if c.isdigit() or c == ",")


def _rewrite(resource_id: str, pattern: str, replacement: str) -> str:
    """The id with its first match of `pattern` replaced (`$1` for a group)."""
    try:
        m = re.search(pattern, resource_id)
    except re.error:
        return resource_id
    if m is None:
        return resource_id

    def group(ref: re.Match[str]) -> str:
        n = int(ref[1])
        return (m[n] or "") if n <= m.re.groups else ""

    text = re.sub(r"\$(\d)", group, replacement)
    return resource_id[: m.start()] + text + resource_id[m.end() :]
