"""Property: building procs incrementally (re-expanding only what varies, templates for
plain references) gives exactly the jobs that building every proc whole gives."""

from __future__ import annotations

import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st
from test_submit_mapping import CFG

from condorx.language.submit.build import Facts, build
from condorx.language.submit.parse import parse

REFS = [
    "$(Process)",
    "$(Item)",
    "$(Step)",
    "$(name)",
    "$(other)",
    "$(Cluster)",
    "$INT(Process,%03d)",
    "$(undefined:dflt)",
    "$$(Memory)",
    "$(name_$(Step))",
    "x",
]


def value(refs=REFS):
    return st.lists(st.sampled_from(refs), min_size=1, max_size=4).map("-".join)


# `other` may not refer back to `name` (that would be a cycle, refused elsewhere).
BASE = [r for r in REFS if "name" not in r and "other" not in r]


@st.composite
def description(draw):
    lines = [
        "executable = /bin/echo",
        f"other = {draw(value(BASE))}",
        f"name = {draw(value([r for r in REFS if 'name' not in r]))}",
        "name_0 = zero",
        '+Uses = "$(name) $(other) $(name_0)"',
        f"arguments = {draw(value())}",
        f"output = out.{draw(value())}",
        f'+Tag = "{draw(value())}"',
    ]
    if draw(st.booleans()):
        lines.append(f"request_memory = {draw(st.sampled_from(['2 GB', '100', '$(Process) + 1']))}")
    count = draw(st.integers(1, 3))
    items = draw(st.lists(st.sampled_from(["a", "b", "c d", "e,f"]), min_size=1, max_size=3))
    if draw(st.booleans()):
        lines.append(f"queue {count} in ({', '.join(items)})")
    else:
        lines.append(f"queue {count}")
    if draw(st.booleans()):
        lines.append(f"arguments = again {draw(value())}")
        lines.append("queue 2")
    # A later statement whose procs may all be alike (or not), as the 1,000 statements
    # of 1,000 procs each that a big submission may be.
    if draw(st.booleans()):
        lines.append(
            f"request_memory = {draw(st.sampled_from(['7', '$(Process) + 2', '$(Cluster)']))}"
        )
        lines.append(f"queue {draw(st.integers(1, 4))}")
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None)
@given(description())
def test_incremental_build_equals_whole_build(text):
    with tempfile.TemporaryDirectory() as cwd:
        facts = Facts.from_config(CFG, cwd)
        fast = build(parse(text, "s"), 3, facts, CFG)
        slow = build(parse(text, "s"), 3, facts, CFG, fast=False)
    assert fast.cluster == slow.cluster
    assert fast.procs == slow.procs
