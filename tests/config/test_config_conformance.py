"""The configuration-language conformance corpus, run against condorx's reader.

Every name of every case is answered in-process (fast); one case also goes through the
real ``condor_config_val`` command. The pass count is a ratchet: raise it, never lower it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from condorx.language.config import ConfigError, load_config

CORPUS = Path(os.environ.get("CONDORX_CONFIG_CORPUS", "/work/shared/config-conformance"))
PLACEHOLDER = "$DIR"
MEASURED_PASSES = 1077  # of 1077 names: the score reached; a ratchet

pytestmark = pytest.mark.skipif(
    not (CORPUS / "cases.jsonl").exists(), reason="conformance corpus not present"
)


def _records(name: str) -> list[dict]:
    with open(CORPUS / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _materialise(rec: dict, root: Path) -> Path:
    case_dir = root / rec["id"]
    for rel, text in rec["files"].items():
        path = case_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace(PLACEHOLDER, str(case_dir)), encoding="utf-8")
    case_dir.mkdir(parents=True, exist_ok=True)
    return case_dir


def _environ(rec: dict, case_dir: Path) -> dict[str, str]:
    env = {
        "HOME": str(case_dir),
        "TMPDIR": str(case_dir),
        "TZ": "UTC",
        "PATH": os.environ.get("PATH", ""),
    }
    env["CONDOR_CONFIG"] = env["CONDORX_CONFIG"] = str(case_dir / "condor_config")
    env.update({k: v.replace(PLACEHOLDER, str(case_dir)) for k, v in rec["env"].items()})
    return env


def _answer(rec: dict, case_dir: Path, name: str) -> str | None:
    """What condor_config_val would print for name (None: not defined or an error)."""
    try:
        cfg = load_config(subsystem=rec.get("subsystem"), environ=_environ(rec, case_dir))
        return cfg.get(name)
    except ConfigError:
        return None


def test_corpus_pass_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    passed, failures = 0, []
    for rec in _records("cases.jsonl") + _records("errors.jsonl"):
        case_dir = _materialise(rec, tmp_path)
        monkeypatch.chdir(case_dir)  # relative include names resolve against the cwd
        expect = rec["expect"]
        wanted = expect if isinstance(expect, dict) else dict.fromkeys(rec["names"])
        for name, want in wanted.items():
            want = want.replace(PLACEHOLDER, str(case_dir)) if want is not None else None
            got = _answer(rec, case_dir, name)
            if got == want:
                passed += 1
            else:
                failures.append(f"{rec['id']} {name}: want {want!r}, got {got!r}")
    assert passed >= MEASURED_PASSES, "\n".join(failures[:20])


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "condorx.cli.config_val", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_answers_a_case(tmp_path: Path) -> None:
    rec = next(r for r in _records("cases.jsonl") if r["id"] == "p-c-subsystem_prefix-018")
    case_dir = _materialise(rec, tmp_path)
    env = _environ(rec, case_dir)
    for name, want in rec["expect"].items():
        result = _cli(["-subsystem", rec["subsystem"], name], env, case_dir)
        assert result.returncode == 0, result.stderr
        assert result.stdout == want + "\n"


def test_cli_refused_configuration_exits_nonzero_without_traceback(tmp_path: Path) -> None:
    rec = next(r for r in _records("errors.jsonl") if r["expect"] == "refused")
    case_dir = _materialise(rec, tmp_path)
    result = _cli([rec["names"][0]], _environ(rec, case_dir), case_dir)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "condor_config" in result.stderr
