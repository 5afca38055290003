//! Hierarchical group quotas: HTCondor's allocation on the admin manual's tree, worked
//! through by hand from its source (docs/design/hgq-htcondor.md, section 7), and the
//! rules every pool must keep, as properties.

// A test harness: failing loudly is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::{parse_ad, ClassAd};
use condorx_matchmaking::groups::{GroupSpec, Quota, Settings, Shares, Tree};
use condorx_matchmaking::negotiate::SUBMITTER_LIMIT;
use condorx_matchmaking::{negotiate, Config, Cycle, GroupPolicy, Submitter};
use proptest::prelude::*;

fn spec(name: &str, quota: Quota, accept_surplus: bool) -> GroupSpec {
    GroupSpec {
        name: name.into(),
        quota: Some(quota),
        accept_surplus,
        autoregroup: false,
    }
}

/// The admin manual's example: physics (20; hep 15, lep 5) and chemistry (10), hep and
/// lep accepting surplus.
fn manual_tree() -> Tree {
    let specs = [
        spec("group_physics", Quota::Static(20.0), false),
        spec("group_physics.hep", Quota::Static(15.0), true),
        spec("group_physics.lep", Quota::Static(5.0), true),
        spec("group_chemistry", Quota::Static(10.0), false),
    ];
    Tree::build(&specs, false, false).0
}

/// Quotas and one allocation round (fair share, then whole slots by round robin).
fn allocate<'t>(tree: &'t Tree, pool: f64, demand: &[f64], oversubscribe: bool) -> Shares<'t> {
    let usage = vec![0.0; tree.len()];
    let mut shares = Shares::new(tree, demand, &usage, &[]);
    shares.assign_quotas(0, pool, oversubscribe);
    shares.fairshare(0);
    shares.recover_remainders(0);
    shares
}

/// (quota, allocated) of each group, in the tree's order.
fn figures(shares: &Shares<'_>) -> Vec<(f64, f64)> {
    shares.of.iter().map(|s| (s.quota, s.allocated)).collect()
}

// Tree order: <none>, group_chemistry, group_physics, group_physics.hep, group_physics.lep.
const DEMAND: [f64; 5] = [3.0, 4.0, 0.0, 30.0, 2.0];

#[test]
fn oversubscribed_static_quotas_are_given_whole_and_surplus_flows_to_hep() {
    let tree = manual_tree();
    let shares = allocate(&tree, 40.0, &DEMAND, true);
    assert_eq!(
        figures(&shares),
        [
            (10.0, 3.0),
            (10.0, 4.0),
            (20.0, 0.0),
            (15.0, 30.0),
            (5.0, 2.0)
        ]
    );
}

#[test]
fn without_oversubscription_physics_keeps_no_quota_of_its_own() {
    let tree = manual_tree();
    let shares = allocate(&tree, 40.0, &DEMAND, false);
    assert_eq!(
        figures(&shares),
        [
            (10.0, 3.0),
            (10.0, 4.0),
            (0.0, 0.0),
            (15.0, 18.0),
            (5.0, 2.0)
        ]
    );
}

#[test]
fn dynamic_quotas_share_what_the_static_siblings_leave() {
    let specs = [
        spec("a", Quota::Static(10.0), false),
        spec("b", Quota::Dynamic(0.5), false),
        spec("c", Quota::Dynamic(0.25), false),
    ];
    let tree = Tree::build(&specs, false, false).0;
    let shares = allocate(&tree, 50.0, &[0.0; 4], true);
    let quotas: Vec<f64> = shares.of.iter().map(|s| s.quota).collect();
    // b and c share the 40 left after a: 20 and 10; the root keeps the rest.
    assert_eq!(quotas, [10.0, 10.0, 20.0, 10.0]);
}

#[test]
fn fractions_are_handed_out_whole_to_the_least_recently_served() {
    let specs: Vec<GroupSpec> = ["a", "b", "c"]
        .iter()
        .map(|n| spec(n, Quota::Dynamic(1.0 / 3.0), true))
        .collect();
    let tree = Tree::build(&specs, false, false).0;
    let demand = [0.0, 100.0, 100.0, 100.0];
    let usage = [0.0; 4];
    // c was served longest ago, then a.
    let rr_time = [0.0, 50.0, 90.0, 10.0];
    let mut shares = Shares::new(&tree, &demand, &usage, &rr_time);
    shares.assign_quotas(0, 10.0, true);
    shares.fairshare(0);
    shares.recover_remainders(0);
    let allocated: Vec<f64> = shares.of.iter().map(|s| s.allocated).collect();
    assert_eq!(allocated, [0.0, 3.0, 3.0, 4.0]);
}

fn slots(n: usize) -> Vec<Arc<ClassAd>> {
    (0..n)
        .map(|i| {
            let text = format!(
                r#"[ Name = "slot{i}"; Cpus = 1; Memory = 1024; State = "Unclaimed"; Requirements = true ]"#
            );
            Arc::new(parse_ad(&text).unwrap())
        })
        .collect()
}

fn jobs(n: usize, group: &str) -> Vec<Arc<ClassAd>> {
    let text = format!(
        r#"[ Owner = "u"; AccountingGroup = "{group}"; RequestCpus = 1; Requirements = true ]"#
    );
    let ad = Arc::new(parse_ad(&text).unwrap());
    vec![ad; n]
}

fn submitter(name: &str, n: usize) -> Submitter {
    let group = name.split('@').next().unwrap_or(name);
    Submitter {
        name: name.into(),
        priority: 500.0,
        jobs: jobs(n, group),
    }
}

fn grouped(tree: Tree, pool: f64, settings: Settings) -> Config {
    let policy = GroupPolicy {
        tree,
        settings,
        pool,
        usage: HashMap::new(),
        rr_time: Vec::new(),
        now: 1000.0,
    };
    Config {
        groups: Some(Arc::new(policy)),
        ..Config::default()
    }
}

fn matches_of(cycle: &Cycle, subs: &[Submitter]) -> Vec<(String, usize)> {
    subs.iter()
        .enumerate()
        .map(|(i, s)| {
            let n = cycle.matches.iter().filter(|m| m.submitter == i).count();
            (s.name.clone(), n)
        })
        .collect()
}

#[test]
fn groups_without_surplus_stop_at_their_quotas() {
    let specs = [
        spec("a", Quota::Static(6.0), false),
        spec("b", Quota::Static(4.0), false),
    ];
    let tree = Tree::build(&specs, false, false).0;
    let subs = [submitter("a.u@d", 20), submitter("b.u@d", 20)];
    let cycle = negotiate(&slots(20), &subs, &grouped(tree, 20.0, Settings::default()));
    assert_eq!(
        matches_of(&cycle, &subs),
        [("a.u@d".to_string(), 6), ("b.u@d".to_string(), 4)]
    );
    let limited = cycle
        .rejections
        .iter()
        .filter(|r| r.reason == SUBMITTER_LIMIT);
    assert_eq!(limited.count(), 30, "{:?}", cycle.rejections);
    let outcome = cycle.groups.expect("a grouped cycle reports its groups");
    assert_eq!(
        outcome.rounds, 1,
        "every allocation was filled in the first round"
    );
}

#[test]
fn groups_accepting_surplus_share_it_by_quota() {
    let specs = [
        spec("a", Quota::Static(6.0), true),
        spec("b", Quota::Static(4.0), true),
    ];
    let tree = Tree::build(&specs, false, false).0;
    let subs = [submitter("a.u@d", 20), submitter("b.u@d", 20)];
    let cycle = negotiate(&slots(20), &subs, &grouped(tree, 20.0, Settings::default()));
    // The root's 10 unused slots go 6:4.
    assert_eq!(
        matches_of(&cycle, &subs),
        [("a.u@d".to_string(), 12), ("b.u@d".to_string(), 8)]
    );
}

#[test]
fn an_autoregrouping_group_takes_what_is_left_under_the_root() {
    let mut a = spec("a", Quota::Static(2.0), false);
    a.autoregroup = true;
    let tree = Tree::build(&[a, spec("b", Quota::Static(3.0), false)], false, false).0;
    let subs = [submitter("a.u@d", 10), submitter("b.u@d", 10)];
    let cycle = negotiate(&slots(10), &subs, &grouped(tree, 10.0, Settings::default()));
    // a gets its 2, b its 3; then a, regrouped under the root, the 5 nobody else wants.
    assert_eq!(
        matches_of(&cycle, &subs),
        [("a.u@d".to_string(), 7), ("b.u@d".to_string(), 3)]
    );
}

#[test]
fn slots_a_group_cannot_use_go_to_others_in_the_next_round() {
    let specs = [
        spec("a", Quota::Static(5.0), true),
        spec("b", Quota::Static(5.0), true),
    ];
    let tree = Tree::build(&specs, false, false).0;
    // a's jobs match no slot: its 5 are allocated, unused, and given to b in round 2.
    let picky = Arc::new(parse_ad(r#"[ Owner = "u"; Requirements = false ]"#).unwrap());
    let subs = [
        Submitter {
            name: "a.u@d".into(),
            priority: 500.0,
            jobs: vec![picky; 5],
        },
        submitter("b.u@d", 10),
    ];
    let cycle = negotiate(&slots(10), &subs, &grouped(tree, 10.0, Settings::default()));
    assert_eq!(
        matches_of(&cycle, &subs),
        [("a.u@d".to_string(), 0), ("b.u@d".to_string(), 10)]
    );
    assert_eq!(cycle.groups.unwrap().rounds, 2);
}

/// A random tree of up to three levels, with static and dynamic quotas, and random
/// surplus acceptance (never regrouping: a regrouped group is not held to its quota).
fn random_tree(rng: &mut common::Rng) -> Tree {
    let mut specs = Vec::new();
    for a in 0..1 + rng.below(3) {
        let top = format!("g{a}");
        specs.push(random_spec(rng, &top));
        for b in 0..rng.below(3) {
            let mid = format!("{top}.s{b}");
            specs.push(random_spec(rng, &mid));
            for c in 0..rng.below(2) {
                specs.push(random_spec(rng, &format!("{mid}.t{c}")));
            }
        }
    }
    Tree::build(&specs, false, false).0
}

fn random_spec(rng: &mut common::Rng, name: &str) -> GroupSpec {
    let quota = if rng.below(2) == 0 {
        Quota::Static(rng.below(12) as f64)
    } else {
        Quota::Dynamic(rng.below(5) as f64 / 4.0)
    };
    spec(name, quota, rng.below(2) == 0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Without oversubscription, no allocation round gives out more than the pool, and
    /// no group is allocated more than it asked for.
    #[test]
    fn allocations_never_exceed_the_pool(seed in any::<u64>()) {
        let mut rng = common::Rng(seed);
        let tree = random_tree(&mut rng);
        let pool = rng.below(60) as f64;
        let demand: Vec<f64> = (0..tree.len()).map(|_| rng.below(30) as f64).collect();
        for weighted in [false, true] {
            let usage = vec![0.0; tree.len()];
            let mut shares = Shares::new(&tree, &demand, &usage, &[]);
            shares.assign_quotas(0, pool, false);
            shares.fairshare(0);
            if !weighted {
                shares.recover_remainders(0);
            }
            let total: f64 = shares.of.iter().map(|s| s.allocated).sum();
            prop_assert!(total <= pool + 1e-6, "{total} > {pool}: {:?}", shares.of);
            for (s, d) in shares.of.iter().zip(&demand) {
                prop_assert!(s.allocated <= d + 1e-6, "{s:?} asked {d}");
            }
        }
    }

    /// A group that accepts no surplus never runs above its quota, its subgroups
    /// counted, however the rest of the pool is set up.
    #[test]
    fn a_group_without_surplus_stays_within_its_quota(seed in any::<u64>()) {
        let mut rng = common::Rng(seed);
        let tree = random_tree(&mut rng);
        let pool = 5 + rng.below(40) as usize;
        let subs: Vec<Submitter> = tree
            .groups
            .iter()
            .map(|g| g.name.replace("<none>", "nogroup"))
            .map(|name| submitter(&format!("{name}.u@d"), rng.below(25) as usize))
            .collect();
        let oversubscribe = rng.below(2) == 0;
        let settings = Settings { oversubscribe, weighted: rng.below(2) == 0, ..Settings::default() };
        let config = grouped(tree.clone(), pool as f64, settings);
        let cycle = negotiate(&slots(pool), &subs, &config);
        prop_assert!(cycle.matches.len() <= pool);
        let outcome = cycle.groups.clone().unwrap();
        let mut used = vec![0.0; tree.len()];
        for m in &cycle.matches {
            used[tree.assigned(&subs[m.submitter].name)] += 1.0;
        }
        let subtree = condorx_matchmaking::groups::subtree_usage(&tree, &used);
        for (g, group) in tree.groups.iter().enumerate().skip(1) {
            if group.accept_surplus {
                continue;
            }
            let cap = if group.quota.is_static() {
                group.quota.value()
            } else {
                outcome.shares[g].subtree_quota
            };
            prop_assert!(subtree[g] <= cap.floor() + 1e-9,
                "{} uses {} over its quota {cap}", group.name, subtree[g]);
        }
    }

    /// A pool whose only group nobody is in negotiates exactly as a flat pool does.
    #[test]
    fn an_unused_group_changes_nothing(seed in any::<u64>()) {
        let (slots, subs, config) = common::case(seed);
        let flat = negotiate(&slots, &subs, &config);
        let tree = Tree::build(&[spec("unused", Quota::Static(0.0), false)], false, false).0;
        let pool: f64 = slots.iter().map(|s| weight(s)).sum();
        let grouped_config = Config { groups: grouped(tree, pool, Settings::default()).groups, ..config };
        let cycle = negotiate(&slots, &subs, &grouped_config);
        prop_assert_eq!(decisions(&flat), decisions(&cycle));
    }
}

/// A slot's share of the pool: a partitionable slot's cores, else one.
fn weight(slot: &ClassAd) -> f64 {
    let partitionable = slot
        .lookup("PartitionableSlot")
        .is_some_and(|e| condorx_classad::unparse(e) == "true");
    match (partitionable, slot.lookup("Cpus")) {
        (true, Some(c)) => condorx_classad::unparse(c).parse().unwrap_or(0.0),
        _ => 1.0,
    }
}

fn decisions(c: &Cycle) -> Vec<String> {
    let mut out: Vec<String> = c
        .matches
        .iter()
        .map(|m| format!("{} {} -> {} {:?}", m.submitter, m.job, m.slot, m.preempts))
        .collect();
    out.extend(
        c.rejections
            .iter()
            .map(|r| format!("{} {} x {}", r.submitter, r.job, r.reason)),
    );
    out
}
