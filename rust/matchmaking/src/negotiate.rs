//! One negotiation cycle: the pool shared among submitters by priority, each submitter's
//! jobs matched cluster by cluster to the slots their Rank likes best.
//!
//! The pool is divided into pie slices in proportion to 1 / effective priority; a
//! submitter that cannot use its slice (too few idle jobs, or no slot matches them) leaves
//! the rest for the next round, and rounds go on until nothing more can be matched.
//! Within a slice, a cluster's candidate slots are found once (every job of a cluster
//! matches alike) and sorted by NEGOTIATOR_PRE_JOB_RANK, the job's Rank, then
//! NEGOTIATOR_POST_JOB_RANK.

use std::cmp::Ordering;
use std::sync::Arc;

use condorx_classad::{ClassAd, Expr, Value};

use crate::autocluster::{cluster_jobs, significant_attributes};
use crate::pair::PairEval;

/// A submitter's idle jobs and effective priority (lower is better).
#[derive(Debug, Clone)]
pub struct Submitter {
    pub name: String,
    pub priority: f64,
    pub jobs: Vec<Arc<ClassAd>>,
}

#[derive(Debug, Clone, Default)]
pub struct Config {
    /// NEGOTIATOR_PRE_JOB_RANK: ranks candidate slots before the job's own Rank.
    pub pre_job_rank: Option<Expr>,
    /// NEGOTIATOR_POST_JOB_RANK: breaks ties left by the job's Rank.
    pub post_job_rank: Option<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    pub submitter: usize,
    pub job: usize,
    pub slot: usize,
    /// The job's Rank of the slot.
    pub rank: f64,
}

/// A job left unmatched this cycle, and why (becomes LastRejMatchReason).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub submitter: usize,
    pub job: usize,
    pub reason: String,
}

#[derive(Debug, Clone, Default)]
pub struct Cycle {
    pub matches: Vec<Match>,
    pub rejections: Vec<Rejection>,
    pub clusters: usize,
    /// Job/slot pairs whose Requirements were evaluated.
    pub pairs_evaluated: u64,
}

pub const NO_MATCH: &str = "no match found";

/// A cluster's place in the cycle: its jobs still waiting, and its candidate slots once
/// they have been found (best first).
struct ClusterState {
    waiting: std::collections::VecDeque<usize>,
    candidates: Option<Vec<usize>>,
    next: usize,
}

/// A slot can be handed out unless it is claimed already (preemption is not done here).
fn available(slot: &ClassAd) -> bool {
    !matches!(slot.lookup("State"), Some(Expr::Lit(Value::Str(s))) if s.eq_ignore_ascii_case("Claimed"))
}

pub fn negotiate(slots: &[Arc<ClassAd>], submitters: &[Submitter], config: &Config) -> Cycle {
    let mut free: Vec<bool> = slots.iter().map(|s| available(s)).collect();
    let all_jobs: Vec<Arc<ClassAd>> = submitters
        .iter()
        .flat_map(|s| s.jobs.iter().cloned())
        .collect();
    let significant = significant_attributes(slots, &all_jobs);
    let mut parties: Vec<Party> = submitters
        .iter()
        .enumerate()
        .map(|(index, submitter)| Party {
            ctx: SubmitterCtx {
                index,
                submitter,
                slots,
                config,
            },
            clusters: cluster_jobs(&submitter.jobs, &significant)
                .into_iter()
                .map(|c| ClusterState {
                    waiting: c.jobs.into(),
                    candidates: None,
                    next: 0,
                })
                .collect(),
        })
        .collect();
    // Best (lowest) effective priority first; ties keep the given order.
    parties.sort_by(|a, b| {
        a.ctx
            .submitter
            .priority
            .partial_cmp(&b.ctx.submitter.priority)
            .unwrap_or(Ordering::Equal)
    });
    let mut cycle = Cycle {
        clusters: parties.iter().map(|p| p.clusters.len()).sum(),
        ..Cycle::default()
    };
    let mut pair = PairEval::new();
    loop {
        let left = free.iter().filter(|f| **f).count();
        let total_weight: f64 = parties
            .iter()
            .filter(|p| p.demand() > 0)
            .map(|p| p.weight())
            .sum();
        if left == 0 || total_weight == 0.0 {
            break;
        }
        let mut matched_this_round = 0;
        for party in parties.iter_mut() {
            let demand = party.demand();
            if demand == 0 {
                continue;
            }
            let slice = ((left as f64) * party.weight() / total_weight).floor() as usize;
            let quota = slice.clamp(1, demand);
            matched_this_round +=
                party
                    .ctx
                    .fill(quota, &mut party.clusters, &mut free, &mut pair, &mut cycle);
        }
        if matched_this_round == 0 {
            break;
        }
    }
    cycle
}

/// A submitter taking part in the cycle, with its clusters' progress.
struct Party<'a> {
    ctx: SubmitterCtx<'a>,
    clusters: Vec<ClusterState>,
}

impl Party<'_> {
    /// Jobs still waiting for a slot.
    fn demand(&self) -> usize {
        self.clusters.iter().map(|c| c.waiting.len()).sum()
    }

    /// Share of the pool: inversely proportional to effective priority.
    fn weight(&self) -> f64 {
        1.0 / self.ctx.submitter.priority.max(1e-9)
    }
}

struct SubmitterCtx<'a> {
    index: usize,
    submitter: &'a Submitter,
    slots: &'a [Arc<ClassAd>],
    config: &'a Config,
}

impl<'a> SubmitterCtx<'a> {
    /// Match up to `quota` of this submitter's jobs; returns how many were matched.
    fn fill(
        &self,
        quota: usize,
        clusters: &mut [ClusterState],
        free: &mut [bool],
        pair: &mut PairEval<'a>,
        cycle: &mut Cycle,
    ) -> usize {
        let mut got = 0;
        for cluster in clusters.iter_mut() {
            while got < quota && !cluster.waiting.is_empty() {
                match self.next_slot(cluster, free, pair, cycle) {
                    Some((slot, rank)) => {
                        let Some(job) = cluster.waiting.pop_front() else {
                            break;
                        };
                        if let Some(f) = free.get_mut(slot) {
                            *f = false;
                        }
                        cycle.matches.push(Match {
                            submitter: self.index,
                            job,
                            slot,
                            rank,
                        });
                        got += 1;
                    }
                    None => {
                        for job in cluster.waiting.drain(..) {
                            cycle.rejections.push(Rejection {
                                submitter: self.index,
                                job,
                                reason: NO_MATCH.to_string(),
                            });
                        }
                    }
                }
            }
            if got >= quota {
                break;
            }
        }
        got
    }

    /// The best free candidate slot for this cluster, finding candidates the first time.
    fn next_slot(
        &self,
        cluster: &mut ClusterState,
        free: &[bool],
        pair: &mut PairEval<'a>,
        cycle: &mut Cycle,
    ) -> Option<(usize, f64)> {
        let rep = *cluster.waiting.front()?;
        let job = self.submitter.jobs.get(rep)?;
        if cluster.candidates.is_none() {
            cluster.candidates = Some(self.candidates(job, free, pair, cycle));
        }
        let candidates = cluster.candidates.as_ref()?;
        while let Some(&slot) = candidates.get(cluster.next) {
            cluster.next += 1;
            if free.get(slot).copied().unwrap_or(false) {
                let rank = self.slots.get(slot).map_or(0.0, |s| pair.rank(job, s));
                return Some((slot, rank));
            }
        }
        None
    }

    /// Every free slot that matches `job`, best first.
    fn candidates(
        &self,
        job: &'a Arc<ClassAd>,
        free: &[bool],
        pair: &mut PairEval<'a>,
        cycle: &mut Cycle,
    ) -> Vec<usize> {
        let mut scored: Vec<(f64, f64, f64, usize)> = Vec::new();
        for (k, slot) in self.slots.iter().enumerate() {
            if !free.get(k).copied().unwrap_or(false) {
                continue;
            }
            cycle.pairs_evaluated += 1;
            if !pair.symmetric(job, slot) {
                continue;
            }
            let pre = self
                .config
                .pre_job_rank
                .as_ref()
                .map_or(0.0, |e| pair.expr_rank(e, slot, job));
            let post = self
                .config
                .post_job_rank
                .as_ref()
                .map_or(0.0, |e| pair.expr_rank(e, slot, job));
            scored.push((pre, pair.rank(job, slot), post, k));
        }
        // Best first; equal scores keep the slots' order.
        scored.sort_by(|a, b| {
            (b.0, b.1, b.2)
                .partial_cmp(&(a.0, a.1, a.2))
                .unwrap_or(Ordering::Equal)
        });
        scored.into_iter().map(|s| s.3).collect()
    }
}
