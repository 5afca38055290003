"""What the schedd does to each job it is given before it queues it, as HTCondor's does at
commit: the job transforms (JOB_TRANSFORM_NAMES, in order), then the submit requirements
(SUBMIT_REQUIREMENT_NAMES) on the transformed job.

A job is seen as HTCondor's schedd sees it then: its proc's attributes (with ProcId and
its initial JobStatus) chained to its cluster's (with the Owner and User the schedd gives
it). A transform whose REQUIREMENTS match writes its changes into the proc; a deleted
attribute is written as undefined, so that the proc no longer reads its cluster's. A job
factory's cluster is transformed and checked once, through a proc 0 that carries
JobFactoryId, its changes written into the cluster.

A requirement is evaluated with the schedd's ad as MY and the job as TARGET. False: the
whole submission is refused with the requirement's _REASON (or "Submit requirement X not
met."), unless _IS_WARNING makes it a warning. Not a boolean: refused, as HTCondor does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from condorx.classad import ClassAd, ExprTree, eval_against
from condorx.daemons.schedd.submission import Proc, Submission
from condorx.errors import Refusal, Refused
from condorx.language.attrs import PROTECTED, JobStatus
from condorx.language.config import Config
from condorx.language.transform import Transform, TransformError, apply, matches, parse, truth
from condorx.transport import wire

log = logging.getLogger("condorx.schedd")


@dataclass(frozen=True)
class Requirement:
    name: str
    expr: ExprTree
    reason: ExprTree | None
    is_warning: bool


@dataclass
class SubmitRules:
    transforms: list[Transform] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # why a transform could not be read
    requirements: list[Requirement] = field(default_factory=list)
    config: Callable[[str], str | None] = lambda _: None

    @property
    def active(self) -> bool:
        return bool(self.transforms or self.broken or self.requirements)

    def job(self, view: ClassAd, my: ClassAd, where: str) -> tuple[dict[str, ExprTree], list[str]]:
        """Transform one job's `view` in place and check it; the attributes to write (a
        deleted one as undefined) and the warnings. Refused when a requirement fails."""
        if self.broken:
            raise Refused(
                Refusal.BAD_REQUEST,
                f"Failed to apply a required job transform: {self.broken[0]}",
            )
        changed: set[str] = set()
        for transform in self.transforms:
            if matches(transform, view):
                changed |= apply(transform, view, self.config)
        own = {k.lower() for k in view.own_keys()}
        writes = {}
        for name in changed:
            if name.lower() in PROTECTED:
                log.warning("%s: a job transform may not set %s; ignored", where, name)
                continue
            writes[name] = view.lookup(name) if name.lower() in own else ExprTree("undefined")
        return writes, self._check(view, my)

    def _check(self, job: ClassAd, my: ClassAd) -> list[str]:
        warnings = []
        for req in self.requirements:
            verdict = truth(eval_against(req.expr, my, [job])[0])
            if verdict is None:
                raise Refused(
                    Refusal.BAD_REQUEST, f"Submit requirement {req.name} evaluated to non-boolean."
                )
            if verdict:
                continue
            reason = f"Submit requirement {req.name} not met."
            if req.reason is not None:
                said = eval_against(req.reason, my, [job])[0]
                if isinstance(said, str):
                    reason = said
            if not req.is_warning:
                raise Refused(Refusal.PERMISSION, reason)
            warnings.append(reason)
        return warnings


def from_config(cfg: Config) -> SubmitRules:
    rules = SubmitRules(config=cfg.raw)
    for name in cfg.get_list("JOB_TRANSFORM_NAMES"):
        if name.upper() == "NAMES":
            continue
        knob = f"JOB_TRANSFORM_{name}"
        text = (cfg.raw(knob) or "").strip()
        if not text:
            log.warning("%s is not defined (or empty): ignored", knob)
        elif text.startswith("["):
            log.error("%s is in the old ClassAd form, no longer supported: ignored", knob)
        else:
            try:
                rules.transforms.append(parse(text, name, _where(cfg, knob)))
            except TransformError as e:
                log.error("%s; every submission will be refused until it is fixed", e)
                rules.broken.append(str(e))
    for name in cfg.get_list("SUBMIT_REQUIREMENT_NAMES"):
        requirement = _requirement(cfg, name)
        if requirement is not None:
            rules.requirements.append(requirement)
    return rules


def _requirement(cfg: Config, name: str) -> Requirement | None:
    if name == "NAMES":
        return None
    knob = f"SUBMIT_REQUIREMENT_{name}"
    text = cfg.get(knob)
    if not text:
        log.warning("submit requirement %s is not defined: ignored", name)
        return None
    expr = _expression(text)
    if expr is None:
        log.error("%s: cannot parse %r: ignored", _where(cfg, knob), text)
        return None
    reason_text = cfg.get(f"{knob}_REASON")
    reason = _expression(reason_text) if reason_text else None
    if reason_text and reason is None:
        log.error("%s_REASON: cannot parse %r: ignored", _where(cfg, knob), reason_text)
    return Requirement(name, expr, reason, cfg.get_bool(f"{knob}_IS_WARNING", False))


def _expression(text: str) -> ExprTree | None:
    try:
        return ExprTree(text)
    except ValueError:  # a ClassAdParseError too
        return None


def _where(cfg: Config, knob: str) -> str:
    found = cfg.where(knob)
    if found is None:
        return knob
    path, line = found
    return f"{knob} ({path}, line {line})" if line else f"{knob} ({path})"


def write(own: dict[str, object], ad: ClassAd, writes: dict[str, ExprTree]) -> None:
    """Put a job's transform changes into its wire map and its decoded ad."""
    for name, expr in writes.items():
        own[name] = wire.Expr(str(expr))
        ad[name] = expr


def stamps(owner: str, uid_domain: str, cluster: int | None) -> ClassAd:
    """What the schedd gives every job's cluster, as a transform sees the job."""
    ad = ClassAd({"Owner": owner, "User": f"{owner}@{uid_domain}"})
    if cluster is not None:
        ad["ClusterId"] = cluster
    return ad


def submission(
    rules: SubmitRules, sub: Submission, base: ClassAd, my: ClassAd
) -> tuple[Submission, list[str]]:
    """Each proc of `sub` transformed and checked; the submission as it will queue, and
    the warnings (each said once)."""
    cluster = sub.cluster.copy()
    cluster.update(base)
    where = base.get("ClusterId", "new")
    procs, warnings = [], []
    for i, p in enumerate(sub.procs):
        view = p.ad.copy()
        view["ProcId"] = i
        if "JobStatus" not in view:
            view["JobStatus"] = cluster.get(
                "JobStatus", cluster.get("InitialJobStatus", int(JobStatus.IDLE))
            )
        view.chain(cluster)
        writes, said = rules.job(view, my, f"{where}.{i}")
        warnings += [w for w in said if w not in warnings]
        if writes:
            own, ad = dict(p.own), p.ad.copy()
            write(own, ad, writes)
            p = Proc(own, ad)
        procs.append(p)
    return Submission(sub.cluster, tuple(procs)), warnings


def materialized(
    rules: SubmitRules,
    own: dict[str, object],
    job: ClassAd,
    cluster_ad: ClassAd,
    my: ClassAd,
    key: tuple[int, int],
) -> None:
    """A job a factory makes, transformed and checked as it is made (HTCondor's
    TRANSFORM_FACTORY_AND_JOB_ADS, true by default): its changes written into its wire
    map and its ad; Refused when a requirement fails. Its warnings are logged, as
    there is no one at condor_submit to tell."""
    view = job.copy()
    view["ClusterId"], view["ProcId"] = key
    if "JobStatus" not in view and "JobStatus" not in cluster_ad:
        view["JobStatus"] = int(JobStatus.IDLE)
    view.chain(cluster_ad)
    where = f"{key[0]}.{key[1]}"
    writes, warnings = rules.job(view, my, where)
    for said in warnings:
        log.warning("%s: %s", where, said)
    write(own, job, writes)


def factory_cluster(
    rules: SubmitRules, cluster_ad: ClassAd, base: ClassAd, my: ClassAd
) -> tuple[ClassAd, list[str]]:
    """A job factory's cluster transformed and checked through a proc 0 (JobFactoryId
    set, so a rule can tell a factory); the cluster ad with the changes, the warnings."""
    cluster = cluster_ad.copy()
    cluster.update(base)
    view = ClassAd({"ProcId": 0, "JobFactoryId": base.get("ClusterId", 0)})
    if "JobStatus" not in cluster:
        view["JobStatus"] = int(JobStatus.IDLE)
    view.chain(cluster)
    writes, warnings = rules.job(view, my, f"{base.get('ClusterId', 'new')}.-1")
    out = cluster_ad.copy()
    for name, expr in writes.items():
        out[name] = expr
    return out, warnings
