"""condor_qedit and condor_prio: change job attributes in the queue."""

from __future__ import annotations

import re
import sys

from condorx.classad import ExprTree
from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client.schedd import ScheddClient

QEDIT_OPTIONS = [
    a.Opt("constraint", 5, 1, help="modify the jobs this expression is true of", metavar="EXPR"),
    a.Opt("name", 2, 1, ("n",), help="modify jobs in the queue of this schedd", metavar="SCHEDD"),
]
QEDIT_USAGE = (
    "condor_qedit [-name SCHEDD] {cluster | cluster.proc | -constraint EXPR} ATTR VALUE..."
)
QEDIT_ARGUMENTS = [
    ("cluster | cluster.proc", "the job(s) to modify, unless -constraint is given"),
    ("ATTR VALUE", "set ATTR to VALUE, any ClassAd expression (strings in double quotes)"),
]
PRIO_OPTIONS = [
    a.Opt("p", 1, 1, help="set the priority (JobPrio) to N", metavar="N"),
    a.Opt("name", 2, 1, ("n",), help="change jobs queued at this schedd", metavar="SCHEDD"),
]
PRIO_USAGE = "condor_prio (-p N | +N | -N) [-name SCHEDD] {cluster | cluster.proc}..."
PRIO_ARGUMENTS = [
    ("+N", "increase the priority by N"),
    ("-N", "decrease the priority by N"),
    ("cluster | cluster.proc", "the job(s) whose priority changes"),
]


_FAILED = "Queue transaction failed.  No attributes were set."


@a.command("condor_qedit", QEDIT_OPTIONS, QEDIT_USAGE, QEDIT_ARGUMENTS)
def qedit(ctx: a.Context) -> None:
    """Modify job attributes in the queue."""
    opts = a.parsed(ctx)
    words = list(opts.positional)
    constraint = opts.value("constraint")
    ids: list[str] = []
    clusters: list[str] = []
    owner = None
    # As HTCondor's: the first word names the jobs (ids, and the words after it that are
    # ids too) or their owner, unless -constraint did; the rest are attributes and values.
    if constraint is None and words:
        if words[0][:1].isdigit():
            while words and _is_job(words[0]):
                word = words.pop(0)
                (ids if "." in word else clusters).append(word)
        else:
            owner = words.pop(0)
    attrs = _pairs(words)
    if not ids and not clusters and owner is None and constraint is None:
        fail(
            "condor_qedit : Error - there were no jobs specified.\n"
            "\tuse -constraint, jobid or owner argument to indicate which jobs to edit"
        )
    if not attrs:
        fail("condor_qedit : Error - no attributes specifed.")
    for name, value in attrs.items():
        try:
            ExprTree(value)
        except ValueError:
            fail(f"Update aborted, illegal value for : {name}")
    client = ScheddClient(load("condor_qedit"), opts.value("name"))
    first = next(iter(attrs))
    if ids and not clusters and owner is None:
        reply = run_client(client.edit, attrs, ids, None, False, False, True, tool="condor_qedit")
        failed = [j for j in ids if (reply.results or {}).get(j) not in (None, "ok")]
        if failed:
            fail(f'Failed to set attribute "{first}" for job {failed[0]}.\n{_FAILED}')
        count = len(ids)
    else:
        clauses = [f"ClusterId == {c}" for c in clusters]
        if owner is not None:
            clauses.append(f'Owner == "{owner}"')
        chosen = " || ".join(clauses) if clauses else str(constraint)
        reply = run_client(
            client.edit,
            attrs,
            ids,
            chosen,
            False,
            False,
            True,
            constraint is not None,
            tool="condor_qedit",
        )
        if reply.denied or reply.done == 0:
            fail(f'Failed to set attribute "{first}" by constraint: {chosen}\n{_FAILED}')
        count = reply.done
    for name in attrs:
        print(f'Set attribute "{name}" for {count} matching jobs.')


def _is_job(word: str) -> bool:
    cluster, dot, proc = word.partition(".")
    return cluster.isdigit() and (not dot or proc.isdigit())


def _pairs(words: list[str]) -> dict[str, str]:
    """`ATTR VALUE` pairs, or `ATTR=VALUE` words, in order."""
    out: dict[str, str] = {}
    while words:
        word = words.pop(0)
        if "=" in word and not word.startswith("="):
            name, _, value = word.partition("=")
        elif words:
            name, value = word, words.pop(0)
        else:
            fail(f"condor_qedit : expression required after attribute {word}")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name.strip()):
            fail(f'Update aborted, illegal attribute-name specified for attribute "{name}".')
        out[name.strip()] = value.strip()
    return out


# prio.cpp has no -help: it ends in usage(), exit 1, on stderr.
@a.command(
    "condor_prio", PRIO_OPTIONS, PRIO_USAGE, PRIO_ARGUMENTS, help_exit=1, help_to_stderr=True
)
def prio(ctx: a.Context) -> None:
    """Change the priority (JobPrio) of jobs in the queue."""
    words = list(ctx.args)
    expr = None
    rest = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "-p" and i + 1 < len(words):  # -p -5: a value, not an adjustment
            rest += words[i : i + 2]
            i += 2
            continue
        if (w.startswith("+") or w.startswith("-")) and _is_int(w[1:]):
            expr = f"JobPrio {w[0]} {int(w[1:])}"
        else:
            rest.append(w)
        i += 1
    opts = a.parsed(ctx, rest)
    value = opts.value("p")
    if value is not None:
        expr = str(int(value)) if _is_int(value) else None
    if expr is None:
        fail("You must specify a new priority or priority adjustment.\n" + f"Usage: {PRIO_USAGE}")
    ids, clauses = [], []
    for word in opts.positional:
        if _is_job(word):
            if "." in word:
                ids.append(word)
            else:
                clauses.append(f"ClusterId == {int(word)}")
        elif word[:1].isdigit():
            print(f"Invalid cluster # from {word}", file=sys.stderr)
        else:
            clauses.append(f'Owner == "{word}"')
    if not ids and not clauses:
        fail(f"Usage: {PRIO_USAGE}")
    client = ScheddClient(load("condor_prio"), opts.value("name"))
    chosen = " || ".join(clauses) or None
    reply = run_client(client.edit, {"JobPrio": expr}, ids, chosen, True, True, tool="condor_prio")
    # As HTCondor's: each job that could not be changed is named, and the status stays 0
    # (only not reaching the schedd is a failure).
    for job, result in (reply.results or {}).items():
        if result == "not-found":
            print(f"Couldn't retrieve current priority for {job}.", file=sys.stderr)
        elif result != "ok":
            print(f"Couldn't set new priority for {job}.", file=sys.stderr)


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit()
