//! A cluster's search for slots, best first.
//!
//! Candidates are ordered by NEGOTIATOR_PRE_JOB_RANK, the job's Rank,
//! NEGOTIATOR_POST_JOB_RANK, then unclaimed before claimed (a slot whose RANK prefers the
//! job before one taken by priority), then PREEMPTION_RANK, then pool order.
//!
//! The ordered walk follows a shared [`Ordering`] of the first three keys group by group:
//! within a group every unclaimed slot outranks every claimed one and unclaimed ones
//! keep pool order, so it takes the first unclaimed slot that matches and evaluates no
//! further. Only when a group has no unclaimed match left are its claimed slots ranked.
//! The listed walk (for ranks that hide what they read) evaluates every free slot up
//! front and sorts the matches by all five keys: the same order, found the slow way.

use std::cmp::Ordering as Cmp;
use std::collections::VecDeque;
use std::sync::Arc;

use condorx_classad::{ClassAd, Expr};

use crate::ordering::{Ordering, Ranks};
use crate::pair::PairEval;
use crate::preempt::{Preemption, Rules};
use crate::prefilter::SlotSet;
use crate::slots::PoolSlot;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub slot: usize,
    /// Set when the slot is claimed and the job would preempt its job.
    pub preempts: Option<Preemption>,
}

/// What a search needs besides the pool: the job, how it ranks, its user's standing.
pub struct Seek<'a> {
    pub job: &'a Arc<ClassAd>,
    pub ranks: Ranks<'a>,
    pub rules: Rules<'a>,
    pub priority: f64,
    pub preemption_rank: Option<&'a Expr>,
    /// Job/slot pairs whose Requirements were evaluated.
    pub pairs: u64,
}

impl Seek<'_> {
    fn matches(&mut self, pair: &mut PairEval, slot: &PoolSlot) -> bool {
        self.pairs += 1;
        slot.matches(pair, self.job)
    }

    /// May the job take this claimed slot, and by which rule?
    fn preempts(&self, pair: &mut PairEval, slot: &PoolSlot) -> Option<Preemption> {
        self.rules.allows(pair, &slot.ad, self.job, self.priority)
    }

    fn preemption_rank(&self, pair: &mut PairEval, slot: &PoolSlot) -> f64 {
        self.preemption_rank
            .map_or(0.0, |e| pair.expr_rank(e, &slot.ad, self.job))
    }

    /// The claimed slots at positions `[start, end)` of `ordering` (one group) that the
    /// job matches and may preempt, best first.
    fn claimed_in(
        &mut self,
        pair: &mut PairEval,
        pool: &[PoolSlot],
        ordering: &Ordering,
        (start, end): (usize, usize),
        within: Option<&SlotSet>,
    ) -> VecDeque<Candidate> {
        let mut found: Vec<(Preemption, f64, Candidate)> = Vec::new();
        let mut p = start;
        loop {
            p = ordering.next_untaken(p, |k| taken(pool, k));
            let Some(k) = ordering.slot(p).filter(|_| p < end) else {
                break;
            };
            p += 1;
            let Some(slot) = pool.get(k) else { continue };
            if !slot.claimed || !could_match(within, k) || !self.matches(pair, slot) {
                continue;
            }
            if let Some(how) = self.preempts(pair, slot) {
                let c = Candidate {
                    slot: k,
                    preempts: Some(how),
                };
                found.push((how, self.preemption_rank(pair, slot), c));
            }
        }
        // RANK preemption before priority preemption, then PREEMPTION_RANK, highest first.
        found.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(b.1.partial_cmp(&a.1).unwrap_or(Cmp::Equal))
        });
        found.into_iter().map(|(_, _, c)| c).collect()
    }
}

pub enum Walk {
    Ordered {
        ordering: Arc<Ordering>,
        /// The slots the job's slot-only Requirements clauses leave (none: all).
        within: Option<Arc<SlotSet>>,
        group: usize,
        /// The next position of the ordering to look at for an unclaimed match.
        pos: usize,
        /// The group's claimed matches, once its unclaimed ones ran out.
        claimed: Option<VecDeque<Candidate>>,
        current: Option<Candidate>,
    },
    Listed {
        list: VecDeque<Candidate>,
        current: Option<Candidate>,
    },
}

impl Walk {
    pub fn ordered(ordering: Arc<Ordering>, within: Option<Arc<SlotSet>>) -> Walk {
        Walk::Ordered {
            ordering,
            within,
            group: 0,
            pos: 0,
            claimed: None,
            current: None,
        }
    }

    /// Rank every free slot for the job now (of those in `within`, when given).
    pub fn listed(seek: &mut Seek, pool: &[PoolSlot], within: Option<&SlotSet>) -> Walk {
        Walk::Listed {
            list: list_all(seek, pool, within).into(),
            current: None,
        }
    }

    /// The best candidate left that is still free, kept until [`Walk::pass`].
    pub fn peek(
        &mut self,
        seek: &mut Seek,
        pool: &[PoolSlot],
        pair: &mut PairEval,
    ) -> Option<Candidate> {
        loop {
            let current = match self {
                Walk::Ordered { current, .. } | Walk::Listed { current, .. } => current,
            };
            if let Some(c) = *current {
                if pool.get(c.slot).is_some_and(|s| s.free) {
                    return Some(c);
                }
                *current = None;
            }
            let next = self.next(seek, pool, pair)?;
            match self {
                Walk::Ordered { current, .. } | Walk::Listed { current, .. } => {
                    *current = Some(next)
                }
            }
        }
    }

    /// The current candidate is used up (taken, or a partitionable slot too small now).
    pub fn pass(&mut self) {
        match self {
            Walk::Ordered { current, .. } | Walk::Listed { current, .. } => *current = None,
        }
    }

    fn next(
        &mut self,
        seek: &mut Seek,
        pool: &[PoolSlot],
        pair: &mut PairEval,
    ) -> Option<Candidate> {
        match self {
            Walk::Listed { list, .. } => list.pop_front(),
            Walk::Ordered {
                ordering,
                within,
                group,
                pos,
                claimed,
                ..
            } => loop {
                let (start, end) = ordering.group(*group)?;
                if let Some(queue) = claimed {
                    if let Some(c) = queue.pop_front() {
                        return Some(c);
                    }
                    // On to the next group holding a slot not yet taken.
                    *claimed = None;
                    *pos = ordering.next_untaken(end, |k| taken(pool, k));
                    *group = ordering.group_of(*pos);
                    continue;
                }
                loop {
                    let p = ordering.next_untaken((*pos).max(start), |k| taken(pool, k));
                    let Some(k) = ordering.slot(p).filter(|_| p < end) else {
                        break;
                    };
                    *pos = p + 1;
                    let Some(slot) = pool.get(k) else { continue };
                    if !slot.claimed
                        && could_match(within.as_deref(), k)
                        && seek.matches(pair, slot)
                    {
                        return Some(Candidate {
                            slot: k,
                            preempts: None,
                        });
                    }
                }
                *claimed =
                    Some(seek.claimed_in(pair, pool, ordering, (start, end), within.as_deref()));
            },
        }
    }
}

/// Slot `k` is not ruled out by the job's slot-only clauses.
fn could_match(within: Option<&SlotSet>, k: usize) -> bool {
    within.is_none_or(|set| set.contains(k))
}

/// Slot `k` is taken (or not in the pool): no search looks at it again this cycle.
fn taken(pool: &[PoolSlot], k: usize) -> bool {
    pool.get(k).is_none_or(|s| !s.free)
}

/// Pools at least this large are scanned on every core: below it, starting threads costs
/// more than it saves.
const PARALLEL_SCAN: usize = 4096;

/// Every free slot (in `within`) the job matches (and may preempt, if claimed), best
/// first.
fn list_all(seek: &mut Seek, pool: &[PoolSlot], within: Option<&SlotSet>) -> Vec<Candidate> {
    let free: Vec<usize> = (0..pool.len())
        .filter(|&k| pool.get(k).is_some_and(|s| s.free) && could_match(within, k))
        .collect();
    seek.pairs += free.len() as u64;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let seek: &Seek = seek;
    let mut found: Vec<([f64; 5], Candidate)> = if threads > 1 && free.len() >= PARALLEL_SCAN {
        let chunk = free.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let handles: Vec<_> = free
                .chunks(chunk)
                .map(|part| scope.spawn(move || scan(seek, pool, part)))
                .collect();
            // A scan cannot panic (no panicking code in the crate); were one to, its
            // slots would simply not be offered this cycle.
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_default())
                .collect()
        })
    } else {
        scan(seek, pool, &free)
    };
    // Best first (every key higher is better); equal keys keep the slots' order.
    found.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(Cmp::Equal));
    found.into_iter().map(|(_, c)| c).collect()
}

/// The slots of `part` that match, with their five ordering keys.
fn scan(seek: &Seek, pool: &[PoolSlot], part: &[usize]) -> Vec<([f64; 5], Candidate)> {
    let mut pair = PairEval::new();
    let mut found = Vec::new();
    for &k in part {
        let Some(slot) = pool.get(k) else { continue };
        if !slot.matches(&mut pair, seek.job) {
            continue;
        }
        let (preempts, tier, prank) = if slot.claimed {
            match seek.preempts(&mut pair, slot) {
                Some(p) => (
                    Some(p),
                    if p == Preemption::Rank { 1.0 } else { 2.0 },
                    seek.preemption_rank(&mut pair, slot),
                ),
                None => continue,
            }
        } else {
            (None, 0.0, 0.0)
        };
        let [pre, rank, post] = seek.ranks.keys(&mut pair, seek.job, &slot.advertised);
        found.push((
            [pre, rank, post, -tier, prank],
            Candidate { slot: k, preempts },
        ));
    }
    found
}
