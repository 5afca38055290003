"""condor_wait's rules about time, on trio's MockClock: it follows a growing log until the
jobs end, gives up exactly at -wait, and stops at the log's end with -wait 0."""

from __future__ import annotations

import io

import trio
import trio.testing

from condorx.cli.wait import Wanted, wait

POLL = 0.25  # a binary fraction: the clock lands on exact times


def event(num: int, proc: int, text: str, body: str = "") -> str:
    return f"{num:03d} (007.{proc:03d}.000) 2026-11-27 10:00:00 {text}\n{body}...\n"


SUBMIT = [event(0, p, "Job submitted from host: <127.0.0.1:1>") for p in (0, 1)]
ENDS = [
    event(5, p, "Job terminated.", "\t(1) Normal termination (return value 0)\n") for p in (0, 1)
]


def run(path, want: Wanted, writes: list[tuple[float, str]]) -> tuple[int, float, str, str]:
    """wait() on a log that gets `writes` (at, text); its status, when it returned, and what
    it printed."""
    out, err = io.StringIO(), io.StringIO()
    result: list[tuple[int, float]] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:

            async def writer() -> None:
                for at, text in writes:
                    await trio.sleep_until(at)
                    with open(path, "a") as f:
                        f.write(text)

            nursery.start_soon(writer)
            status = await wait(path, want, out, err, poll=POLL)
            result.append((status, trio.current_time()))
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return result[0][0], result[0][1], out.getvalue(), err.getvalue()


def test_it_follows_the_log_until_every_job_has_ended(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("".join(SUBMIT))
    # The second job's end is written in two halves: the first half is no event yet.
    half = len(ENDS[1]) // 2
    writes = [(2.1, ENDS[0]), (5.6, ENDS[1][:half]), (7.9, ENDS[1][half:])]
    status, when, out, _ = run(log, Wanted(status=True), writes)
    assert (status, when) == (0, 8.0)
    assert out.splitlines() == [
        "7.0.0 submitted",
        "7.1.0 submitted",
        "7.0.0 completed",
        "7.1.0 completed",
        "All jobs done.",
    ]


def test_it_gives_up_exactly_when_wait_runs_out(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("".join(SUBMIT))
    status, when, out, _ = run(log, Wanted(seconds=10), [(3.0, ENDS[0])])
    assert (status, when, out) == (1, 10.0, "Time expired.\n")


def test_num_counts_ended_jobs_and_one_job_can_be_waited_for(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("".join(SUBMIT))
    status, when, out, _ = run(log, Wanted(num=1), [(1.3, ENDS[1])])
    assert (status, when, out) == (0, 1.5, "Specifed number of jobs (1) done.\n")
    log.write_text("".join(SUBMIT))
    status, when, out, _ = run(log, Wanted(cluster=7, proc=1), [(1.0, ENDS[0]), (4.2, ENDS[1])])
    assert (status, when, out) == (0, 4.25, "All jobs done.\n")


def test_a_log_that_never_names_the_job_is_an_error_at_the_deadline(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("")
    # Nothing pending at the end of what is there: done at once, as HTCondor's says.
    assert run(log, Wanted(), [])[:3] == (0, 0.0, "All jobs done.\n")
    status, when, _, err = run(log, Wanted(num=1, seconds=3), [])
    assert (status, when, err) == (1, 3.0, "This log does not mention any jobs!\n")


def test_wait_0_reads_to_the_end_and_stops(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("".join(SUBMIT) + ENDS[0])
    status, when, out, _ = run(log, Wanted(seconds=0, status=True), [(1.0, ENDS[1])])
    assert (status, when) == (0, 0.0)
    assert out.splitlines() == ["7.0.0 submitted", "7.1.0 submitted", "7.0.0 completed"]
