//! Each group's share of the pool in one allocation round: its quota from the tree, then
//! what it is allocated of its demand, with the surplus of groups that ask for less than
//! their quota flowing up the tree and out to groups that accept surplus.
//!
//! These are HTCondor's hgq_assign_quotas, hgq_fairshare and hgq_allocate_surplus
//! (GroupEntry.cpp), step by step; docs/design/hgq-htcondor.md gives them rule by rule.

use super::tree::{Tree, ROOT};

/// One group's figures for a cycle. All are in (weighted) slots.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Share {
    /// What the group may use itself (not counting its children).
    pub quota: f64,
    /// What its whole subtree was given by its parent.
    pub subtree_quota: f64,
    /// Demand still unmet (running and idle jobs of its own submitters, at first).
    pub requested: f64,
    /// The demand as the cycle began.
    pub currently_requested: f64,
    pub allocated: f64,
    /// Unmet demand of this group and of its children that accept surplus.
    pub subtree_requested: f64,
    /// What its own submitters hold now.
    pub usage: f64,
    /// What its whole subtree holds now.
    pub subtree_usage: f64,
    /// Served by round robin in this round.
    pub rr: bool,
    /// When round robin last served it (kept from cycle to cycle).
    pub rr_time: f64,
    pub subtree_rr_time: f64,
}

/// The shares of every group of a tree, index for index.
#[derive(Debug, Clone, PartialEq)]
pub struct Shares<'t> {
    pub tree: &'t Tree,
    pub of: Vec<Share>,
}

impl<'t> Shares<'t> {
    /// Fresh shares for `tree`: demand and usage per group, round-robin times kept from
    /// the last cycle.
    pub fn new(tree: &'t Tree, demand: &[f64], usage: &[f64], rr_time: &[f64]) -> Shares<'t> {
        let at = |v: &[f64], i: usize| v.get(i).copied().unwrap_or(0.0);
        let of = (0..tree.len())
            .map(|i| Share {
                requested: at(demand, i),
                currently_requested: at(demand, i),
                usage: at(usage, i),
                rr_time: at(rr_time, i),
                ..Share::default()
            })
            .collect();
        Shares { tree, of }
    }

    pub fn get(&self, g: usize) -> &Share {
        static NONE: Share = Share {
            quota: 0.0,
            subtree_quota: 0.0,
            requested: 0.0,
            currently_requested: 0.0,
            allocated: 0.0,
            subtree_requested: 0.0,
            usage: 0.0,
            subtree_usage: 0.0,
            rr: false,
            rr_time: 0.0,
            subtree_rr_time: 0.0,
        };
        self.of.get(g).unwrap_or(&NONE)
    }

    pub(super) fn at(&mut self, g: usize) -> &mut Share {
        if g >= self.of.len() {
            self.of.resize(g + 1, Share::default());
        }
        // Just resized to hold `g`.
        #[allow(clippy::indexing_slicing)]
        &mut self.of[g]
    }

    pub(super) fn children(&self, g: usize) -> Vec<usize> {
        self.tree
            .group(g)
            .map(|n| n.children.clone())
            .unwrap_or_default()
    }

    pub(super) fn accepts(&self, g: usize) -> bool {
        self.tree.group(g).is_some_and(|n| n.accept_surplus)
    }

    /// Give group `g`'s subtree `q` slots: static children first, exactly their quota
    /// when oversubscription is allowed (NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION), else in
    /// proportion within `q`; dynamic children share what is left by their fractions.
    pub fn assign_quotas(&mut self, g: usize, q: f64, oversubscribe: bool) {
        if q <= 0.0 {
            return;
        }
        self.at(g).subtree_quota = q;
        let children = self.children(g);
        let quota_of = |c: usize| self.tree.group(c).map(|n| n.quota);
        let (mut sqsum, mut dqsum) = (0.0, 0.0);
        for &c in &children {
            match quota_of(c) {
                Some(quota) if quota.is_static() => sqsum += quota.value(),
                Some(quota) => dqsum += quota.value(),
                None => {}
            }
        }
        let sqa = if oversubscribe { sqsum } else { sqsum.min(q) };
        let dqa = (q - sqa).max(0.0);
        let zs = if sqsum > 0.0 { sqsum } else { 1.0 };
        let zd = dqsum.max(1.0);
        let mut given = 0.0;
        for &c in &children {
            let Some(quota) = quota_of(c) else { continue };
            let share = if quota.is_static() {
                quota.value() * sqa / zs
            } else {
                quota.value() * dqa / zd
            };
            let share = share.max(0.0);
            self.assign_quotas(c, share, oversubscribe);
            given += share;
        }
        // The root's quota is the pool less its children's, or surplus would count twice.
        let own = if oversubscribe && self.tree.name(g) != ROOT {
            q
        } else {
            q - given
        };
        self.at(g).quota = own.max(0.0);
    }

    /// Allocate `g`'s own demand up to its quota, then its children's, and share the
    /// surplus out; returns the surplus left for `g`'s parent.
    pub fn fairshare(&mut self, g: usize) -> f64 {
        let s = self.at(g);
        s.allocated = s.requested.min(s.quota);
        s.requested -= s.allocated;
        s.subtree_requested = s.requested;
        let mut surplus = s.quota - s.allocated;
        let children = self.children(g);
        if children.is_empty() {
            return surplus;
        }
        for c in children {
            surplus += self.fairshare(c);
            if self.accepts(c) {
                let more = self.get(c).subtree_requested;
                self.at(g).subtree_requested += more;
            }
        }
        self.allocate_surplus(g, surplus)
    }

    /// Share `surplus` among `g` itself and its children that accept surplus, in
    /// proportion to their quotas (then equally among those of quota 0), and push each
    /// child's part down its subtree; returns what nobody asked for.
    pub fn allocate_surplus(&mut self, g: usize, mut surplus: f64) -> f64 {
        if surplus <= 0.0 {
            return 0.0;
        }
        let mut requested = self.get(g).subtree_requested;
        if requested <= 0.0 {
            return surplus;
        }
        let mut candidates = self.candidates(g);
        let mut allocated = vec![0.0; candidates.len()];
        if surplus >= requested {
            for (a, c) in allocated.iter_mut().zip(&candidates) {
                if c.demand > 0.0 {
                    *a = c.demand;
                }
            }
            surplus -= requested;
            requested = 0.0;
        } else {
            let mut left = Left { surplus, requested };
            share_loop(true, &mut candidates, &mut allocated, &mut left);
            share_loop(false, &mut candidates, &mut allocated, &mut left);
            (surplus, requested) = (left.surplus, left.requested);
        }
        self.settle(
            g,
            &candidates,
            &allocated,
            requested,
            Shares::allocate_surplus,
        );
        surplus
    }

    /// Give each child its part of what was shared out at `g` (`hand_down` pushes it
    /// down the child's subtree) and `g` its own; `requested` is the subtree's demand
    /// still unmet.
    pub(super) fn settle(
        &mut self,
        g: usize,
        candidates: &[Candidate],
        allocated: &[f64],
        requested: f64,
        hand_down: fn(&mut Self, usize, f64) -> f64,
    ) {
        for (c, &a) in candidates.iter().zip(allocated) {
            if let (Some(child), true) = (c.child, a > 0.0) {
                hand_down(self, child, a);
            }
        }
        let own = allocated.last().copied().unwrap_or(0.0);
        let s = self.at(g);
        s.allocated += own;
        s.requested -= own;
        s.subtree_requested = requested;
    }

    /// `g`'s children, then `g` itself taking part as a child that accepts surplus, its
    /// own quota and demand standing for a subtree's. A child that accepts no surplus
    /// competes for none: its demand is 0 here.
    pub(super) fn candidates(&self, g: usize) -> Vec<Candidate> {
        let mut out: Vec<Candidate> = self
            .children(g)
            .into_iter()
            .map(|c| {
                let s = self.get(c);
                Candidate {
                    child: Some(c),
                    weight: s.subtree_quota,
                    demand: if self.accepts(c) {
                        s.subtree_requested
                    } else {
                        0.0
                    },
                    rr_time: s.subtree_rr_time,
                }
            })
            .collect();
        let s = self.get(g);
        out.push(Candidate {
            child: None,
            weight: s.quota,
            demand: s.requested,
            rr_time: s.rr_time,
        });
        out
    }
}

/// A child (or the parent itself, `child` None) competing for its parent's surplus.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub child: Option<usize>,
    pub weight: f64,
    pub demand: f64,
    pub rr_time: f64,
}

struct Left {
    surplus: f64,
    requested: f64,
}

/// Hand `left.surplus` out in proportion to quota (`by_quota`) or equally, capped at
/// each candidate's demand, until it is gone or nobody wants more.
fn share_loop(by_quota: bool, cands: &mut [Candidate], allocated: &mut [f64], left: &mut Left) {
    while left.surplus > 0.0 {
        let weight = |c: &Candidate| if by_quota { c.weight } else { 1.0 };
        let z: f64 = cands.iter().filter(|c| c.demand > 0.0).map(weight).sum();
        if z <= 0.0 {
            break;
        }
        let mut never_capped = true;
        let mut given = 0.0;
        for (c, alloc) in cands.iter_mut().zip(allocated.iter_mut()) {
            if c.demand <= 0.0 {
                continue;
            }
            let mut a = left.surplus * weight(c) / z;
            if a > c.demand {
                a = c.demand;
                never_capped = false;
            }
            *alloc += a;
            c.demand -= a;
            given += a;
        }
        left.surplus -= given;
        left.requested -= given;
        // Numeric jitter: either all was handed out, or some candidate is now satisfied.
        if never_capped || left.surplus < 0.0 {
            left.surplus = 0.0;
        }
    }
}
