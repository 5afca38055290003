"""The queue demo (README's first command) runs a real schedd and shows each step."""

from __future__ import annotations

from condorx.demo.queue import run_demo


def test_queue_demo_transcript():
    lines: list[str] = []
    run_demo(lines.append)
    text = "\n".join(lines)
    assert "3 job(s) submitted to cluster" in text
    assert "waiting for beta's input" in text
    assert "hello beta from job" in text  # the held job's Args after the kill -9
    assert "Job was held." in text and "Job was released." in text and "Job was aborted." in text
    assert "Total for query: 3 jobs; 0 completed, 0 removed, 3 idle" in text
