"""condor_submit's digest of a job factory (`Series.digest`), built into procs by the
schedd (`factory.Digest`), gives the procs condor_submit builds itself: on every corpus
file with one `queue N` statement whose digest can be made (real submit files and one
per command), with max_materialize added so that each is a factory."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_series import corpus_in_place

from condorx.daemons.schedd.factory import Digest
from condorx.language.attrs import PROTECTED
from condorx.language.submit.build import Facts, build
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.parse import parse
from condorx.language.submit.series import Series, may_make_factory
from condorx.testing.submit_oracle import FS_DOMAIN, command_line
from condorx.transport import wire

MOST_PROCS = 50
ONE = re.compile(r"^(\s*queue)\s*1?\s*$", re.IGNORECASE | re.MULTILINE)


def _compare(path: Path, environ: dict[str, str], user: str) -> bool | None:
    """Whether the digest's procs are build's (None: no digest for this file). A file
    that queues one job with a bare `queue` queues three here, so that procs after the
    first are compared too."""
    facts = Facts(str(path.parent.resolve()), "X86_64", "LINUX", FS_DOMAIN, user)
    top, append, queue_args = command_line(path)
    text = path.read_text(errors="replace")
    append = [*append, "max_materialize = 5"]
    try:
        desc = parse(text, str(path), append, path.name, top, queue_args)
        if len(desc.queues) != 1:
            return None
        series = Series(desc, 7, facts, None, environ)
        if series.total == 1 and ONE.search(text):
            text = ONE.sub(r"\1 3", text)
            desc = parse(text, str(path), append, path.name, top, queue_args)
            series = Series(desc, 7, facts, None, environ)
        digest = series.digest()
        if digest is None or series.total < 2:
            return None
        jobs = build(desc, 7, facts, None, environ=environ)
    except SubmitError:
        return None
    made = Digest(digest, None, 7, wire.ad_from_wire(jobs.cluster))
    assert made.total == len(jobs.procs), path.name
    for proc in range(min(made.total, MOST_PROCS)):
        want = {k: v for k, v in jobs.procs[proc].items() if k.lower() not in PROTECTED}
        assert made.proc(proc) == want, f"{path.name} proc {proc}"
    return True


def test_the_schedd_builds_a_digests_procs_as_condor_submit_does():
    compared = sum(bool(_compare(*each)) for each in corpus_in_place())
    assert compared >= 420, compared  # 426 of the 606 files here


@pytest.mark.parametrize(
    "line",
    [
        "max_materialize = 2",
        "JobMaterializeLimit = 2",
        "max_idle = 2",
        "materialize_max_idle = 2",
        "JobMaterializeMaxIdle = 2",
        "+JobMaterializeMaxIdle = 2",
        "MY.JobMaterializeMaxIdle = 2",
        "",
    ],
)
def test_condor_submits_quick_look_finds_every_factory(line, tmp_path):
    # condor_submit builds a Series only where may_make_factory says a factory may be.
    desc = parse(f"executable = /bin/true\n{line}\nqueue 3\n", "s")
    facts = Facts(str(tmp_path), "X86_64", "LINUX", FS_DOMAIN, "alice")
    is_factory = Series(desc, 7, facts, None, {}).is_factory
    assert is_factory == bool(line)
    assert may_make_factory(desc) == is_factory
