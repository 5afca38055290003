//! One negotiation cycle: the pool shared among submitters by priority, each submitter's
//! jobs matched cluster by cluster to the slots their Rank likes best.
//!
//! The pool is divided into pie slices in proportion to 1 / effective priority; a
//! submitter that cannot use its slice (too few idle jobs, or no slot matches them) leaves
//! the rest for the next round, and rounds go on until nothing more can be matched.
//! Within a slice, each cluster searches the pool once for all its jobs (every job of a
//! cluster matches alike), taking slots best first (see [`crate::walk`]); slots whose
//! Requirements refuse every job are left out of the cycle, and out of the pie.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use condorx_classad::{ClassAd, Expr, Value};

use crate::autocluster::{cluster_jobs, Cluster};
use crate::deps::PoolReads;
use crate::grouped::{self, GroupPolicy};
use crate::groups::Outcome;
use crate::limits::{Limits, LimitsConfig};
use crate::ordering::Orderings;
use crate::pair::PairEval;
use crate::party::{Party, Search, SubmitterCtx};
use crate::preempt::Preemption;
use crate::prefilter::Prefilter;
use crate::slots::{PoolSlot, Preemptible};
use crate::time_limits::{OutOfTime, TimeLimits, Timer};

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
    /// Accounting groups and their quotas (None, or a tree of the root alone: a flat
    /// pool).
    pub groups: Option<Arc<GroupPolicy>>,
    /// Concurrency limits (None: not counted, as when no job names one).
    pub limits: Option<Arc<LimitsConfig>>,
    /// The negotiator's time limits (None: none).
    pub time_limits: Option<TimeLimits>,
    /// NEGOTIATOR_USE_SLOT_WEIGHTS: a slot weighs its SlotWeight (else 1, a
    /// partitionable one its cpus left).
    pub slot_weights: bool,
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
            groups: None,
            limits: None,
            time_limits: None,
            slot_weights: true,
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
    /// The job's concurrency limits on this slot, lowercased (MatchedConcurrencyLimits).
    pub limits: Option<String>,
}

/// A job left unmatched this cycle, and why (becomes LastRejMatchReason).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub submitter: usize,
    pub job: usize,
    pub reason: Cow<'static, str>,
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
    /// What each group was given, when the pool is shared by group quotas.
    pub groups: Option<Outcome>,
    /// The concurrency limits' counts once the cycle's matches are added.
    pub limits: Option<HashMap<String, f64>>,
}

pub const NO_MATCH: &str = "no match found";
pub const NO_PRIORITY: &str = "insufficient priority";
/// A job left waiting because its group reached its limit (HTCondor's words).
pub const SUBMITTER_LIMIT: &str = "submitter limit exceeded";
/// Jobs left waiting because their submitter's, schedd's or the cycle's time ran out.
pub const OUT_OF_TIME: [&str; 3] = [
    "MAX_TIME_PER_SUBMITTER exceeded",
    "MAX_TIME_PER_SCHEDD exceeded",
    "MAX_TIME_PER_CYCLE exceeded",
];

pub fn negotiate(slots: &[Arc<ClassAd>], submitters: &[Submitter], config: &Config) -> Cycle {
    let mut clock = Clock::start();
    let timer = config
        .time_limits
        .clone()
        .map(|t| Timer::start(t, clock.last));
    let mut pool: Vec<PoolSlot> = slots
        .iter()
        .map(|s| PoolSlot::new(s, config.preemptible()).weighted(config.slot_weights))
        .collect();
    let reads = PoolReads::of(pool.iter().map(|s| &*s.advertised));
    clock.lap("slots");
    let mut parties: Vec<Party> = submitters
        .iter()
        .zip(clusters_of_each(&reads, submitters))
        .enumerate()
        .map(|(index, (submitter, clusters))| {
            let ctx = SubmitterCtx {
                index,
                submitter,
                config,
            };
            Party::new(ctx, clusters)
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
        clusters: parties.iter().map(Party::clusters).sum(),
        ..Cycle::default()
    };
    clock.lap("autoclusters");
    let mut search = Search {
        orderings: config.share_orderings.then(|| Orderings::new(&pool, reads)),
        prefilter: config.share_orderings.then(|| Prefilter::new(&pool)),
        pair: PairEval::new(),
        left: pool.iter().map(PoolSlot::weight).sum(),
        limits: config.limits.as_deref().map(Limits::start),
    };
    let mut spun = Spun {
        parties: &mut parties,
        pool: &mut pool,
        search: &mut search,
        cycle: &mut cycle,
        timer,
    };
    let groups = match config.groups.as_deref() {
        Some(policy) if policy.tree.has_groups() => Some(grouped::run(policy, &mut spun)),
        _ => {
            let everyone: Vec<usize> = (0..spun.parties.len()).collect();
            spun.spin(&everyone, f64::INFINITY);
            None
        }
    };
    clock.lap("matching");
    for party in &mut parties {
        let reason = match party.out_of_time {
            Some(OutOfTime::Submitter) => OUT_OF_TIME[0],
            Some(OutOfTime::Schedd) => OUT_OF_TIME[1],
            Some(OutOfTime::Cycle) => OUT_OF_TIME[2],
            None if party.limited => SUBMITTER_LIMIT,
            None => NO_PRIORITY,
        };
        party.reject_the_rest(reason, &mut cycle);
    }
    cycle.groups = groups;
    cycle.limits = search.limits.map(|l| l.used);
    cycle.phases = clock.phases;
    cycle
}

/// The cycle's parties, pool and searches, for the pie to be spun among some of them.
pub(crate) struct Spun<'p, 'a> {
    pub parties: &'p mut [Party<'a>],
    pub pool: &'p mut [PoolSlot],
    pub search: &'p mut Search,
    pub cycle: &'p mut Cycle,
    /// The time limits' clock, when the negotiator has time limits.
    pub timer: Option<Timer>,
}

impl Spun<'_, '_> {
    /// Spin the pie among the parties `members` (by index, best priority first): each
    /// round, each takes a slice of what is left in proportion to 1 / its priority, until
    /// nothing more matches or `budget` (pool weight) is spent.
    pub fn spin(&mut self, members: &[usize], budget: f64) {
        let mut budget = budget;
        loop {
            let left = self.search.left.min(budget);
            let total_weight: f64 = members
                .iter()
                .filter_map(|&i| self.parties.get(i))
                .filter(|p| p.demand > 0 && p.out_of_time.is_none())
                .map(Party::weight)
                .sum();
            if left <= 0.0 || total_weight == 0.0 {
                break;
            }
            let mut matched_this_round = 0;
            for &i in members {
                let Some(party) = self.parties.get_mut(i) else {
                    continue;
                };
                if party.demand == 0 || party.out_of_time.is_some() {
                    continue;
                }
                let began = Instant::now();
                let deadline = match self.timer.as_ref().map(|t| t.turn(i, began)) {
                    Some(Err(why)) => {
                        party.out_of_time = Some(why);
                        continue;
                    }
                    Some(Ok(deadline)) => Some(deadline),
                    None => None,
                };
                // Its slice of what is left, in slot weights (HTCondor's submitterLimit).
                let share = left * party.weight() / total_weight;
                let turn = Turn { share, deadline };
                matched_this_round +=
                    party.fill(turn, &mut budget, self.pool, self.search, self.cycle);
                if let Some(timer) = self.timer.as_mut() {
                    timer.took(i, began.elapsed().as_secs_f64());
                }
            }
            if matched_this_round == 0 {
                break;
            }
        }
        // Jobs the budget, not the pool, left waiting were stopped by their group's limit.
        if budget < self.search.left {
            self.limit(members);
        }
    }

    /// The parties `members` still waiting have reached their group's limit.
    pub fn limit(&mut self, members: &[usize]) {
        for &i in members {
            if let Some(p) = self.parties.get_mut(i) {
                p.limited |= p.demand > 0;
            }
        }
    }
}

/// One turn of a submitter: the pool weight it may take, and until when.
pub struct Turn {
    pub share: f64,
    pub deadline: Option<Instant>,
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
