"""The job's environment: `environment` (or `env`) in either syntax, and `getenv`, the
submitter's own variables copied in (all, or those its names and patterns select)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping

from condorx.language import argsyntax
from condorx.language.submit.commands import row
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.values import Values

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@row("environment", "getenv")
def _environment(v: Values) -> dict[str, Any]:
    """Environment in the new syntax, sorted by name as HTCondor's Env keeps it; `getenv`
    copies the submitter's variables (all, or those its names and patterns select). Only
    an old-syntax value given as `env` keeps the old form (Env, EnvDelim), as in HTCondor."""
    env: dict[str, str | None] = {}
    getenv = v.get("getenv")
    if getenv is not None:
        env.update(_getenv(v, getenv))
    raw = v.get("environment")  # or its other spelling, env
    if raw is not None:
        try:
            env.update(argsyntax.parse_env(raw))
        except argsyntax.SyntaxProblem as e:
            raise SubmitError(f"{v.where('environment')}: {e}") from None
    old = v.own("env")
    if old is not None and not argsyntax.is_v2(old):
        return {"Env": argsyntax.join_env_v1(env), "EnvDelim": ";"}
    return {"Environment": argsyntax.join_env(env)}


def _getenv(v: Values, spec: str) -> dict[str, str]:
    environ: Mapping[str, str] = v.facts.get("environ") or {}  # type: ignore[assignment]
    low = spec.lower()
    if low in ("true", "yes", "t", "y", "1"):
        return dict(environ)
    if low in ("false", "no", "f", "n", "0"):
        return {}
    keep: list[str] = []
    drop: list[str] = []
    for word in re.split(r"[,\s]+", spec):
        if word:
            (drop if word.startswith("!") else keep).append(word.lstrip("!"))

    def wanted(name: str) -> bool:
        def hit(pats: list[str]) -> bool:
            return any(fnmatch.fnmatchcase(name.upper(), p.upper()) for p in pats)

        return hit(keep) and not hit(drop)

    return {k: val for k, val in environ.items() if wanted(k)}
