"""What the negotiator says of the jobs a cycle left unmatched: in its log, as HTCondor's
negotiator says it (D_MATCH), and to each job's schedd (one job of each group offered),
a per-resource group quota's refusal in the words it was configured in."""

from __future__ import annotations

import logging

from condorx.daemons.negotiator.resource_quotas import Cap, reason
from condorx.language.negotiation import Cycle

log = logging.getLogger("condorx.negotiator")


def log_rejections(result: Cycle, homes: dict[int, str], caps: list[Cap]) -> None:
    """The submitters out of time, and the jobs a limit held back."""
    late = {
        r.submitter.name: r.reason
        for r in result.rejections.distinct(lambda why: why.startswith("MAX_TIME_PER"))
    }
    for name, why in late.items():
        log.info("  Negotiation with %s skipped because of time limits: %s", name, why)
    for r in result.rejections.distinct(lambda why: why.startswith("concurrency limit")):
        job_id = f"{r.job.get('ClusterId')}.{r.job.get('ProcId')}"
        why = reason(r.reason, caps)
        log.info("Rejected %s %s %s: %s", job_id, r.submitter.name, homes[id(r.submitter)], why)


def by_schedd(result: Cycle, homes: dict[int, str], caps: list[Cap]) -> dict[str, list[list[str]]]:
    """The cycle's unmatched jobs (one of each group offered) by schedd, with why."""
    out: dict[str, list[list[str]]] = {}
    for r in result.rejections.distinct(lambda _: True):
        job_id = f"{r.job.get('ClusterId')}.{r.job.get('ProcId')}"
        out.setdefault(homes[id(r.submitter)], []).append([job_id, reason(r.reason, caps)])
    return out


def summary(result: Cycle, caps: list[Cap]) -> str:
    """`12 no match found, 3 group group_ml's GPUs quota reached`: the jobs each reason
    left waiting, most first."""
    counts: dict[str, int] = {}
    for why, n in result.rejections.by_reason().items():
        said = reason(why, caps)
        counts[said] = counts.get(said, 0) + n
    return ", ".join(f"{n:,} {why}" for why, n in counts.items())
