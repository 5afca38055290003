//! One negotiation cycle: the pool shared among submitters by priority, each submitter's
//! jobs matched cluster by cluster to the slots their Rank likes best.
//!
//! The pool is divided into pie slices in proportion to 1 / effective priority; a
//! submitter that cannot use its slice (too few idle jobs, or no slot matches them) leaves
//! the rest for the next round, and rounds go on until nothing more can be matched.
//! Within a slice, a cluster's candidate slots are found once (every job of a cluster
//! matches alike) and taken best first, by NEGOTIATOR_PRE_JOB_RANK, the job's Rank,
//! NEGOTIATOR_POST_JOB_RANK, then no preemption before preemption, then PREEMPTION_RANK.

use std::cmp::Ordering;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use condorx_classad::{ClassAd, Expr, Value};

use crate::autocluster::{cluster_jobs, significant_attributes};
use crate::pair::PairEval;
use crate::preempt::{Preemption, Rules};
use crate::pslot::{carve, is_partitionable, request_of};

/// A submitter's idle jobs and effective priority (lower is better).
#[derive(Debug, Clone)]
pub struct Submitter {
    pub name: String,
    pub priority: f64,
    pub jobs: Vec<Arc<ClassAd>>,
}

#[derive(Debug, Clone)]
pub struct Config {
    /// NEGOTIATOR_PRE_JOB_RANK: ranks candidate slots before the job's own Rank.
    pub pre_job_rank: Option<Expr>,
    /// NEGOTIATOR_POST_JOB_RANK: breaks ties left by the job's Rank.
    pub post_job_rank: Option<Expr>,
    /// NEGOTIATOR_CONSIDER_PREEMPTION: when false, claimed slots are not looked at.
    pub consider_preemption: bool,
    /// PREEMPTION_REQUIREMENTS: when priority preemption is allowed (none: never).
    pub preemption_requirements: Option<Expr>,
    /// PREEMPTION_RANK: orders the claimed slots a job could preempt.
    pub preemption_rank: Option<Expr>,
    /// Effective priority of each user known to the accountant (for RemoteOwner).
    pub priorities: HashMap<String, f64>,
}

impl Default for Config {
    /// HTCondor's defaults: preemption considered, but only by RANK until
    /// PREEMPTION_REQUIREMENTS is set.
    fn default() -> Config {
        Config {
            pre_job_rank: None,
            post_job_rank: None,
            consider_preemption: true,
            preemption_requirements: None,
            preemption_rank: None,
            priorities: HashMap::new(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Match {
    pub submitter: usize,
    pub job: usize,
    pub slot: usize,
    /// The job's Rank of the slot.
    pub rank: f64,
    /// Set when the slot is claimed and this match preempts its job.
    pub preempts: Option<Preemption>,
    /// The dynamic slot carved for this job, when the slot is partitionable.
    pub dynamic_slot: Option<Arc<ClassAd>>,
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
pub const NO_PRIORITY: &str = "insufficient priority";

/// A slot during the cycle: its ad as it is now (a partitionable slot shrinks).
struct PoolSlot {
    ad: Arc<ClassAd>,
    free: bool,
    claimed: bool,
    partitionable: bool,
    carved: usize,
}

impl PoolSlot {
    fn new(ad: &Arc<ClassAd>) -> PoolSlot {
        let claimed = matches!(ad.lookup("State"), Some(Expr::Lit(Value::Str(s))) if s.eq_ignore_ascii_case("Claimed"));
        PoolSlot {
            ad: ad.clone(),
            free: true,
            claimed,
            partitionable: is_partitionable(ad),
            carved: 0,
        }
    }

    /// Its weight in the pie: a partitionable slot counts its cpus left.
    fn weight(&self) -> usize {
        if !self.free {
            0
        } else if self.partitionable {
            match self.ad.lookup("Cpus") {
                Some(Expr::Lit(Value::Int(c))) => usize::try_from(*c).unwrap_or(0),
                _ => 0,
            }
        } else {
            1
        }
    }
}

/// A candidate slot of a cluster, with the keys it is ordered by.
struct Candidate {
    slot: usize,
    keys: [f64; 5],
    preempts: Option<Preemption>,
}

/// A cluster's place in the cycle: its jobs still waiting, and its candidate slots once
/// they have been found (best first).
struct ClusterState {
    waiting: VecDeque<usize>,
    candidates: Option<Vec<Candidate>>,
    next: usize,
}

pub fn negotiate(slots: &[Arc<ClassAd>], submitters: &[Submitter], config: &Config) -> Cycle {
    let mut pool: Vec<PoolSlot> = slots.iter().map(PoolSlot::new).collect();
    if !config.consider_preemption {
        pool.iter_mut()
            .filter(|s| s.claimed)
            .for_each(|s| s.free = false);
    }
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
        let left: usize = pool.iter().map(PoolSlot::weight).sum();
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
                    .fill(quota, &mut party.clusters, &mut pool, &mut pair, &mut cycle);
        }
        if matched_this_round == 0 {
            break;
        }
    }
    for party in &mut parties {
        party.reject_the_rest(&mut cycle);
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

    /// Jobs still waiting when the cycle ends lost to users of better priority.
    fn reject_the_rest(&mut self, cycle: &mut Cycle) {
        for cluster in &mut self.clusters {
            for job in cluster.waiting.drain(..) {
                cycle.rejections.push(Rejection {
                    submitter: self.ctx.index,
                    job,
                    reason: NO_PRIORITY.to_string(),
                });
            }
        }
    }
}

struct SubmitterCtx<'a> {
    index: usize,
    submitter: &'a Submitter,
    config: &'a Config,
}

impl SubmitterCtx<'_> {
    /// Match up to `quota` of this submitter's jobs; returns how many were matched.
    fn fill(
        &self,
        quota: usize,
        clusters: &mut [ClusterState],
        pool: &mut [PoolSlot],
        pair: &mut PairEval,
        cycle: &mut Cycle,
    ) -> usize {
        let mut got = 0;
        for cluster in clusters.iter_mut() {
            while got < quota && !cluster.waiting.is_empty() {
                let Some(&job) = cluster.waiting.front() else {
                    break;
                };
                match self.place(job, cluster, pool, pair, cycle) {
                    Some(m) => {
                        cluster.waiting.pop_front();
                        cycle.matches.push(m);
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

    /// Find `job` a slot from its cluster's candidates (found the first time).
    fn place(
        &self,
        job_index: usize,
        cluster: &mut ClusterState,
        pool: &mut [PoolSlot],
        pair: &mut PairEval,
        cycle: &mut Cycle,
    ) -> Option<Match> {
        let job = self.submitter.jobs.get(job_index)?;
        if cluster.candidates.is_none() {
            cluster.candidates = Some(self.candidates(job, pool, cycle));
        }
        let candidates = cluster.candidates.as_ref()?;
        while let Some(c) = candidates.get(cluster.next) {
            let Some(slot) = pool.get_mut(c.slot) else {
                break;
            };
            if !slot.free {
                cluster.next += 1;
                continue;
            }
            if !slot.partitionable {
                slot.free = false;
                cluster.next += 1;
                return Some(self.matched(job_index, c, pair.rank(job, &slot.ad), None));
            }
            // A partitionable slot may take this job too, if what is left still matches.
            match take_from_pslot(slot, job, pair) {
                Some(dynamic) => {
                    let rank = pair.rank(job, &dynamic);
                    return Some(self.matched(job_index, c, rank, Some(dynamic)));
                }
                None => cluster.next += 1,
            }
        }
        None
    }

    fn matched(
        &self,
        job: usize,
        c: &Candidate,
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

    /// Every free slot that matches `job` (and that it may preempt, if claimed), best
    /// first. A large pool is scanned in parallel, one chunk of slots per core.
    fn candidates(
        &self,
        job: &Arc<ClassAd>,
        pool: &[PoolSlot],
        cycle: &mut Cycle,
    ) -> Vec<Candidate> {
        let free: Vec<usize> = (0..pool.len())
            .filter(|&k| pool.get(k).is_some_and(|s| s.free))
            .collect();
        cycle.pairs_evaluated += free.len() as u64;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut found: Vec<Candidate> = if threads > 1 && free.len() >= PARALLEL_SCAN {
            let chunk = free.len().div_ceil(threads);
            std::thread::scope(|scope| {
                let handles: Vec<_> = free
                    .chunks(chunk)
                    .map(|part| scope.spawn(move || self.scan(job, pool, part)))
                    .collect();
                // A scan cannot panic (no panicking code in the crate); were one to, its
                // slots would simply not be offered this cycle.
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap_or_default())
                    .collect()
            })
        } else {
            self.scan(job, pool, &free)
        };
        // Best first (every key higher is better); equal keys keep the slots' order.
        found.sort_by(|a, b| b.keys.partial_cmp(&a.keys).unwrap_or(Ordering::Equal));
        found
    }

    /// The slots of `part` that match `job`, with their ordering keys.
    fn scan(&self, job: &Arc<ClassAd>, pool: &[PoolSlot], part: &[usize]) -> Vec<Candidate> {
        let mut pair = PairEval::new();
        let rules = Rules {
            requirements: self.config.preemption_requirements.as_ref(),
            priorities: &self.config.priorities,
        };
        let rank_of = |pair: &mut PairEval, e: &Option<Expr>, slot: &Arc<ClassAd>| {
            e.as_ref().map_or(0.0, |e| pair.expr_rank(e, slot, job))
        };
        let mut found = Vec::new();
        for &k in part {
            let Some(slot) = pool.get(k) else { continue };
            if !pair.symmetric(job, &slot.ad) {
                continue;
            }
            let preempts = if slot.claimed {
                match rules.allows(&mut pair, &slot.ad, job, self.submitter.priority) {
                    Some(p) => Some(p),
                    None => continue,
                }
            } else {
                None
            };
            let tier = preempts.map_or(0.0, |p| if p == Preemption::Rank { 1.0 } else { 2.0 });
            let prank = if slot.claimed {
                rank_of(&mut pair, &self.config.preemption_rank, &slot.ad)
            } else {
                0.0
            };
            let keys = [
                rank_of(&mut pair, &self.config.pre_job_rank, &slot.ad),
                pair.rank(job, &slot.ad),
                rank_of(&mut pair, &self.config.post_job_rank, &slot.ad),
                -tier,
                prank,
            ];
            found.push(Candidate {
                slot: k,
                keys,
                preempts,
            });
        }
        found
    }
}

/// Pools at least this large are scanned on every core: below it, starting threads costs
/// more than it saves.
const PARALLEL_SCAN: usize = 4096;

/// Carve a dynamic slot for `job` out of a partitionable slot, if what is left of it still
/// matches the job and holds its request; the slot shrinks accordingly.
fn take_from_pslot(
    slot: &mut PoolSlot,
    job: &Arc<ClassAd>,
    pair: &mut PairEval,
) -> Option<Arc<ClassAd>> {
    if !pair.symmetric(job, &slot.ad) {
        return None;
    }
    let req = request_of(pair, job, &slot.ad);
    let (dynamic, left) = carve(&slot.ad, req, slot.carved + 1)?;
    slot.carved += 1;
    slot.ad = Arc::new(left);
    Some(Arc::new(dynamic))
}
