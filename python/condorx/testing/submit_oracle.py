"""condorx's condor_submit against HTCondor's answers for a corpus of submit files.

The answers (`answers.json`, made by `tests/submit/oracle/answers.py` with HTCondor's own
submit code) hold, per file, HTCondor's refusal or the job ads of some of its procs. Here
condorx builds the same files, from the same folder, with the same facts, and each
attribute is compared semantically: the same canonical expression, or else the same value
when each is evaluated in its own job ad against a set of varied slot ads.

    .venv/bin/python -m condorx.testing.submit_oracle tests/submit/corpus   # a report
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from condorx.classad import ClassAd, ExprTree
from condorx.errors import CondorxError
from condorx.language.submit.build import Facts, build
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.parse import parse
from condorx.transport import wire

FS_DOMAIN = "submit.example.net"  # the oracle's FILESYSTEM_DOMAIN and UID_DOMAIN
CLUSTER = 1

# Attributes compared nowhere, each for a reason:
IGNORED = {
    # When the job was built, and by which program.
    "qdate",
    "enteredcurrentstatus",
    "condorversion",
    "condorplatform",
    # How it was submitted: condor_submit, the Python bindings and DAGMan each say their own.
    "jobsubmitmethod",
    # The schedd sets them when it takes the job (condorx) rather than submit (HTCondor).
    "owner",
    "clusterid",
    "procid",
}

# Slot ads a Requirements-like expression is tried against, when two texts differ.
_SLOTS = [
    ClassAd(
        '[ Arch = "X86_64"; OpSys = "LINUX"; Memory = 4096; Disk = 10000000; Cpus = 4;'
        ' GPUs = 1; HasFileTransfer = true; FileSystemDomain = "submit.example.net";'
        " HasDocker = true; HasContainer = true; HasDockerURL = true; HasSingularity = true;"
        ' HasJava = true; HasSandboxImage = true; Machine = "a.example"; '
        ' HasFileTransferPluginMethods = "https,osdf,http"; OpSysAndVer = "CentOS7" ]'
    ),
    ClassAd(
        '[ Arch = "ARM"; OpSys = "WINDOWS"; Memory = 100; Disk = 10; Cpus = 1; GPUs = 0;'
        ' HasFileTransfer = false; FileSystemDomain = "other"; Machine = "b.example" ]'
    ),
    ClassAd(
        '[ Arch = "X86_64"; OpSys = "LINUX"; Memory = 64000; Disk = 100; Cpus = 64;'
        ' HasFileTransfer = true; FileSystemDomain = "other"; HasDocker = false ]'
    ),
    ClassAd("[ ]"),
]


@dataclass
class FileResult:
    name: str
    agrees: bool
    problems: list[str] = field(default_factory=list)
    crashed: str | None = None  # a traceback-worthy failure: never acceptable


@dataclass
class Setting:
    """What the oracle's answers were made with: its environment and user."""

    environ: dict[str, str]
    user: str


def condorx_ads(
    path: Path, setting: Setting
) -> tuple[list[dict[str, str]] | None, str | None, int]:
    """condorx's answer for one file: (ads of all procs as name -> expression text, or None;
    its refusal, or None; number of procs)."""
    text = path.read_text(errors="replace")
    cwd = str(path.parent.resolve())
    facts = Facts(cwd=cwd, arch="X86_64", opsys="LINUX", fs_domain=FS_DOMAIN, user=setting.user)
    top, append, queue_args = command_line(path)
    try:
        desc = parse(text, str(path), append, path.name, top, queue_args)
        jobs = build(desc, CLUSTER, facts, None, environ=setting.environ)
    except SubmitError as e:
        return None, str(e), 0
    base = wire.ad_from_wire(jobs.cluster, "cluster ad")
    cwd = facts.cwd
    out = []
    for diff in jobs.procs:
        ad = ClassAd()
        ad.update(base)
        for k, v in wire.ad_from_wire(diff, "proc ad").items():
            ad[k] = v
        out.append({k: _text(ad, k).replace(cwd, "@CWD@") for k in ad.keys()})
    return out, None, len(out)


def command_line(path: Path) -> tuple[list[str], list[str], str | None]:
    """The condor_submit arguments a corpus file is submitted with (`FILE.args`, one a
    line), as parse() takes them: NAME=VALUE lines, -append lines, and the -queue args."""
    args_file = path.with_name(path.name + ".args")
    text = args_file.read_text() if args_file.exists() else ""
    words = [w for w in text.splitlines() if w.strip()]
    top: list[str] = []
    append: list[str] = []
    queue_args = None
    it = iter(words)
    for word in it:
        if word in ("-a", "-append"):
            append.append(next(it))
        elif word in ("-batch-name", "-batch"):
            name = next(it)
            append.append("MY.JobBatchName = " + (name if name[:1] == '"' else f'"{name}"'))
        elif word in ("-q", "-queue"):
            queue_args = next(it)
        elif "=" in word:
            name, value = (p.strip() for p in word.split("=", 1))
            top.append(f"{name} = {value}")
        else:
            raise ValueError(f"{args_file}: argument not understood: {word}")
    return top, append, queue_args


def _text(ad: ClassAd, name: str) -> str:
    v = ad.lookup(name)
    return str(v) if v is not None else "undefined"


def compare_file(name: str, path: Path, answer: dict[str, Any], setting: Setting) -> FileResult:
    try:
        ads, error, count = condorx_ads(path, setting)
    except (CondorxError, ValueError) as e:
        return FileResult(name, False, [f"refused outside submit's errors: {e}"])
    except Exception as e:  # noqa: BLE001 - any other failure is the defect this reports
        return FileResult(name, False, crashed=f"{type(e).__name__}: {e}")
    if "error" in answer:
        if error is None:
            return FileResult(name, False, [f"HTCondor refuses: {answer['error'][:120]}"])
        return FileResult(name, True)
    if error is not None:
        return FileResult(name, False, [f"condorx refuses: {error[:160]}"])
    assert ads is not None
    problems = _count_problems(answer, count)
    if count == 0:
        return FileResult(name, not problems, problems)
    for proc, want in answer["procs"].items():
        i = int(proc)
        if i >= len(ads):
            problems.append(f"proc {i}: missing")
            continue
        problems += [f"proc {i}: {p}" for p in compare_ads(want, ads[i])]
    return FileResult(name, not problems, problems)


def _count_problems(answer: dict[str, Any], count: int) -> list[str]:
    want = answer["count"]
    return [] if count == want else [f"{count} procs, HTCondor makes {want}"]


def compare_ads(want: dict[str, str], got: dict[str, str]) -> list[str]:
    """What differs between HTCondor's ad and condorx's, one line per attribute."""
    w = {k.lower(): (k, v) for k, v in want.items() if k.lower() not in IGNORED}
    g = {k.lower(): (k, v) for k, v in got.items() if k.lower() not in IGNORED}
    wad, gad = _ad(want), _ad(got)
    problems = []
    for low, (k, v) in sorted(w.items()):
        if low not in g:
            problems.append(f"missing {k} = {v}")
        elif not same_value(k, v, g[low][1], wad, gad):
            problems.append(f"{k}: HTCondor {v} | condorx {g[low][1]}")
    for low, (k, v) in sorted(g.items()):
        if low not in w:
            problems.append(f"extra {k} = {v}")
    return problems


def _ad(attrs: dict[str, str]) -> ClassAd:
    ad = ClassAd()
    for k, v in attrs.items():
        try:
            ad[k] = ExprTree(v)
        except ValueError:
            ad[k] = v
    return ad


def same_value(name: str, a: str, b: str, ad_a: ClassAd, ad_b: ClassAd) -> bool:
    if a == b:
        return True
    try:
        ea, eb = ExprTree(a), ExprTree(b)
    except ValueError:
        return False
    if str(ea) == str(eb):
        return True
    for slot in _SLOTS:
        ra = _eval(ea, ad_a, slot)
        rb = _eval(eb, ad_b, slot)
        if ra != rb:
            return False
    return _literal(ea) == _literal(eb) or not (_is_literal(ea) and _is_literal(eb))


def _eval(e: ExprTree, my: ClassAd, target: ClassAd) -> str:
    try:
        return repr(e.eval(scope=my, target=target))
    except Exception as err:  # noqa: BLE001 - an evaluation error is a value to compare
        return f"error {type(err).__name__}"


_LITERAL = re.compile(
    r'^(-?\d+(\.\d*)?([eE][-+]?\d+)?|true|false|undefined|"([^"\\]|\\.)*")$', re.I
)


def _is_literal(e: ExprTree) -> bool:
    return bool(_LITERAL.match(str(e)))


def _literal(e: ExprTree) -> str:
    return str(e).lower() if _is_literal(e) else ""


def run(root: Path) -> list[FileResult]:
    answers = json.loads((root / "answers.json").read_text())
    setting = Setting(answers.pop("_environ"), answers.pop("_user"))
    cwd = os.getcwd()
    try:
        return [compare_file(n, root / n, a, setting) for n, a in sorted(answers.items())]
    finally:
        os.chdir(cwd)


def report(results: list[FileResult], out: Any = sys.stdout, verbose: bool = True) -> None:
    agree = sum(r.agrees for r in results)
    if verbose:
        for r in results:
            if not r.agrees:
                print(f"{r.name}:", file=out)
                for p in (r.problems or [f"CRASH {r.crashed}"])[:12]:
                    print(f"    {p}", file=out)
    tally: Counter[str] = Counter()
    for r in results:
        for p in r.problems:
            tally[re.sub(r"^proc \d+: ", "", p).split(":")[0].split(" =")[0]] += 1
    print("most common differences:", file=out)
    for what, n in tally.most_common(25):
        print(f"  {n:4d}  {what}", file=out)
    print(
        f"{agree}/{len(results)} files agree ({100 * agree / max(1, len(results)):.1f}%)", file=out
    )


if __name__ == "__main__":
    report(run(Path(sys.argv[1] if len(sys.argv) > 1 else "tests/submit/corpus")))
