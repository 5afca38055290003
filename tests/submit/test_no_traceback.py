"""No submit description, however odd, ends in anything but jobs or a SubmitError."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condorx.language.submit import commands
from condorx.language.submit.build import Facts, build
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.keywords import SIMPLE
from condorx.language.submit.parse import parse

_NAMES = sorted(commands.KNOWN | set(SIMPLE)) + ["+Attr", "MY.Attr", "foo", "RequestCpus", "Iwd"]
_VALUES = [
    "",
    "1",
    "-3",
    "2 GB",
    "12 XB",
    "true",
    "maybe",
    '"quoted"',
    '"unterminated',
    'a "b',
    "'single'",
    "$(Process)",
    "$(undefined:default)",
    "$(self)",
    "$F(nothing)",
    "$INT(x)",
    "$CHOICE(9, a, b)",
    "$RANDOM_INTEGER(5, 1)",
    "$ENV(NOPE)",
    "(((",
    "a, b c,,d",
    "docker://x",
    "osdf:///x/y.sif",
    "/nonexistent/path",
    "SIGNOPE",
    "9",
    "x y\\",
    "ünïcode ✓",
    "Memory > 1 && TARGET.Cpus",
    "*/5",
    "[1:2]",
]
_QUEUES = [
    "queue",
    "queue 2",
    "queue 0",
    "queue -1",
    "queue many",
    "queue in (a, b)",
    "queue x,y from (\n1 2\n)",
    "queue x from nofile.txt",
    "queue matching *",
    "queue d matching dirs nothing*",
    "queue Item in [::0] (a)",
    "queue in (",
    "queue 2 x in [1:] a b c",
]


@st.composite
def descriptions(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        name = draw(st.sampled_from(_NAMES))
        value = draw(st.sampled_from(_VALUES) | st.text(max_size=12))
        lines.append(f"{name} = {value}")
    lines += draw(st.lists(st.sampled_from(_QUEUES) | st.text(max_size=20), max_size=2))
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\\\n"]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(descriptions())
def test_any_description_gives_jobs_or_a_submit_error(text):
    with tempfile.TemporaryDirectory() as cwd:
        (Path(cwd) / "dir1").mkdir()
        facts = Facts(cwd=cwd, arch="X86_64", opsys="LINUX", fs_domain="x", user="alice")
        try:
            jobs = build(parse(text, "fuzz.sub"), 1, facts, None, environ={})
        except SubmitError as e:
            assert "fuzz.sub" in str(e) or "queue" in str(e).lower(), str(e)
        else:
            assert isinstance(jobs.procs, list)
