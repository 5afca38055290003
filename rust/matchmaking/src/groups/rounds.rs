//! A negotiation cycle under group quotas, as HTCondor's hgq_negotiate_with_all_groups
//! runs it: up to GROUP_QUOTA_MAX_ALLOCATION_ROUNDS allocation rounds; in each, every
//! group is allocated its share, the groups are taken in GROUP_SORT_EXPR order (the root
//! last when groups regroup), and each negotiates up to its limit. Slots a group was
//! allocated but could not use go to the others in the next round.

use std::cmp::Ordering;
use std::sync::Arc;

use condorx_classad::{ClassAd, Evaluator, Expr, Value};

use super::share::Shares;
use super::tree::{Tree, ROOT};

/// The knobs of group negotiation, with HTCondor's defaults.
#[derive(Debug, Clone)]
pub struct Settings {
    /// NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION.
    pub oversubscribe: bool,
    /// GROUP_QUOTA_MAX_ALLOCATION_ROUNDS (at least 1).
    pub max_rounds: usize,
    /// GROUP_QUOTA_ROUND_ROBIN_RATE: how far towards its target each group goes per pass.
    pub round_robin_rate: f64,
    /// NEGOTIATOR_STRICT_ENFORCE_QUOTA.
    pub strict: bool,
    /// NEGOTIATOR_USE_SLOT_WEIGHTS: fractional slots are kept, not rounded by round robin.
    pub weighted: bool,
    /// NEGOTIATOR_CONSIDER_PREEMPTION: a group at its allocation still negotiates.
    pub consider_preemption: bool,
    /// GROUP_SORT_EXPR (None: HTCondor's default, starvation order).
    pub sort_expr: Option<Expr>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            oversubscribe: true,
            max_rounds: 3,
            round_robin_rate: 1.0e100,
            strict: true,
            weighted: true,
            consider_preemption: true,
            sort_expr: None,
        }
    }
}

/// What a cycle's groups were given, for the log and the accounting ads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Each group's share as the last round left it.
    pub shares: Vec<super::share::Share>,
    /// Each group's sort key in the last round.
    pub sort_keys: Vec<f64>,
    pub rounds: usize,
    /// When round robin last served each group, for the next cycle.
    pub rr_time: Vec<f64>,
    /// Warnings for the log (a sort expression that does not evaluate, ...).
    pub warnings: Vec<String>,
    /// Each group's turn to negotiate, in order: (round, group, whether it was the root's
    /// regrouped turn, with the regrouping groups' submitters too).
    pub turns: Vec<(usize, usize, bool)>,
}

/// Who negotiates: the driver says which group and up to what usage, the negotiator
/// makes matches and charges them to `live` (each group's usage, kept current).
pub trait Negotiate {
    /// Negotiate for group `g`'s submitters until its usage reaches `limit`; `limit`
    /// None is the root's last turn when groups regroup: the root's submitters and the
    /// regrouping groups' together, with no group limit.
    fn group(&mut self, g: usize, limit: Option<f64>, live: &mut [f64]);
}

/// What a cycle starts from, per group of the tree.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'x> {
    /// The pool's size in (weighted) slots.
    pub pool: f64,
    /// Running and idle jobs of each group's own submitters.
    pub demand: &'x [f64],
    /// What each group's own submitters hold now.
    pub usage: &'x [f64],
    /// Which groups have submitters this cycle.
    pub present: &'x [bool],
    pub now: f64,
}

/// Run the cycle's allocation rounds; `rr_time` is kept from cycle to cycle and
/// updated here.
pub fn negotiate_groups(
    tree: &Tree,
    settings: &Settings,
    inputs: Inputs<'_>,
    rr_time: &mut [f64],
    negotiator: &mut dyn Negotiate,
) -> Outcome {
    let Inputs {
        pool,
        demand,
        usage,
        present: has_submitters,
        now,
    } = inputs;
    let mut shares = Shares::new(tree, demand, usage, rr_time);
    shares.assign_quotas(0, pool, settings.oversubscribe);
    let mut live: Vec<f64> = (0..tree.len()).map(|g| shares.get(g).usage).collect();
    let mut outcome = Outcome::default();
    for round in 1..=settings.max_rounds.max(1) {
        outcome.rounds = round;
        allocate_round(&mut shares, settings, pool);
        let keys = sort_keys(&shares, &live, settings, &mut outcome.warnings);
        let order = group_order(tree, &keys);
        outcome.sort_keys = keys;
        let maxdelta = max_delta(&shares);
        let mut n = 0.0;
        loop {
            n = (n + settings.round_robin_rate).min(maxdelta);
            for &g in &order {
                let s = shares.get(g);
                let present =
                    has_submitters.get(g).copied().unwrap_or(false) || (g == 0 && tree.autoregroup);
                if s.allocated <= 0.0
                    || (s.usage >= s.allocated && !settings.consider_preemption)
                    || !present
                {
                    continue;
                }
                let limit = limit_in_pass(&shares, g, n, maxdelta, settings, &live);
                let regrouped = g == 0 && tree.autoregroup;
                outcome.turns.push((round, g, regrouped));
                negotiator.group(g, (!regrouped).then_some(limit), &mut live);
            }
            if n >= maxdelta {
                break;
            }
        }
        if reassess(&mut shares, &live) {
            break;
        }
    }
    for (g, time) in rr_time.iter_mut().enumerate() {
        let s = shares.get(g);
        if s.rr || s.requested <= 0.0 {
            *time = now;
        }
    }
    outcome.shares = shares.of;
    outcome
}

/// One allocation round: fair share with surplus, whole slots by round robin when slots
/// are not weighted, and the whole pool to the root when groups regroup.
fn allocate_round(shares: &mut Shares<'_>, settings: &Settings, pool: f64) {
    for s in &mut shares.of {
        s.allocated = 0.0;
        s.subtree_requested = 0.0;
        s.rr = false;
    }
    shares.fairshare(0);
    if !settings.weighted {
        shares.recover_remainders(0);
    }
    if shares.tree.autoregroup {
        let root = shares.at(0);
        root.quota = pool;
        root.allocated = pool;
    }
}

/// The largest gap between a group's target and its usage: the round robin's span.
fn max_delta(shares: &Shares<'_>) -> f64 {
    let surplus = shares.tree.accept_surplus;
    shares
        .of
        .iter()
        .map(|s| ((if surplus { s.allocated } else { s.quota }) - s.usage).max(0.0))
        .fold(0.0, f64::max)
}

/// How far group `g` may go in this pass: a fraction `n / maxdelta` of the way from its
/// usage to the larger of its allocation and quota, and no further than strict
/// enforcement lets it.
fn limit_in_pass(
    shares: &Shares<'_>,
    g: usize,
    n: f64,
    maxdelta: f64,
    settings: &Settings,
    live: &[f64],
) -> f64 {
    let s = shares.get(g);
    let target = s.allocated.max(s.quota);
    let delta = (target - s.usage).max(0.0);
    // A zero span with a gap left (the root's surplus when no group accepts any) would
    // make HTCondor's fraction 0/0; the whole gap is meant.
    let fraction = if maxdelta > 0.0 { n / maxdelta } else { 1.0 };
    let mut slots = if delta > 0.0 {
        s.usage + delta * fraction
    } else {
        target
    };
    slots = slots.min(target);
    if !settings.weighted {
        slots = slots.floor();
    }
    if settings.strict {
        slots = strict_limit(shares, g, slots, live);
    }
    // HTCondor hands the limit on as an integer.
    slots.trunc()
}

/// No group that refuses surplus goes over its quota, counting its whole subtree's
/// usage now: every such group on the path from `g` to the root caps what `g` may add.
fn strict_limit(shares: &Shares<'_>, g: usize, slots: f64, live: &[f64]) -> f64 {
    let tree = shares.tree;
    let subtree = subtree_usage(tree, live);
    let own = shares.get(g).usage;
    let mut more = slots - own;
    for node in tree.path_up(g) {
        let Some(group) = tree.group(node) else {
            continue;
        };
        if group.accept_surplus {
            continue;
        }
        let cap = if group.quota.is_static() {
            group.quota.value()
        } else {
            shares.get(node).subtree_quota
        };
        let used = subtree.get(node).copied().unwrap_or(0.0);
        more = more.min((cap - used).max(0.0));
    }
    more + own
}

/// Each group's usage with all its descendants'.
pub fn subtree_usage(tree: &Tree, live: &[f64]) -> Vec<f64> {
    let mut total: Vec<f64> = (0..tree.len())
        .map(|g| live.get(g).copied().unwrap_or(0.0))
        .collect();
    // Children come after their parents: add each to its parent, deepest first.
    for g in (1..tree.len()).rev() {
        let parent = tree.group(g).and_then(|n| n.parent);
        let own = total.get(g).copied().unwrap_or(0.0);
        if let Some(p) = parent.and_then(|p| total.get_mut(p)) {
            *p += own;
        }
    }
    total
}

/// After a round's negotiation: a group that did not fill its allocation asks next round
/// only for what it holds, so others may have the rest. True when every allocation was
/// filled.
fn reassess(shares: &mut Shares<'_>, live: &[f64]) -> bool {
    let (mut used, mut allocated) = (0.0, 0.0);
    for (g, s) in shares.of.iter_mut().enumerate() {
        s.usage = live.get(g).copied().unwrap_or(0.0);
        used += s.usage.min(s.allocated);
        allocated += s.allocated;
        if s.usage < s.allocated {
            s.requested = s.usage;
        } else {
            s.requested += s.allocated;
        }
    }
    used >= allocated
}

/// GROUP_SORT_EXPR for each group, over its AccountingGroup, GroupQuota,
/// GroupResourcesAllocated and GroupResourcesInUse; one that does not evaluate to a
/// number sorts as FLT_MAX, with a warning.
fn sort_keys(
    shares: &Shares<'_>,
    live: &[f64],
    settings: &Settings,
    warnings: &mut Vec<String>,
) -> Vec<f64> {
    (0..shares.tree.len())
        .map(|g| {
            let s = shares.get(g);
            let in_use = live.get(g).copied().unwrap_or(0.0);
            let name = shares.tree.name(g);
            match &settings.sort_expr {
                None => default_sort_key(name, s.quota, in_use),
                Some(expr) => {
                    let mut ad = ClassAd::new();
                    ad.insert_str("AccountingGroup", Expr::string(name));
                    ad.insert_str("GroupQuota", Expr::Lit(Value::Real(s.quota)));
                    ad.insert_str("GroupResourcesAllocated", Expr::Lit(Value::Real(s.allocated)));
                    ad.insert_str("GroupResourcesInUse", Expr::Lit(Value::Real(in_use)));
                    let ad = Arc::new(ad);
                    match Evaluator::new(Some(&ad), None).eval(expr) {
                        Value::Int(i) => i as f64,
                        Value::Real(r) => r,
                        Value::Bool(b) => f64::from(u8::from(b)),
                        _ => {
                            warnings.push(format!(
                                "WARNING: sort expression failed to evaluate to floating point for group {name} - defaulting to {}",
                                f32::MAX
                            ));
                            f64::from(f32::MAX)
                        }
                    }
                }
            }
        })
        .collect()
}

/// HTCondor's default GROUP_SORT_EXPR: the root last, groups of quota 0 just before it,
/// the rest by usage over quota (the most starved first).
fn default_sort_key(name: &str, quota: f64, in_use: f64) -> f64 {
    if name == ROOT {
        3.4e38
    } else if quota > 0.0 {
        in_use / quota
    } else {
        3.3e38
    }
}

/// Groups by ascending sort key (ties in the tree's order), the root last when groups
/// regroup.
fn group_order(tree: &Tree, keys: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..tree.len()).collect();
    let key = |g: usize| keys.get(g).copied().unwrap_or(f64::MAX);
    order.sort_by(|&a, &b| {
        if tree.autoregroup && (a == 0 || b == 0) {
            return (a == 0).cmp(&(b == 0));
        }
        key(a).partial_cmp(&key(b)).unwrap_or(Ordering::Equal)
    });
    order
}
