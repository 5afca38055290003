//! A submitter taking part in a cycle: its clusters' progress through the pool, and the
//! placing of one job at a time on the best free slot its cluster's search finds.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use condorx_classad::{ClassAd, Expr, Value};

use crate::autocluster::Cluster;
use crate::limits::{self, Limits, Wants};
use crate::negotiate::{Config, Cycle, Match, Rejection, Submitter, Turn, NO_MATCH};
use crate::ordering::{Orderings, Ranks};
use crate::pair::PairEval;
use crate::preempt::Rules;
use crate::prefilter::Prefilter;
use crate::pslot::{carve, request_of};
use crate::slots::PoolSlot;
use crate::time_limits::OutOfTime;
use crate::walk::{Candidate, Seek, Walk};

/// What the searches of one cycle share: the pool's orderings, an evaluator, and the
/// pool's weight still free (the pie to divide).
pub struct Search {
    pub orderings: Option<Orderings>,
    /// Slots ruled out by Requirements clauses that read only the slot.
    pub prefilter: Option<Prefilter>,
    pub pair: PairEval,
    pub left: f64,
    /// The concurrency limits' counts, when the pool has any job under one.
    pub limits: Option<Limits>,
}

/// A cluster's place in the cycle: its jobs still waiting, and its search for slots once
/// it has begun.
pub struct ClusterState {
    waiting: VecDeque<usize>,
    walk: Option<Walk>,
    /// A slot of its search was passed over for a concurrency limit (the last one
    /// named): when no slot is left, that is why its jobs wait.
    refused_by: Option<String>,
}

/// How placing a job went.
enum Placed {
    /// Matched, at this cost in pool weight.
    Match(Match, f64),
    /// No slot left matches the job (nor, then, its cluster).
    Nowhere,
    /// The best slot left costs more than the budget holds.
    OverBudget,
    /// A concurrency limit of the job's is reached (this job waits; the next may not).
    Limited(String),
}

/// A job's concurrency limits: none, the same on every slot, or an expression of the slot
/// (`concurrency_limits_expr`), evaluated against each candidate.
enum JobLimits {
    None,
    Fixed(Wants, String),
    PerSlot(Expr),
}

impl JobLimits {
    fn of(job: &ClassAd, counting: bool) -> JobLimits {
        if !counting {
            return JobLimits::None;
        }
        match job.lookup("ConcurrencyLimits") {
            None => JobLimits::None,
            Some(Expr::Lit(Value::Str(text))) => {
                JobLimits::Fixed(limits::parse(text), text.to_lowercase())
            }
            Some(expr) => JobLimits::PerSlot(expr.clone()),
        }
    }
}

pub struct Party<'a> {
    pub ctx: SubmitterCtx<'a>,
    clusters: Vec<ClusterState>,
    /// Clusters before this one have no job waiting (none comes back within a cycle).
    first: usize,
    /// Jobs still waiting for a slot.
    pub demand: usize,
    /// This cycle's matches cost this much pool weight.
    pub used: f64,
    /// A budget (its group's limit) stopped it with jobs still waiting.
    pub limited: bool,
    /// Its (or its schedd's, or the cycle's) time ran out: no more turns this cycle.
    pub out_of_time: Option<OutOfTime>,
}

impl<'a> Party<'a> {
    pub fn new(ctx: SubmitterCtx<'a>, clusters: Vec<Cluster>) -> Party<'a> {
        Party {
            demand: ctx.submitter.jobs.len(),
            ctx,
            clusters: clusters
                .into_iter()
                .map(|c| ClusterState {
                    waiting: c.jobs.into(),
                    walk: None,
                    refused_by: None,
                })
                .collect(),
            first: 0,
            used: 0.0,
            limited: false,
            out_of_time: None,
        }
    }

    pub fn clusters(&self) -> usize {
        self.clusters.len()
    }

    /// Match this submitter's jobs, cluster by cluster, until they have taken the turn's
    /// share of the pool's weight (the first match of a turn may round it up, as
    /// HTCondor's SubmitterLimitPermits lets it) or its deadline comes, spending no
    /// more pool weight than `budget` (its group's limit) holds; how many were matched.
    pub fn fill(
        &mut self,
        turn: Turn,
        budget: &mut f64,
        pool: &mut [PoolSlot],
        search: &mut Search,
        cycle: &mut Cycle,
    ) -> usize {
        let mut got = 0;
        let mut spent = 0.0;
        while self.demand > 0 {
            if turn.deadline.is_some_and(|d| Instant::now() >= d) {
                break; // HTCondor's "Reached deadline ... stopping"
            }
            let Some(cluster) = self.clusters.get_mut(self.first) else {
                break;
            };
            let Some(&job) = cluster.waiting.front() else {
                // Done for this cycle: its search (and the ordering it holds) can go.
                cluster.walk = None;
                self.first += 1;
                continue;
            };
            let share_left = turn.share - spent;
            let allowance = if got == 0 {
                *budget
            } else {
                budget.min(share_left)
            };
            if got > 0 && share_left <= 0.0 {
                break;
            }
            match self.ctx.place(job, cluster, allowance, pool, search, cycle) {
                Placed::Match(m, cost) => {
                    cluster.waiting.pop_front();
                    cycle.matches.push(m);
                    got += 1;
                    self.demand -= 1;
                    self.used += cost;
                    spent += cost;
                    *budget -= cost;
                }
                Placed::OverBudget => {
                    // Its turn's share is taken; or its group's limit is reached.
                    self.limited |= allowance >= *budget;
                    break;
                }
                Placed::Limited(name) => {
                    cluster.waiting.pop_front();
                    self.demand -= 1;
                    cycle.rejections.push(Rejection {
                        submitter: self.ctx.index,
                        job,
                        reason: Cow::Owned(format!("concurrency limit {name} reached")),
                    });
                }
                Placed::Nowhere => {
                    self.demand -= cluster.waiting.len();
                    let reason = match &cluster.refused_by {
                        Some(name) => Cow::Owned(format!("concurrency limit {name} reached")),
                        None => Cow::Borrowed(NO_MATCH),
                    };
                    for job in cluster.waiting.drain(..) {
                        cycle.rejections.push(Rejection {
                            submitter: self.ctx.index,
                            job,
                            reason: reason.clone(),
                        });
                    }
                }
            }
        }
        got
    }

    /// Share of the pool: inversely proportional to effective priority.
    pub fn weight(&self) -> f64 {
        1.0 / self.ctx.submitter.priority.max(1e-9)
    }

    /// Jobs still waiting when the cycle ends lost to users of better priority, or to
    /// their group's quota.
    pub fn reject_the_rest(&mut self, reason: &'static str, cycle: &mut Cycle) {
        for cluster in &mut self.clusters {
            for job in cluster.waiting.drain(..) {
                cycle.rejections.push(Rejection {
                    submitter: self.ctx.index,
                    job,
                    reason: Cow::Borrowed(reason),
                });
            }
        }
    }
}

pub struct SubmitterCtx<'a> {
    pub index: usize,
    pub submitter: &'a Submitter,
    pub config: &'a Config,
}

/// A submitter's name without its domain (`group.user@domain` is `group.user`): the name
/// its claims are charged to.
fn accounting_name(submitter: &str) -> &str {
    submitter
        .rsplit_once('@')
        .map_or(submitter, |(name, _)| name)
}

impl SubmitterCtx<'_> {
    fn seek<'b>(&'b self, job: &'b Arc<ClassAd>) -> Seek<'b> {
        let config = self.config;
        Seek {
            job,
            ranks: Ranks {
                pre: config.pre_job_rank.as_ref(),
                post: config.post_job_rank.as_ref(),
            },
            rules: Rules {
                requirements: config.preemption_requirements.as_ref(),
                priorities: &config.priorities,
                submitter: accounting_name(&self.submitter.name),
            },
            priority: self.submitter.priority,
            preemption_rank: config.preemption_rank.as_ref(),
            pairs: 0,
        }
    }

    /// Find `job` a slot within `budget`: its cluster's search goes on where the last
    /// job left it.
    fn place(
        &self,
        job_index: usize,
        cluster: &mut ClusterState,
        budget: f64,
        pool: &mut [PoolSlot],
        search: &mut Search,
        cycle: &mut Cycle,
    ) -> Placed {
        let Some(job) = self.submitter.jobs.get(job_index) else {
            return Placed::Nowhere;
        };
        let wants = JobLimits::of(job, search.limits.is_some());
        if let (JobLimits::Fixed(w, _), Some(l), Some(c)) =
            (&wants, &search.limits, self.config.limits.as_deref())
        {
            if let Some(name) = l.refuses(c, w) {
                return Placed::Limited(name.to_string());
            }
        }
        let mut seek = self.seek(job);
        let mut refused_by: Option<String> = None;
        let pair = &mut search.pair;
        let walk = cluster.walk.get_or_insert_with(|| {
            let ordering = search
                .orderings
                .as_mut()
                .and_then(|o| o.for_job(job, seek.ranks, pool, pair));
            let within = search.prefilter.as_mut().and_then(|p| p.for_job(job, pool));
            match ordering {
                Some(o) => Walk::ordered(o, within),
                None => Walk::listed(&mut seek, pool, within.as_deref()),
            }
        });
        let found = loop {
            let Some(c) = walk.peek(&mut seek, pool, pair) else {
                break Placed::Nowhere;
            };
            let Some(slot) = pool.get_mut(c.slot) else {
                walk.pass();
                continue;
            };
            let taken = match self.limits_on(&wants, job, &slot.ad, pair, search.limits.as_ref()) {
                Ok(taken) => taken,
                Err(name) => {
                    refused_by = Some(name);
                    walk.pass();
                    continue;
                }
            };
            let before = slot.weight();
            if !slot.partitionable {
                if before > budget {
                    break Placed::OverBudget;
                }
                slot.free = false;
                search.left -= before;
                walk.pass();
                let rank = pair.rank(job, &slot.ad);
                let m = self.matched(job_index, c, rank, None, taken, search.limits.as_mut());
                break Placed::Match(m, before);
            }
            // A partitionable slot may take this job too, if what is left still matches.
            let Some((dynamic, left)) = carve_for(slot, job, pair) else {
                walk.pass();
                continue;
            };
            // The match costs the drop in the slot's weight (SlotWeight of what is left).
            let was = slot.shrink(left);
            let cost = (before - slot.weight()).max(0.0);
            if cost > budget {
                slot.restore(was);
                break Placed::OverBudget;
            }
            slot.carved += 1;
            search.left -= cost;
            let dynamic = Arc::new(dynamic);
            let rank = pair.rank(job, &dynamic);
            let m = self.matched(
                job_index,
                c,
                rank,
                Some(dynamic),
                taken,
                search.limits.as_mut(),
            );
            break Placed::Match(m, cost);
        };
        cycle.pairs_evaluated += seek.pairs;
        if refused_by.is_some() {
            // Passed over for good: the counts only grow within a cycle, so the slot
            // refuses the cluster's later jobs as it refused this one.
            cluster.refused_by = refused_by;
        }
        found
    }

    /// What the job's limits come to on this slot (their text, lowercased, and the
    /// amounts), or the limit that has no room for them.
    fn limits_on(
        &self,
        wants: &JobLimits,
        job: &Arc<ClassAd>,
        slot: &Arc<ClassAd>,
        pair: &mut PairEval,
        counts: Option<&Limits>,
    ) -> Result<Option<(String, Wants)>, String> {
        match wants {
            JobLimits::None => Ok(None),
            JobLimits::Fixed(w, text) => Ok(Some((text.clone(), w.clone()))),
            JobLimits::PerSlot(expr) => {
                let Value::Str(text) = pair.value(expr, job, slot) else {
                    return Ok(None); // not a string: no limits, as EvalString fails
                };
                let w = limits::parse(&text);
                let config = self.config.limits.as_deref();
                if let (Some(l), Some(c)) = (counts, config) {
                    if let Some(name) = l.refuses(c, &w) {
                        return Err(name.to_string());
                    }
                }
                Ok(Some((text.to_lowercase(), w)))
            }
        }
    }

    fn matched(
        &self,
        job: usize,
        c: Candidate,
        rank: f64,
        dynamic_slot: Option<Arc<ClassAd>>,
        taken: Option<(String, Wants)>,
        counts: Option<&mut Limits>,
    ) -> Match {
        let limits = taken.map(|(text, wants)| {
            if let Some(counts) = counts {
                counts.take(&wants);
            }
            text
        });
        Match {
            submitter: self.index,
            job,
            slot: c.slot,
            rank,
            preempts: c.preempts,
            dynamic_slot,
            limits,
        }
    }
}

/// The dynamic slot a partitionable slot would carve for `job`, and what it would keep,
/// if what is left of it still matches the job and holds its request.
fn carve_for(
    slot: &PoolSlot,
    job: &Arc<ClassAd>,
    pair: &mut PairEval,
) -> Option<(ClassAd, ClassAd)> {
    if !slot.matches(pair, job) {
        return None;
    }
    let req = request_of(pair, job, &slot.ad);
    carve(&slot.ad, &req, slot.carved + 1)
}
