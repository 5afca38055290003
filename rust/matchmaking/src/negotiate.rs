//! One negotiation cycle: the pool shared among submitters by priority, each submitter's
//! jobs matched cluster by cluster to the slots their Rank likes best.
//!
//! The pool is divided into pie slices in proportion to 1 / effective priority; a
//! submitter that cannot use its slice (too few idle jobs, or no slot matches them) leaves
//! the rest for the next round, and rounds go on until nothing more can be matched.
//! Within a slice, each cluster searches the pool once for all its jobs (every job of a
//! cluster matches alike), taking slots best first (see [`crate::walk`]); slots whose
//! Requirements refuse every job are left out of the cycle, and out of the pie.

use std::cmp::Ordering;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use condorx_classad::{ClassAd, Expr, Value};

use crate::autocluster::{cluster_jobs, Cluster};
use crate::deps::PoolReads;
use crate::ordering::{Orderings, Ranks};
use crate::pair::PairEval;
use crate::preempt::{Preemption, Rules};
use crate::prefilter::Prefilter;
use crate::pslot::{carve, request_of};
use crate::slots::{PoolSlot, Preemptible};
use crate::walk::{Candidate, Seek, Walk};

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
    /// Rank the pool once for all clusters whose ranks read the same job attributes
    /// (the default). Off, every cluster evaluates every free slot: the same matches,
    /// slower; kept to check the one against the other.
    pub share_orderings: bool,
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
            share_orderings: true,
        }
    }
}

impl Config {
    /// What may preempt a claimed slot this cycle: a PREEMPTION_REQUIREMENTS that is
    /// the literal false (HTCondor's default) allows no priority preemption.
    pub fn preemptible(&self) -> Preemptible {
        if !self.consider_preemption {
            return Preemptible::Never;
        }
        match &self.preemption_requirements {
            None | Some(Expr::Lit(Value::Bool(false))) => Preemptible::ByRank,
            Some(_) => Preemptible::Any,
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
    pub reason: &'static str,
}

#[derive(Debug, Clone, Default)]
pub struct Cycle {
    pub matches: Vec<Match>,
    pub rejections: Vec<Rejection>,
    pub clusters: usize,
    /// Job/slot pairs whose Requirements were evaluated.
    pub pairs_evaluated: u64,
    /// Seconds spent in each phase, in order (as a negotiator reports its phases).
    pub phases: Vec<(&'static str, f64)>,
}

pub const NO_MATCH: &str = "no match found";
pub const NO_PRIORITY: &str = "insufficient priority";

/// A cluster's place in the cycle: its jobs still waiting, and its search for slots once
/// it has begun.
struct ClusterState {
    waiting: VecDeque<usize>,
    walk: Option<Walk>,
}

pub fn negotiate(slots: &[Arc<ClassAd>], submitters: &[Submitter], config: &Config) -> Cycle {
    let mut clock = Clock::start();
    let mut pool: Vec<PoolSlot> = slots
        .iter()
        .map(|s| PoolSlot::new(s, config.preemptible()))
        .collect();
    let reads = PoolReads::of(pool.iter().map(|s| &*s.advertised));
    clock.lap("slots");
    let mut parties: Vec<Party> = submitters
        .iter()
        .zip(clusters_of_each(&reads, submitters))
        .enumerate()
        .map(|(index, (submitter, clusters))| Party {
            ctx: SubmitterCtx {
                index,
                submitter,
                config,
            },
            clusters: clusters
                .into_iter()
                .map(|c| ClusterState {
                    waiting: c.jobs.into(),
                    walk: None,
                })
                .collect(),
            first: 0,
            demand: submitter.jobs.len(),
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
    clock.lap("autoclusters");
    let mut search = Search {
        orderings: config.share_orderings.then(|| Orderings::new(&pool, reads)),
        prefilter: config.share_orderings.then(|| Prefilter::new(&pool)),
        pair: PairEval::new(),
        left: pool.iter().map(PoolSlot::weight).sum(),
    };
    loop {
        let left = search.left;
        let total_weight: f64 = parties
            .iter()
            .filter(|p| p.demand > 0)
            .map(|p| p.weight())
            .sum();
        if left == 0 || total_weight == 0.0 {
            break;
        }
        let mut matched_this_round = 0;
        for party in parties.iter_mut() {
            if party.demand == 0 {
                continue;
            }
            let slice = ((left as f64) * party.weight() / total_weight).floor() as usize;
            let quota = slice.clamp(1, party.demand);
            matched_this_round += party.fill(quota, &mut pool, &mut search, &mut cycle);
        }
        if matched_this_round == 0 {
            break;
        }
    }
    clock.lap("matching");
    for party in &mut parties {
        party.reject_the_rest(&mut cycle);
    }
    cycle.phases = clock.phases;
    cycle
}

/// Wall time per phase of the cycle.
struct Clock {
    last: Instant,
    phases: Vec<(&'static str, f64)>,
}

impl Clock {
    fn start() -> Clock {
        Clock {
            last: Instant::now(),
            phases: Vec::new(),
        }
    }

    fn lap(&mut self, phase: &'static str) {
        let now = Instant::now();
        self.phases
            .push((phase, now.duration_since(self.last).as_secs_f64()));
        self.last = now;
    }
}

/// Each submitter's autoclusters, submitters shared out among the cores (a big queue's
/// million jobs are the cycle's largest single piece of work).
fn clusters_of_each(reads: &PoolReads, submitters: &[Submitter]) -> Vec<Vec<Cluster>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs: usize = submitters.iter().map(|s| s.jobs.len()).sum();
    if threads < 2 || submitters.len() < 2 || jobs < PARALLEL_CLUSTERING {
        return submitters
            .iter()
            .map(|s| cluster_jobs(reads, &s.jobs))
            .collect();
    }
    let next = AtomicUsize::new(0);
    let done: Vec<(usize, Vec<Cluster>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Relaxed);
                        let Some(s) = submitters.get(i) else { break };
                        mine.push((i, cluster_jobs(reads, &s.jobs)));
                    }
                    mine
                })
            })
            .collect();
        // Clustering cannot panic (no panicking code in the crate); were a worker to,
        // its submitters would be clustered again below.
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let mut out: Vec<Option<Vec<Cluster>>> = (0..submitters.len()).map(|_| None).collect();
    for (i, clusters) in done {
        if let Some(slot) = out.get_mut(i) {
            *slot = Some(clusters);
        }
    }
    out.into_iter()
        .zip(submitters)
        .map(|(c, s)| c.unwrap_or_else(|| cluster_jobs(reads, &s.jobs)))
        .collect()
}

/// Queues at least this long are clustered on every core.
const PARALLEL_CLUSTERING: usize = 20_000;

/// What the searches of one cycle share: the pool's orderings, an evaluator, and the
/// pool's weight still free (the pie to divide).
struct Search {
    orderings: Option<Orderings>,
    /// Slots ruled out by Requirements clauses that read only the slot.
    prefilter: Option<Prefilter>,
    pair: PairEval,
    left: usize,
}

/// A submitter taking part in the cycle, with its clusters' progress.
struct Party<'a> {
    ctx: SubmitterCtx<'a>,
    clusters: Vec<ClusterState>,
    /// Clusters before this one have no job waiting (none comes back within a cycle).
    first: usize,
    /// Jobs still waiting for a slot.
    demand: usize,
}

impl Party<'_> {
    /// Match up to `quota` of this submitter's jobs, cluster by cluster; returns how many
    /// were matched.
    fn fill(
        &mut self,
        quota: usize,
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
            match self.ctx.place(job, cluster, pool, search, cycle) {
                Some(m) => {
                    cluster.waiting.pop_front();
                    cycle.matches.push(m);
                    got += 1;
                    self.demand -= 1;
                }
                None => {
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
                    reason: NO_PRIORITY,
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
            },
            priority: self.submitter.priority,
            preemption_rank: config.preemption_rank.as_ref(),
            pairs: 0,
        }
    }

    /// Find `job` a slot: its cluster's search goes on where the last job left it.
    fn place(
        &self,
        job_index: usize,
        cluster: &mut ClusterState,
        pool: &mut [PoolSlot],
        search: &mut Search,
        cycle: &mut Cycle,
    ) -> Option<Match> {
        let job = self.submitter.jobs.get(job_index)?;
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
                break None;
            };
            let Some(slot) = pool.get_mut(c.slot) else {
                walk.pass();
                continue;
            };
            let before = slot.weight();
            if !slot.partitionable {
                slot.free = false;
                search.left -= before;
                walk.pass();
                break Some(self.matched(job_index, c, pair.rank(job, &slot.ad), None));
            }
            // A partitionable slot may take this job too, if what is left still matches.
            match take_from_pslot(slot, job, pair) {
                Some(dynamic) => {
                    search.left -= before.saturating_sub(slot.weight());
                    let rank = pair.rank(job, &dynamic);
                    break Some(self.matched(job_index, c, rank, Some(dynamic)));
                }
                None => walk.pass(),
            }
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

/// Carve a dynamic slot for `job` out of a partitionable slot, if what is left of it still
/// matches the job and holds its request; the slot shrinks accordingly.
fn take_from_pslot(
    slot: &mut PoolSlot,
    job: &Arc<ClassAd>,
    pair: &mut PairEval,
) -> Option<Arc<ClassAd>> {
    if !slot.matches(pair, job) {
        return None;
    }
    let req = request_of(pair, job, &slot.ad);
    let (dynamic, left) = carve(&slot.ad, &req, slot.carved + 1)?;
    slot.carved += 1;
    slot.ad = Arc::new(left);
    Some(Arc::new(dynamic))
}
