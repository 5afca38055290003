"""condor_q's tabular views, with HTCondor's columns, widths and status letters.

Each view names the columns it needs (evaluated by the schedd) and turns chunks of rows
into text. Rows arrive as `[ClusterId, ProcId, Owner, JobStatus, ...]`.
"""

from __future__ import annotations

import os
import time

from condorx.cli.timefmt import duration as _duration
from condorx.cli.timefmt import short_date as _date
from condorx.language.attrs import JobStatus
from condorx.record import field, record

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

# The columns each view asks the schedd to evaluate; every row starts with BASE.
BASE = ["ClusterId", "ProcId", "Owner", "JobStatus"]
NOBATCH = BASE + [
    "QDate",
    "RemoteWallClockTime",
    "JobCurrentStartDate",
    "JobPrio",
    "ImageSize",
    "MemoryUsage",
    "Cmd",
    "ifThenElse(Args =!= undefined, Args, Arguments)",
]
BATCH = BASE + [
    "QDate",
    "JobBatchName",
    "TotalSubmitProcs",
    "JobUniverse",
    "DAG_NodesTotal",
    "DAG_NodesDone",
    "DAGManJobId",
]
HOLD = BASE + ["EnteredCurrentStatus", "HoldReason"]
RUN = BASE + ["QDate", "RemoteWallClockTime", "JobCurrentStartDate", "RemoteHost"]

# The schedule's five fields, the next run, its window and prep time, and the run count.
CRON = BASE + [
    "CronMinute",
    "CronHour",
    "CronDayOfMonth",
    "CronMonth",
    "CronDayOfWeek",
    "DeferralTime",
    "ifThenElse(CronWindow =!= undefined, CronWindow, DeferralWindow)",
    "ifThenElse(CronPrepTime =!= undefined, CronPrepTime, DeferralPrepTime)",
    "NumJobStarts",
    "Cmd",
]
# The jobs -cron shows: those with a schedule or a deferral time.
CRON_CONSTRAINT = (
    "(DeferralTime =!= undefined || "
    + " || ".join(f"{name} =!= undefined" for name in CRON[4:9])
    + ")"
)


def _run_time(row: list[Any], wall: int, start: int) -> str:
    total = row[wall] if isinstance(row[wall], int | float) else 0
    if row[3] == JobStatus.RUNNING and isinstance(row[start], int | float):
        total += time.time() - row[start]
    return _duration(total)


def _letter(status: Any) -> str:
    try:
        return JobStatus(status).letter
    except ValueError:
        return "?"


class View:
    columns: list[str]
    header: str

    def rows(self, chunk: list[list[Any]]) -> str:
        raise NotImplementedError

    def finish(self) -> str:
        return ""


class NoBatchView(View):
    columns = NOBATCH
    header = " ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD"

    def rows(self, chunk: list[list[Any]]) -> str:
        return "".join(self._row(r) for r in chunk)

    def _row(self, r: list[Any], owner_width: int = 14) -> str:
        size = max(x for x in (r[8], r[9], 0) if isinstance(x, int | float)) / 1024.0
        cmd = os.path.basename(str(r[10] or "")) + (f" {r[11]}" if r[11] else "")
        return (
            f"{r[0]:>4}.{r[1]:<3} {str(r[2]):<{owner_width}} {_date(r[4]):>11}"
            f" {_run_time(r, 5, 6):>12} {_letter(r[3])}  {r[7] or 0:<3} {size:>4.1f} {cmd[:60]}\n"
        )


class DagView(NoBatchView):
    """`condor_q -dag`: each DAGMan job with its nodes' jobs under it, each shown by its
    node name (` |-NAME`, deeper for a sub-DAG's), as HTCondor's condor_q -dag shows them."""

    columns = NOBATCH + ["DAGManJobId", "DAGNodeName"]
    header = " ID      OWNER/NODENAME      SUBMITTED     RUN_TIME ST PRI SIZE CMD"

    def __init__(self) -> None:
        self.all: list[list[Any]] = []

    def rows(self, chunk: list[list[Any]]) -> str:
        self.all.extend(chunk)
        return ""

    def finish(self) -> str:
        clusters = {r[0] for r in self.all}
        children: dict[int, list[list[Any]]] = {}
        roots = []
        for r in self.all:
            dagman = r[12]
            if isinstance(dagman, int) and dagman in clusters and dagman != r[0]:
                children.setdefault(dagman, []).append(r)
            else:
                roots.append(r)
        out: list[str] = []

        def show(r: list[Any], depth: int) -> None:
            row = list(r)
            if depth:
                row[2] = (" " * depth + "|-" + str(r[13] or ""))[:17]
            out.append(self._row(row, 17))
            if r[1] == 0:
                for child in children.pop(r[0], []):
                    show(child, depth + 1)

        for r in roots:
            show(r, 0)
        return "".join(out)


class HoldView(View):
    columns = HOLD
    header = " ID      OWNER          HELD_SINCE  HOLD_REASON"

    def rows(self, chunk: list[list[Any]]) -> str:
        return "".join(
            f"{r[0]:>4}.{r[1]:<3} {str(r[2]):<14} {_date(r[4]):<11} {r[5] or ''}\n" for r in chunk
        )


class RunView(View):
    columns = RUN
    header = " ID      OWNER            SUBMITTED     RUN_TIME HOST(S)"

    def rows(self, chunk: list[list[Any]]) -> str:
        return "".join(
            f"{r[0]:>4}.{r[1]:<3} {str(r[2]):<14} {_date(r[4]):>11} {_run_time(r, 5, 6):>12}"
            f" {r[7] or ''}\n"
            for r in chunk
        )


class CronView(View):
    """condorx's own: each deferred or cron job's schedule and when it next runs."""

    columns = CRON
    header = (
        " ID      OWNER          ST SCHEDULE (m h dom mon dow)  NEXT_RUN      IN"
        "         WINDOW  PREP RUNS CMD"
    )

    def rows(self, chunk: list[list[Any]]) -> str:
        now = time.time()
        out = []
        for r in chunk:
            fields = r[4:9]
            schedule = (
                " ".join("*" if f is None else str(f) for f in fields)
                if any(f is not None for f in fields)
                else "once"
            )
            out.append(
                f"{r[0]:>4}.{r[1]:<3} {str(r[2]):<14} {_letter(r[3])}  {schedule:<26}"
                f" {_date(r[9], '-'):<13} {_until(r[9], r[3], now):<10}"
                f" {_seconds(r[10]):>6} {_seconds(r[11]):>5} {r[12] or 0:>4}"
                f" {os.path.basename(str(r[13] or ''))}\n"
            )
        return "".join(out)


def _until(t: Any, status: Any, now: float) -> str:
    """How long until the next run: `in 4m`, `due` once it has passed, `running`."""
    if status == JobStatus.RUNNING:
        return "running"
    if status == JobStatus.HELD:
        return "held"
    if not isinstance(t, int | float) or isinstance(t, bool):
        return "-"
    left = int(t - now)
    if left <= 0:
        return "due"
    days, rest = divmod(left, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"in {days}d{hours}h"
    if hours:
        return f"in {hours}h{minutes}m"
    return f"in {minutes}m{secs:02d}s" if minutes else f"in {secs}s"


def _seconds(v: Any) -> str:
    return f"{v}s" if isinstance(v, int) and not isinstance(v, bool) else "-"


@record
class _Batch:
    owner: str
    name: str
    submitted: Any
    total_submitted: int = 0
    clusters: set[int] = field(default_factory=set)
    counts: dict[int, int] = field(default_factory=dict)
    first: tuple[int, int] | None = None
    last: tuple[int, int] | None = None
    dags: int = 0  # DAGMan jobs in the batch: their DAG_* counts are its DONE and TOTAL
    dag_total: int = 0
    dag_done: int = 0


class BatchView(View):
    """Jobs grouped by JobBatchName, else by cluster, one line per group. A DAG is one
    batch (its nodes' jobs carry its batch name): as HTCondor's condor_q counts it, its
    DAGMan job is not a job of the batch; its DAG_NodesDone and DAG_NodesTotal are the
    batch's DONE and TOTAL, and RUN, IDLE and HOLD count the node jobs."""

    columns = BATCH
    header = "OWNER  BATCH_NAME    SUBMITTED   DONE   RUN    IDLE   HOLD  TOTAL JOB_IDS"

    def __init__(self) -> None:
        self.batches: dict[tuple[str, str], _Batch] = {}

    def rows(self, chunk: list[list[Any]]) -> str:
        for row in chunk:
            cluster, proc, owner, status, qdate, batch_name, total = row[:7]
            universe, dag_total, dag_done, dagman = row[7:11]
            name = str(batch_name) if batch_name else f"ID: {cluster}"
            b = self.batches.get((str(owner), name))
            if b is None:
                b = self.batches[(str(owner), name)] = _Batch(str(owner), name, qdate)
            if universe == 7 and isinstance(dag_total, int):
                b.dags += 1
                b.dag_total += dag_total
                b.dag_done += dag_done if isinstance(dag_done, int) else 0
                continue
            if cluster not in b.clusters:
                b.clusters.add(cluster)
                if dagman is None:  # a DAG's nodes are counted by their DAGMan job
                    b.total_submitted += total if isinstance(total, int) else 0
            b.counts[status] = b.counts.get(status, 0) + 1
            job = (cluster, proc)
            b.first = job if b.first is None or job < b.first else b.first
            b.last = job if b.last is None or job > b.last else b.last
        return ""

    def finish(self) -> str:
        return "".join(self._line(b) for b in self.batches.values())

    def _line(self, b: _Batch) -> str:
        present = sum(b.counts.values())
        done = max(0, b.total_submitted - present) + b.dag_done
        counts = [b.counts.get(s, 0) for s in (JobStatus.RUNNING, JobStatus.IDLE, JobStatus.HELD)]
        cells = " ".join(f"{_dash(n):>6}" for n in [done, *counts])
        total = b.dag_total + (max(present, b.total_submitted) if not b.dags else 0)
        return f"{b.owner:<6} {b.name:<12} {_date(b.submitted):>11} {cells} {total:>6} {_ids(b)}\n"


def _ids(b: _Batch) -> str:
    """`1.0-99` for one cluster's range, `1.0 ... 3.4` across clusters."""
    if b.first is None or b.last is None:
        return ""
    ids = f"{b.first[0]}.{b.first[1]}"
    if b.last == b.first:
        return ids
    if b.last[0] == b.first[0]:
        return f"{ids}-{b.last[1]}"
    return f"{ids} ... {b.last[0]}.{b.last[1]}"


def _dash(n: int) -> str:
    return str(n) if n else "_"


class Totals:
    def __init__(self) -> None:
        self.counts: dict[int, int] = {}

    def add(self, chunk: list[list[Any]]) -> None:
        for row in chunk:
            self.counts[row[3]] = self.counts.get(row[3], 0) + 1

    def line(self, whom: str) -> str:
        c = self.counts
        n = sum(c.values())
        return (
            f"Total for {whom}: {n} jobs; {c.get(JobStatus.COMPLETED, 0)} completed, "
            f"{c.get(JobStatus.REMOVED, 0)} removed, {c.get(JobStatus.IDLE, 0)} idle, "
            f"{c.get(JobStatus.RUNNING, 0)} running, {c.get(JobStatus.HELD, 0)} held, "
            f"{c.get(JobStatus.SUSPENDED, 0)} suspended"
        )
