"""HTCondor's own answers for the submit corpus: run with HTCondor 24.0.24's Python bindings.

    python -m venv /tmp/oracle && /tmp/oracle/bin/pip install htcondor==24.0.24
    /tmp/oracle/bin/python tests/submit/oracle/answers.py tests/submit/corpus

For every `*.sub` under the corpus folders it asks the legacy `htcondor.Submit(text).jobs()`
(the code condor_submit runs, with no daemon) for the job ads, from the file's own folder,
and writes `answers.json` beside the folders. The test `test_oracle_differential.py` compares
condorx with these answers, so CI needs no HTCondor. Paths under the file's folder are stored
as `@CWD@/...` so the answers hold on any checkout.

Limits of the oracle (see docs in the test): it reads only the first queue statement, and a
queue that makes no jobs (`queue 0`, `matching` with no match) gives it one job.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pwd
import re
import sys
from pathlib import Path

# A fixed, empty configuration and environment (getenv and $ENV() read it): the same facts
# on every machine that makes the answers. The test gives condorx the same ones.
ENVIRON = {
    "CONDOR_CONFIG": "ONLY_ENV",
    "_CONDOR_FILESYSTEM_DOMAIN": "submit.example.net",
    "_CONDOR_UID_DOMAIN": "submit.example.net",
    "HOME": "/home/alice",
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "CONDOR_TEST_VALUE": "with space",
}
os.environ.clear()
os.environ.update(ENVIRON)

import htcondor  # noqa: E402

# Attributes that depend on when or by what the job was built, not on the description.
VOLATILE = {"QDate", "EnteredCurrentStatus", "CondorVersion", "CondorPlatform"}
KEEP_PROCS = 3  # the first two procs and the last are compared


def answer(path: Path) -> dict:
    text = path.read_text(errors="replace")
    cwd = str(path.parent.resolve())
    os.chdir(cwd)
    out: dict = {"queues": len(re.findall(r"(?im)^\s*queue\b", text))}
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            jobs = list(htcondor.Submit(text).jobs(clusterid=1))
    except Exception as e:  # the oracle's refusal is an answer too
        out["error"] = str(e).strip()
        return out
    out["count"] = len(jobs)
    picked = sorted({0, 1, len(jobs) - 1} & set(range(len(jobs))))
    out["procs"] = {str(i): _ad(jobs[i], cwd) for i in picked[:KEEP_PROCS]}
    return out


def _ad(ad, cwd: str) -> dict[str, str]:
    return {
        k: str(ad.lookup(k)).replace(cwd, "@CWD@") for k in sorted(ad.keys()) if k not in VOLATILE
    }


def main(root: str) -> None:
    base = Path(root).resolve()
    answers: dict = {"_environ": ENVIRON, "_user": pwd.getpwuid(os.getuid()).pw_name}
    for path in sorted(base.glob("*/*.sub")):
        answers[str(path.relative_to(base))] = answer(path)
    (base / "answers.json").write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n")
    errors = sum(1 for a in answers.values() if "error" in a)
    print(f"{len(answers)} files, {errors} refused by HTCondor", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/submit/corpus")
