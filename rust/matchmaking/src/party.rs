//! A submitter taking part in a cycle: its clusters' progress through the pool, and the
//! placing of one job at a time on the best free slot its cluster's search finds.

use std::collections::VecDeque;
use std::sync::Arc;

use condorx_classad::{ClassAd, Expr, Value};

use crate::autocluster::Cluster;
use crate::negotiate::{Config, Cycle, Match, Rejection, Submitter, NO_MATCH};
use crate::ordering::{Orderings, Ranks};
use crate::pair::PairEval;
use crate::preempt::Rules;
use crate::prefilter::Prefilter;
use crate::pslot::{carve, request_of};
use crate::slots::PoolSlot;
use crate::walk::{Candidate, Seek, Walk};

/// What the searches of one cycle share: the pool's orderings, an evaluator, and the
/// pool's weight still free (the pie to divide).
pub struct Search {
    pub orderings: Option<Orderings>,
    /// Slots ruled out by Requirements clauses that read only the slot.
    pub prefilter: Option<Prefilter>,
    pub pair: PairEval,
    pub left: usize,
}

/// A cluster's place in the cycle: its jobs still waiting, and its search for slots once
/// it has begun.
pub struct ClusterState {
    waiting: VecDeque<usize>,
    walk: Option<Walk>,
}

/// How placing a job went.
enum Placed {
    /// Matched, at this cost in pool weight.
    Match(Match, usize),
    /// No slot left matches the job (nor, then, its cluster).
    Nowhere,
    /// The best slot left costs more than the budget holds.
    OverBudget,
}

pub struct Party<'a> {
    pub ctx: SubmitterCtx<'a>,
    clusters: Vec<ClusterState>,
    /// Clusters before this one have no job waiting (none comes back within a cycle).
    first: usize,
    /// Jobs still waiting for a slot.
    pub demand: usize,
    /// This cycle's matches cost this much pool weight.
    pub used: usize,
    /// A budget (its group's limit) stopped it with jobs still waiting.
    pub limited: bool,
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
                })
                .collect(),
            first: 0,
            used: 0,
            limited: false,
        }
    }

    pub fn clusters(&self) -> usize {
        self.clusters.len()
    }

    /// Match up to `quota` of this submitter's jobs, cluster by cluster, spending no more
    /// pool weight than `budget` holds; returns how many were matched.
    pub fn fill(
        &mut self,
        quota: usize,
        budget: &mut f64,
        pool: &mut [PoolSlot],
        search: &mut Search,
        cycle: &mut Cycle,
    ) -> usize {
        let mut got = 0;
        while got < quota {
            let Some(cluster) = self.clusters.get_mut(self.first) else {
                break;
            };
            let Some(&job) = cluster.waiting.front() else {
                // Done for this cycle: its search (and the ordering it holds) can go.
                cluster.walk = None;
                self.first += 1;
                continue;
            };
            match self.ctx.place(job, cluster, *budget, pool, search, cycle) {
                Placed::Match(m, cost) => {
                    cluster.waiting.pop_front();
                    cycle.matches.push(m);
                    got += 1;
                    self.demand -= 1;
                    self.used += cost;
                    *budget -= cost as f64;
                }
                Placed::OverBudget => {
                    self.limited = true;
                    break;
                }
                Placed::Nowhere => {
                    self.demand -= cluster.waiting.len();
                    for job in cluster.waiting.drain(..) {
                        cycle.rejections.push(Rejection {
                            submitter: self.ctx.index,
                            job,
                            reason: NO_MATCH,
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
                    reason,
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
        let mut seek = self.seek(job);
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
            let before = slot.weight();
            if !slot.partitionable {
                if before as f64 > budget {
                    break Placed::OverBudget;
                }
                slot.free = false;
                search.left -= before;
                walk.pass();
                let rank = pair.rank(job, &slot.ad);
                break Placed::Match(self.matched(job_index, c, rank, None), before);
            }
            // A partitionable slot may take this job too, if what is left still matches.
            let Some((dynamic, left)) = carve_for(slot, job, pair) else {
                walk.pass();
                continue;
            };
            let cost = before.saturating_sub(cpus_of(&left));
            if cost as f64 > budget {
                break Placed::OverBudget;
            }
            slot.carved += 1;
            slot.ad = Arc::new(left);
            search.left -= cost;
            let dynamic = Arc::new(dynamic);
            let rank = pair.rank(job, &dynamic);
            break Placed::Match(self.matched(job_index, c, rank, Some(dynamic)), cost);
        };
        cycle.pairs_evaluated += seek.pairs;
        found
    }

    fn matched(
        &self,
        job: usize,
        c: Candidate,
        rank: f64,
        dynamic_slot: Option<Arc<ClassAd>>,
    ) -> Match {
        Match {
            submitter: self.index,
            job,
            slot: c.slot,
            rank,
            preempts: c.preempts,
            dynamic_slot,
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

/// A partitionable slot's weight: its cpus left.
fn cpus_of(ad: &ClassAd) -> usize {
    match ad.lookup("Cpus") {
        Some(Expr::Lit(Value::Int(c))) => usize::try_from(*c).unwrap_or(0),
        _ => 0,
    }
}
