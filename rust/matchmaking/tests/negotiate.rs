//! Behaviour of one negotiation cycle: Rank, autoclusters, fair-share slices, rejections.

// A test harness: failing loudly is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::{parse_ad, parse_expr, unparse, ClassAd};
use condorx_matchmaking::{negotiate, Config, Preemption, Submitter};

fn ad(text: &str) -> Arc<ClassAd> {
    Arc::new(parse_ad(text).unwrap())
}

fn slot(memory: i64) -> Arc<ClassAd> {
    ad(&format!(
        r#"[ Name = "slot{memory}"; Memory = {memory}; KFlops = {}; State = "Unclaimed"; Requirements = true ]"#,
        memory * 10
    ))
}

fn job(owner: &str, memory: i64) -> Arc<ClassAd> {
    ad(&format!(
        r#"[ Owner = "{owner}"; RequestMemory = {memory}; Requirements = TARGET.Memory >= RequestMemory; Rank = TARGET.Memory ]"#
    ))
}

fn submitter(name: &str, priority: f64, jobs: Vec<Arc<ClassAd>>) -> Submitter {
    Submitter {
        name: name.into(),
        priority,
        jobs,
    }
}

#[test]
fn a_job_gets_the_slot_its_rank_prefers() {
    let slots = vec![slot(1024), slot(8192), slot(4096)];
    let subs = vec![submitter("alice", 1.0, vec![job("alice", 2048)])];
    let cycle = negotiate(&slots, &subs, &Config::default());
    assert_eq!(cycle.matches.len(), 1);
    assert_eq!(cycle.matches[0].slot, 1);
    assert_eq!(cycle.matches[0].rank, 8192.0);
}

#[test]
fn a_cluster_is_matched_with_one_scan_of_the_pool() {
    let slots: Vec<_> = (1..=10).map(|k| slot(1024 * k)).collect();
    let jobs: Vec<_> = (0..5).map(|_| job("alice", 2048)).collect();
    let cycle = negotiate(&slots, &[submitter("alice", 1.0, jobs)], &Config::default());
    assert_eq!(cycle.clusters, 1);
    assert_eq!(
        cycle.pairs_evaluated, 5,
        "five alike jobs walk the ranked pool once, from the top, and stop at five slots"
    );
    let got: Vec<usize> = cycle.matches.iter().map(|m| m.slot).collect();
    assert_eq!(
        got,
        vec![9, 8, 7, 6, 5],
        "each job takes the best slot still free"
    );
}

#[test]
fn the_pool_is_shared_in_inverse_proportion_to_priority() {
    let slots: Vec<_> = (0..8).map(|_| slot(4096)).collect();
    let many = |who: &str| (0..100).map(|_| job(who, 1024)).collect::<Vec<_>>();
    let subs = vec![
        submitter("alice", 1.0, many("alice")),
        submitter("bob", 3.0, many("bob")),
    ];
    let cycle = negotiate(&slots, &subs, &Config::default());
    let count = |s: usize| cycle.matches.iter().filter(|m| m.submitter == s).count();
    assert_eq!((count(0), count(1)), (6, 2));
}

#[test]
fn an_unused_share_goes_to_the_others() {
    let slots: Vec<_> = (0..6).map(|_| slot(4096)).collect();
    let subs = vec![
        submitter("alice", 1.0, vec![job("alice", 1024)]),
        submitter("bob", 1.0, (0..10).map(|_| job("bob", 1024)).collect()),
    ];
    let cycle = negotiate(&slots, &subs, &Config::default());
    let count = |s: usize| cycle.matches.iter().filter(|m| m.submitter == s).count();
    assert_eq!((count(0), count(1)), (1, 5));
}

#[test]
fn jobs_that_match_nothing_are_rejected_with_a_reason() {
    let slots = vec![slot(1024)];
    let subs = vec![submitter(
        "alice",
        1.0,
        vec![job("alice", 1 << 20), job("alice", 512)],
    )];
    let cycle = negotiate(&slots, &subs, &Config::default());
    assert_eq!(cycle.matches.len(), 1);
    assert_eq!(cycle.matches[0].job, 1);
    assert_eq!(cycle.rejections.len(), 1);
    assert_eq!(cycle.rejections[0].job, 0);
    assert_eq!(cycle.rejections[0].reason, "no match found");
}

#[test]
fn claimed_slots_are_not_handed_out() {
    let claimed = ad(r#"[ Memory = 99999; State = "Claimed"; Requirements = true; Rank = 0 ]"#);
    let slots = vec![claimed, slot(2048)];
    let cycle = negotiate(
        &slots,
        &[submitter("a", 1.0, vec![job("a", 1024)])],
        &Config::default(),
    );
    assert_eq!(cycle.matches[0].slot, 1);
}

#[test]
fn slot_requirements_are_honoured() {
    let picky = ad(r#"[ Memory = 99999; Requirements = TARGET.Owner == "bob" ]"#);
    let slots = vec![picky, slot(2048)];
    let subs = vec![submitter("alice", 1.0, vec![job("alice", 1024)])];
    let cycle = negotiate(&slots, &subs, &Config::default());
    assert_eq!(cycle.matches[0].slot, 1);
}

#[test]
fn pre_job_rank_comes_before_the_jobs_rank_and_post_job_rank_after() {
    let slots = vec![slot(1024), slot(4096), slot(2048)];
    let subs = vec![submitter("a", 1.0, vec![job("a", 512)])];
    let pre = Config {
        pre_job_rank: Some(parse_expr("-Memory").unwrap()),
        ..Config::default()
    };
    assert_eq!(
        negotiate(&slots, &subs, &pre).matches[0].slot,
        0,
        "PRE_JOB_RANK wins over Rank"
    );
    let flat = ad(r#"[ Owner = "a"; RequestMemory = 1; Requirements = true; Rank = 0 ]"#);
    let subs = vec![submitter("a", 1.0, vec![flat])];
    let post = Config {
        post_job_rank: Some(parse_expr("KFlops").unwrap()),
        ..Config::default()
    };
    assert_eq!(
        negotiate(&slots, &subs, &post).matches[0].slot,
        1,
        "POST_JOB_RANK breaks the tie"
    );
}

fn pslot(cpus: i64, memory: i64) -> Arc<ClassAd> {
    ad(&format!(
        r#"[ Name = "slot1@host"; PartitionableSlot = true; Cpus = {cpus}; Memory = {memory}; Disk = 1000000;
             State = "Unclaimed"; Requirements = TARGET.RequestCpus <= Cpus && TARGET.RequestMemory <= Memory ]"#
    ))
}

fn sized_job(cpus: i64, memory: i64) -> Arc<ClassAd> {
    ad(&format!(
        r#"[ Owner = "a"; RequestCpus = {cpus}; RequestMemory = {memory}; RequestDisk = 100; Requirements = true ]"#
    ))
}

#[test]
fn a_partitionable_slot_is_carved_until_it_runs_out() {
    let jobs: Vec<_> = (0..5).map(|_| sized_job(2, 2048)).collect();
    let cycle = negotiate(
        &[pslot(8, 16384)],
        &[submitter("a", 1.0, jobs)],
        &Config::default(),
    );
    assert_eq!(cycle.matches.len(), 4, "8 cpus hold four 2-cpu jobs");
    let names: Vec<String> = cycle
        .matches
        .iter()
        .map(|m| unparse(m.dynamic_slot.as_ref().unwrap().lookup("Name").unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            "\"slot1_1@host\"",
            "\"slot1_2@host\"",
            "\"slot1_3@host\"",
            "\"slot1_4@host\""
        ]
    );
    let d = cycle.matches[0].dynamic_slot.as_ref().unwrap();
    assert_eq!(unparse(d.lookup("Cpus").unwrap()), "2");
    assert_eq!(unparse(d.lookup("Memory").unwrap()), "2048");
    assert_eq!(cycle.rejections.len(), 1);
}

#[test]
fn carving_follows_memory_as_well_as_cpus() {
    let jobs: Vec<_> = (0..4).map(|_| sized_job(1, 6000)).collect();
    let cycle = negotiate(
        &[pslot(8, 16384)],
        &[submitter("a", 1.0, jobs)],
        &Config::default(),
    );
    assert_eq!(cycle.matches.len(), 2, "16384 MB hold two 6000 MB jobs");
}

fn claimed(rank: &str, current_rank: f64, owner: &str) -> Arc<ClassAd> {
    ad(&format!(
        r#"[ Name = "busy"; Memory = 8192; State = "Claimed"; RemoteOwner = "{owner}"; CurrentRank = {current_rank};
             Requirements = true; Rank = {rank} ]"#
    ))
}

#[test]
fn a_slot_whose_rank_prefers_the_new_job_is_preempted() {
    let slots = vec![claimed(r#"TARGET.Owner == "vip""#, 0.0, "someone")];
    let vip = submitter("vip", 1000.0, vec![job("vip", 1024)]);
    let cycle = negotiate(&slots, &[vip], &Config::default());
    assert_eq!(cycle.matches.len(), 1);
    assert_eq!(cycle.matches[0].preempts, Some(Preemption::Rank));
    let plain = submitter("joe", 1.0, vec![job("joe", 1024)]);
    assert!(
        negotiate(&slots, &[plain], &Config::default())
            .matches
            .is_empty(),
        "equal rank: no preemption"
    );
}

#[test]
fn better_priority_preempts_only_when_preemption_requirements_allow() {
    let slots = vec![claimed("0", 0.0, "hog")];
    let light = || vec![submitter("light", 500.0, vec![job("light", 1024)])];
    let mut config = Config::default();
    config.priorities.insert("hog".into(), 5000.0);
    assert!(
        negotiate(&slots, &light(), &config).matches.is_empty(),
        "no PREEMPTION_REQUIREMENTS"
    );
    config.preemption_requirements =
        Some(parse_expr("RemoteUserPrio > SubmitterUserPrio * 1.2").unwrap());
    let cycle = negotiate(&slots, &light(), &config);
    assert_eq!(cycle.matches[0].preempts, Some(Preemption::Priority));
    config.priorities.insert("hog".into(), 550.0);
    assert!(
        negotiate(&slots, &light(), &config).matches.is_empty(),
        "not better by 20%"
    );
}

#[test]
fn preemption_requirements_are_the_whole_rule_but_never_against_oneself() {
    // As HTCondor's matchmaker: a worse priority preempts when the expression says so
    // (a group under its quota taking from one over its own, say), but a submitter's
    // own slot (by accounting name, the domain aside) is never preempted for priority.
    let slots = vec![claimed("0", 0.0, "group_a.hog")];
    let config = Config {
        preemption_requirements: Some(parse_expr("true").unwrap()),
        priorities: HashMap::from([("group_a.hog".to_string(), 1.0)]),
        ..Config::default()
    };
    let worse = vec![submitter(
        "group_b.late@pool",
        9000.0,
        vec![job("late", 1024)],
    )];
    let cycle = negotiate(&slots, &worse, &config);
    assert_eq!(cycle.matches[0].preempts, Some(Preemption::Priority));
    let own = vec![submitter("group_a.hog@pool", 1.0, vec![job("hog", 1024)])];
    assert!(negotiate(&slots, &own, &config).matches.is_empty());
}

#[test]
fn consider_preemption_false_leaves_claimed_slots_alone() {
    let slots = vec![claimed(r#"TARGET.Owner == "vip""#, 0.0, "someone")];
    let config = Config {
        consider_preemption: false,
        ..Config::default()
    };
    let cycle = negotiate(
        &slots,
        &[submitter("vip", 1.0, vec![job("vip", 1024)])],
        &config,
    );
    assert!(cycle.matches.is_empty());
    assert_eq!(cycle.pairs_evaluated, 0);
}

#[test]
fn an_idle_slot_is_preferred_to_preempting_an_equal_one() {
    let busy = claimed(r#"TARGET.Owner == "vip""#, 0.0, "someone");
    let idle = ad(r#"[ Name = "idle"; Memory = 8192; State = "Unclaimed"; Requirements = true ]"#);
    let cycle = negotiate(
        &[busy, idle],
        &[submitter("vip", 1.0, vec![job("vip", 1024)])],
        &Config::default(),
    );
    assert_eq!(cycle.matches[0].slot, 1);
    assert_eq!(cycle.matches[0].preempts, None);
}

#[test]
fn a_large_pool_scanned_in_parallel_gives_the_same_order() {
    let slots: Vec<_> = (1..=6000).map(slot).collect();
    let jobs: Vec<_> = (0..3).map(|_| job("alice", 10)).collect();
    let subs = [submitter("alice", 1.0, jobs)];
    let exhaustive = Config {
        share_orderings: false,
        ..Config::default()
    };
    let cycle = negotiate(&slots, &subs, &exhaustive);
    assert_eq!(cycle.pairs_evaluated, 6000);
    let got: Vec<usize> = cycle.matches.iter().map(|m| m.slot).collect();
    assert_eq!(got, vec![5999, 5998, 5997]);
    // The shared ordering finds the same three slots, evaluating only them.
    let cycle = negotiate(&slots, &subs, &Config::default());
    assert_eq!(cycle.pairs_evaluated, 3);
    let got: Vec<usize> = cycle.matches.iter().map(|m| m.slot).collect();
    assert_eq!(got, vec![5999, 5998, 5997]);
}

#[test]
fn rankings_no_cluster_reuses_stop_being_built() {
    let slots: Vec<_> = (1..=100).map(|k| slot(100 * k)).collect();
    // Twelve clusters, each ranking the pool its own way (Rank reads its own K).
    let jobs: Vec<_> = (0..12)
        .map(|k| {
            ad(&format!(
                r#"[ Owner = "alice"; RequestMemory = 10; K = {k}; Requirements = TARGET.Memory >= RequestMemory; Rank = TARGET.Memory + MY.K ]"#
            ))
        })
        .collect();
    let cycle = negotiate(&slots, &[submitter("alice", 1.0, jobs)], &Config::default());
    assert_eq!(cycle.clusters, 12);
    let got: Vec<usize> = cycle.matches.iter().map(|m| m.slot).collect();
    assert_eq!(got, (88..100).rev().collect::<Vec<_>>());
    // The first eight each build an ordering and take its top slot (one pair each);
    // none is reused, so the rest search the free slots themselves: 92, 91, 90, 89.
    assert_eq!(cycle.pairs_evaluated, 8 + 92 + 91 + 90 + 89);
}
