"""HTCondor's own answers for the submit corpus: its submit code, run as condor_submit runs it.

    python -m venv /tmp/oracle && /tmp/oracle/bin/pip install htcondor==24.0.24
    /tmp/oracle/bin/python tests/submit/oracle/answers.py tests/submit/corpus

For every `*.sub` under the corpus folders it asks the legacy `htcondor.Submit(text).jobs()`
of the Python bindings (the submit code condor_submit runs, with no daemon) for the job ads,
from the file's own folder, and writes `answers.json` beside the folders. The test
`test_oracle_differential.py` compares condorx with these answers, so CI needs no HTCondor.
Paths under the file's folder are stored as `@CWD@/...` so the answers hold on any checkout.

The bindings alone are not condor_submit: run bare, they hid a difference in every real
file. So this wraps them in what condor_submit (src/condor_submit.V6/submit.cpp, 24.x) does
around the same library calls, as a user runs `condor_submit FILE [ARGS]` in FILE's folder:

- `$(SUBMIT_FILE)` is the file's name as given on the command line, a default that the file
  may override; with it the job ad gets `JobSubmitFile` (SubmitHash::insert_submit_filename,
  SetIWD).
- The command line: `NAME=VALUE` is set before the file is read (set_arg_variable),
  `-append LINE` and `-batch-name NAME` (as `MY.JobBatchName = "NAME"`) are read again just
  before every queue statement (parse_append_lines), `-queue ARGS` queues when the file has
  no queue statement. A corpus file's arguments, if any, are in `FILE.args`, one a line.
- Every queue statement is read, in order, each seeing the commands as they stand at it,
  the procs numbered on from the previous statement's (submit_jobs' loop); the bindings read
  only the first.
- A statement that selects no items (`queue 0`, a `matching` that matches nothing) queues
  nothing and the file goes on; the bindings make one job for it.
- A file with no queue statement (and no `-queue`) queues one job, as condor_submit does.
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

_QUEUE = re.compile(r"^\s*queue(\s|$|\()", re.IGNORECASE)
_OPEN_LIST = re.compile(r"\s(in|from)\s*(\[[^\]]*\]\s*)?\(", re.IGNORECASE)
_FOREACH = re.compile(r"\s(in|from|matching)(\s|\(|$)", re.IGNORECASE)


class CommandLine:
    """What condor_submit's own arguments add around the file."""

    def __init__(self, args: list[str]) -> None:
        self.top: list[str] = []  # NAME=VALUE, read before the file
        self.append: list[str] = []  # -append and -batch-name, read before each queue
        self.queue = ""
        it = iter(args)
        for arg in it:
            if arg in ("-a", "-append"):
                self.append.append(next(it))
            elif arg in ("-batch-name", "-batch"):
                name = next(it)
                quoted = name if name.startswith('"') else '"' + name + '"'
                self.append.append("MY.JobBatchName = " + quoted)
            elif arg in ("-q", "-queue"):
                self.queue = "queue " + next(it)
            elif "=" in arg and not arg.startswith("-"):
                name, value = arg.split("=", 1)
                name = "MY." + name.strip()[1:] if name.strip().startswith("+") else name
                self.top.append(f"{name.strip()} = {value.strip()}")
            else:
                raise ValueError(f"argument not understood by the oracle: {arg}")


def segments(text: str) -> tuple[list[str], list[tuple[int, str]]]:
    """The file's logical lines, and its queue statements as (index, text): a statement's
    item list `in (...)` may run over several lines, and `\\` continues a line."""
    lines: list[str] = []
    queues: list[tuple[int, str]] = []
    # Lines end at newlines alone, as condor_submit reads them: splitlines would also
    # break at the form feeds and other controls a value may hold (job_core_env_van).
    raw = text.split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    i = 0
    while i < len(raw):
        line = raw[i]
        while line.endswith("\\") and not line.lstrip().startswith("#") and i + 1 < len(raw):
            i += 1
            line = line[:-1] + raw[i]
        i += 1
        if _QUEUE.match(line) and _OPEN_LIST.search(line) and not line.rstrip().endswith(")"):
            while i < len(raw):
                line += "\n" + raw[i]
                i += 1
                if raw[i - 1].rstrip().endswith(")"):
                    break
        if _QUEUE.match(line):
            queues.append((len(lines), line))
        lines.append(line)
    return lines, queues


def condor_submit(path: Path) -> list:
    """The job ads `condor_submit FILE [ARGS]` builds, run in FILE's folder."""
    text = path.read_text(errors="replace")
    args_file = path.with_name(path.name + ".args")
    args = args_file.read_text().splitlines() if args_file.exists() else []
    cmd = CommandLine([a for a in args if a.strip()])
    head = [f"SUBMIT_FILE = {path.name}", *cmd.top]
    lines, queues = segments(text)
    if not queues:
        queues = [(len(lines), cmd.queue)] if cmd.queue else [(len(lines), "")]
    jobs: list = []
    skip = {i for i, _ in queues}
    for index, qline in queues:
        body = [ln for j, ln in enumerate(lines[:index]) if j not in skip]
        sub = htcondor.Submit("\n".join([*head, *body, *cmd.append, qline]) + "\n")
        if qline and _selects_nothing(sub):
            continue
        with contextlib.redirect_stderr(io.StringIO()):
            jobs += list(sub.jobs(clusterid=1, procid=len(jobs)))
    return jobs


def _selects_nothing(sub) -> bool:
    """A queue statement whose count is 0, or whose item list is empty: condor_submit
    queues nothing for it (submit_jobs: `selected_item_count == 0 || queue_num < 0`)."""
    qargs = sub.getQArgs()
    if _FOREACH.search(" " + qargs) and not list(sub.itemdata()):
        return True
    count = qargs.split(None, 1)[0] if qargs.strip() else "1"
    if not re.match(r"^[\d$]", count):
        return False
    sub["_ORACLE_QUEUE_COUNT"] = count
    try:
        return int(sub.expand("_ORACLE_QUEUE_COUNT")) <= 0
    except ValueError:
        return False


def answer(path: Path) -> dict:
    cwd = str(path.parent.resolve())
    os.chdir(cwd)
    out: dict = {}
    try:
        jobs = condor_submit(path)
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
