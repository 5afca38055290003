//! Whole slots from fractions: when slots are not weighted, each group's fractional
//! allocation is taken back and the fractions, summed, are handed out again a whole slot
//! at a time, least recently served group first (HTCondor's hgq_recover_remainders and
//! hgq_round_robin).

use std::cmp::Ordering;

use super::share::{Candidate, Shares};

/// Values this close to a whole number are taken to be it (float jitter).
fn round_for_precision(x: f64) -> f64 {
    (x + 0.5).floor()
}

/// Fractions that sum to a whole number within float jitter are that number: three
/// thirds make a slot. (HTCondor compares the raw sum, and a pool of 10 slots under three
/// quotas of a third each hands out only 9.)
fn snap(x: f64) -> f64 {
    let whole = x.round();
    if (x - whole).abs() < 1e-9 {
        whole
    } else {
        x
    }
}

impl Shares<'_> {
    /// Take back the fractional part of every allocation below `g` and hand whole slots
    /// out again by round robin; returns the fractions nobody could use.
    pub fn recover_remainders(&mut self, g: usize) -> f64 {
        let s = self.at(g);
        let mut surplus = s.allocated - s.allocated.floor();
        s.allocated = round_for_precision(s.allocated - surplus);
        s.requested = round_for_precision(s.requested + surplus);
        s.subtree_requested = s.requested;
        s.subtree_rr_time = if s.requested > 0.0 {
            s.rr_time
        } else {
            f64::MAX
        };
        let children = self.children(g);
        if children.is_empty() {
            return surplus;
        }
        for c in children {
            surplus += self.recover_remainders(c);
            if self.accepts(c) {
                let (wanted, when) = (self.get(c).subtree_requested, self.get(c).subtree_rr_time);
                let s = self.at(g);
                s.subtree_requested += wanted;
                if wanted > 0.0 {
                    s.subtree_rr_time = s.subtree_rr_time.min(when);
                }
            }
        }
        self.round_robin(g, surplus)
    }

    /// Hand `surplus` out a whole slot at a time (up to an equal part each per pass)
    /// among `g` and its children that accept surplus, least recently served first;
    /// returns what is left.
    pub fn round_robin(&mut self, g: usize, surplus: f64) -> f64 {
        let mut surplus = snap(surplus);
        let s = self.at(g);
        s.subtree_requested = s.subtree_requested.floor();
        let mut requested = s.subtree_requested;
        if requested <= 0.0 || surplus < 1.0 {
            return surplus;
        }
        let mut cands = self.candidates(g);
        let mut outstanding = cands.iter().filter(|c| c.demand > 0.0).count() as f64;
        let mut order: Vec<usize> = (0..cands.len()).collect();
        // A stable sort: ties keep the tree's order (HTCondor's std::sort leaves them
        // in no particular order).
        order.sort_by(|&a, &b| by_rr_time(&cands, a, b));
        let mut allocated = vec![0.0; cands.len()];
        while surplus >= 1.0 && requested > 0.0 {
            let amax = (surplus / outstanding).floor().max(1.0);
            outstanding = 0.0;
            let mut given = 0.0;
            for &j in &order {
                let (Some(c), Some(alloc)) = (cands.get_mut(j), allocated.get_mut(j)) else {
                    continue;
                };
                if c.demand <= 0.0 {
                    continue;
                }
                let a = c.demand.min(amax);
                *alloc += a;
                c.demand -= a;
                given += a;
                surplus -= a;
                requested -= a;
                match c.child {
                    Some(child) => self.at(child).rr = true,
                    None => self.at(g).rr = true,
                }
                if c.demand > 0.0 {
                    outstanding += 1.0;
                }
                if surplus < amax {
                    break;
                }
            }
            if given < 1.0 {
                break; // cannot happen: every pass hands out a whole slot
            }
        }
        self.settle(g, &cands, &allocated, requested, Shares::round_robin);
        surplus
    }
}

/// Least recently served first, then the larger quota, then the larger demand.
fn by_rr_time(cands: &[Candidate], a: usize, b: usize) -> Ordering {
    let (Some(a), Some(b)) = (cands.get(a), cands.get(b)) else {
        return Ordering::Equal;
    };
    a.rr_time
        .total_cmp(&b.rr_time)
        .then(b.weight.total_cmp(&a.weight))
        .then(b.demand.total_cmp(&a.demand))
}
