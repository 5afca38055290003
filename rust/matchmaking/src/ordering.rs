//! The pool ranked once for every job that ranks it alike.
//!
//! A job prefers slots by NEGOTIATOR_PRE_JOB_RANK, its own Rank, then
//! NEGOTIATOR_POST_JOB_RANK. Those read a few job attributes at most (often none:
//! `Rank = TARGET.KFlops`), so thousands of distinct jobs rank the pool the same way.
//! An ordering lists the slots best first, in groups of equal keys; jobs agreeing on
//! every attribute the ranks can read share one. Slots are ranked as advertised, so an
//! ordering stays valid all cycle long, and a job's search walks it from the top,
//! stopping at the first slots that match instead of evaluating the whole pool.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

use condorx_classad::{ClassAd, Expr};

use crate::deps::{job_reads, PoolReads};
use crate::pair::PairEval;
use crate::slots::PoolSlot;

/// Slot indexes best first, cut into groups of equal (pre, rank, post) keys.
///
/// Slots taken during the cycle stay taken, so each position also keeps a jump: past a
/// taken slot, a position from which the run of taken slots after it ends. Searches
/// share the jumps, so thousands of clusters walking down the same ordering skip the
/// slots already handed out in a step or two instead of one by one.
#[derive(Debug)]
pub struct Ordering {
    slots: Vec<u32>,
    /// Where each group ends in `slots`.
    ends: Vec<u32>,
    /// For a position holding a taken slot: a later position, all taken in between.
    jump: Vec<AtomicU32>,
}

impl Ordering {
    fn new(slots: Vec<u32>, ends: Vec<u32>) -> Ordering {
        let jump = (1..=slots.len() as u32).map(AtomicU32::new).collect();
        Ordering { slots, ends, jump }
    }

    fn len(&self) -> usize {
        self.slots.len()
    }

    /// The slot at position `p`.
    pub fn slot(&self, p: usize) -> Option<usize> {
        self.slots.get(p).map(|&k| k as usize)
    }

    /// The group holding position `p` (the number of groups when past the end).
    pub fn group_of(&self, p: usize) -> usize {
        self.ends.partition_point(|&e| e as usize <= p)
    }

    /// Positions `[start, end)` of group `g`, if there is one.
    pub fn group(&self, g: usize) -> Option<(usize, usize)> {
        let end = *self.ends.get(g)? as usize;
        let start = match g {
            0 => 0,
            _ => *self.ends.get(g - 1)? as usize,
        };
        Some((start, end))
    }

    /// The first position at or after `p` whose slot is not taken (`len` if none).
    pub fn next_untaken(&self, p: usize, taken: impl Fn(usize) -> bool) -> usize {
        let len = self.slots.len();
        let at = |q: usize| self.jump.get(q).map_or(len, |j| j.load(Relaxed) as usize);
        let mut q = p;
        while q < len && self.slot(q).is_some_and(&taken) {
            q = at(q);
        }
        // Every slot from p to q is taken: point them all at q.
        let mut r = p;
        while r < q {
            let next = at(r);
            if let Some(j) = self.jump.get(r) {
                j.store(q as u32, Relaxed);
            }
            r = next;
        }
        q
    }

    /// Every slot in one group: ranks that cannot tell slots apart.
    fn flat(slots: Vec<u32>) -> Ordering {
        let ends = if slots.is_empty() {
            vec![]
        } else {
            vec![slots.len() as u32]
        };
        Ordering::new(slots, ends)
    }

    /// `slots` ranked for `job`: keys higher first, equal keys in pool order.
    fn ranked(keys: Vec<([f64; 3], u32)>) -> Ordering {
        let mut keys = keys;
        keys.sort_by(|a, b| {
            b.0.partial_cmp(&a.0)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.1.cmp(&b.1))
        });
        let mut ends = Vec::new();
        for (i, w) in keys.windows(2).enumerate() {
            if let [a, b] = w {
                if a.0 != b.0 {
                    ends.push(i as u32 + 1);
                }
            }
        }
        if !keys.is_empty() {
            ends.push(keys.len() as u32);
        }
        Ordering::new(keys.into_iter().map(|(_, k)| k).collect(), ends)
    }
}

/// The ranks a job orders slots by, besides its own Rank.
#[derive(Clone, Copy)]
pub struct Ranks<'a> {
    pub pre: Option<&'a Expr>,
    pub post: Option<&'a Expr>,
}

impl Ranks<'_> {
    /// (pre, job Rank, post) of `slot` for `job`: the first three ordering keys.
    pub fn keys(&self, pair: &mut PairEval, job: &Arc<ClassAd>, slot: &Arc<ClassAd>) -> [f64; 3] {
        let mut side = |e: Option<&Expr>| e.map_or(0.0, |e| pair.expr_rank(e, slot, job));
        let pre = side(self.pre);
        let post = side(self.post);
        [pre, pair.rank(job, slot), post]
    }
}

/// Orderings kept in all, counted in slots; past it the cache starts afresh (orderings
/// still in use by a search live on until it ends).
const BUDGET: usize = 32 << 20;

struct Entry {
    job: Arc<ClassAd>,
    names: Vec<String>,
    ordering: Arc<Ordering>,
    /// Clusters other than the first that used it.
    hits: usize,
}

/// A ranking wanted once: a job that wants it and the attributes its ranks read.
type Wanted = (Arc<ClassAd>, Vec<String>);

/// Orderings built and never reused before new ones wait for a second cluster to want them.
const UNUSED_BEFORE_WAITING: usize = 8;

/// The cycle's orderings, keyed by what a job's ranks can read of it.
pub struct Orderings {
    pool_reads: PoolReads,
    /// Slots that can take a job this cycle, in pool order.
    eligible: Vec<u32>,
    flat: Option<Arc<Ordering>>,
    cached: HashMap<u64, Vec<Entry>>,
    /// Rankings wanted once so far: a representative job and what its ranks read.
    seen_once: HashMap<u64, Vec<Wanted>>,
    stored: usize,
    built: usize,
    /// Orderings used by more than one cluster.
    reused: usize,
}

impl Orderings {
    pub fn new(pool: &[PoolSlot], pool_reads: PoolReads) -> Orderings {
        let eligible = (0..pool.len())
            .filter(|&k| pool.get(k).is_some_and(|s| s.free))
            .map(|k| k as u32)
            .collect();
        Orderings {
            pool_reads,
            eligible,
            flat: None,
            cached: HashMap::new(),
            seen_once: HashMap::new(),
            stored: 0,
            built: 0,
            reused: 0,
        }
    }

    /// The ordering of the pool for `job`; `None` when the cluster should rank the pool
    /// for itself: its ranks read something hidden from analysis (`eval()`), or orderings
    /// are not being reused and no other cluster has ranked the pool this way yet.
    /// Ranking the whole pool costs more than one cluster's own search: once a few
    /// orderings went unused, new ones are built only the second time they are wanted,
    /// so a pool whose every cluster ranks differently stops paying for them.
    pub fn for_job(
        &mut self,
        job: &Arc<ClassAd>,
        ranks: Ranks,
        pool: &[PoolSlot],
        pair: &mut PairEval,
    ) -> Option<Arc<Ordering>> {
        let slot_exprs: Vec<&Expr> = ranks.pre.into_iter().chain(ranks.post).collect();
        let reads = job_reads(job, &["rank"], &slot_exprs, &self.pool_reads)?;
        if !reads.reads_slot {
            let eligible = &self.eligible;
            return Some(
                self.flat
                    .get_or_insert_with(|| Arc::new(Ordering::flat(eligible.clone())))
                    .clone(),
            );
        }
        let key = key_of(job, &reads.job);
        let hit = self.cached.get_mut(&key).and_then(|entries| {
            entries
                .iter_mut()
                .find(|e| e.names == reads.job && agree(&e.job, job, &e.names))
        });
        if let Some(entry) = hit {
            if entry.hits == 0 {
                self.reused += 1;
            }
            entry.hits += 1;
            return Some(entry.ordering.clone());
        }
        let unused = self.built - self.reused;
        let once = self.seen_once.entry(key).or_default();
        match once
            .iter()
            .position(|(j, names)| *names == reads.job && agree(j, job, names))
        {
            Some(i) => {
                once.swap_remove(i);
            }
            None if unused >= UNUSED_BEFORE_WAITING => {
                once.push((job.clone(), reads.job));
                return None;
            }
            None => {}
        }
        let ordering = Arc::new(self.build(job, ranks, pool, pair));
        if self.stored + ordering.len() > BUDGET {
            self.cached.clear();
            self.stored = 0;
        }
        self.stored += ordering.len();
        self.cached.entry(key).or_default().push(Entry {
            job: job.clone(),
            names: reads.job,
            ordering: ordering.clone(),
            hits: 0,
        });
        Some(ordering)
    }

    fn build(
        &mut self,
        job: &Arc<ClassAd>,
        ranks: Ranks,
        pool: &[PoolSlot],
        pair: &mut PairEval,
    ) -> Ordering {
        self.built += 1;
        let keys = self
            .eligible
            .iter()
            .filter_map(|&k| {
                let slot = pool.get(k as usize)?;
                Some((ranks.keys(pair, job, &slot.advertised), k))
            })
            .collect();
        Ordering::ranked(keys)
    }
}

/// A hash of `job`'s expressions for `names` (a collision costs a comparison, no more).
fn key_of(job: &ClassAd, names: &[String]) -> u64 {
    let mut h: u64 = names.len() as u64;
    for name in names {
        let e = job.hash_of(name).unwrap_or(0x5bd1_e995);
        h = (h.rotate_left(7) ^ e).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    h
}

/// Do two jobs write each of `names` the same (or both lack it)?
fn agree(a: &ClassAd, b: &ClassAd, names: &[String]) -> bool {
    names.iter().all(|n| match (a.lookup(n), b.lookup(n)) {
        (None, None) => true,
        (Some(x), Some(y)) => x.same_as(y),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_of_equal_keys_best_first_in_pool_order() {
        let o = Ordering::ranked(vec![
            ([0.0, 1.0, 0.0], 0),
            ([0.0, 3.0, 0.0], 1),
            ([0.0, 1.0, 0.0], 2),
            ([1.0, 0.0, 0.0], 3),
        ]);
        let members = |g| {
            let (a, b) = o.group(g).unwrap();
            (a..b).map(|p| o.slot(p).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(members(0), [3]);
        assert_eq!(members(1), [1]);
        assert_eq!(members(2), [0, 2]);
        assert_eq!(o.group(3), None);
        assert_eq!(o.group_of(2), 2);
        assert_eq!(o.group_of(3), 2);
        assert_eq!(o.group_of(4), 3);
        assert!(Ordering::flat(vec![]).group(0).is_none());
    }

    #[test]
    fn taken_slots_are_skipped_and_the_jumps_remembered() {
        let o = Ordering::flat((0..10).collect());
        let taken = |k: usize| k < 4 || k == 5 || k == 6;
        assert_eq!(o.next_untaken(0, taken), 4);
        assert_eq!(o.next_untaken(5, taken), 7);
        // The jumps hold: a later search from the top lands at once.
        assert_eq!(o.jump[0].load(Relaxed), 4);
        assert_eq!(o.next_untaken(0, |k| k <= 6), 7);
        assert_eq!(o.next_untaken(0, |_| true), 10);
    }
}
