//! Behaviour of one negotiation cycle: Rank, autoclusters, fair-share slices, rejections.

// A test harness: failing loudly is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;

use condorx_classad::{parse_ad, parse_expr, ClassAd};
use condorx_matchmaking::{negotiate, Config, Submitter};

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
        cycle.pairs_evaluated, 10,
        "five alike jobs, one pass over ten slots"
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
    let claimed = ad(r#"[ Memory = 99999; State = "Claimed"; Requirements = true ]"#);
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
        post_job_rank: None,
    };
    assert_eq!(
        negotiate(&slots, &subs, &pre).matches[0].slot,
        0,
        "PRE_JOB_RANK wins over Rank"
    );
    let flat = ad(r#"[ Owner = "a"; RequestMemory = 1; Requirements = true; Rank = 0 ]"#);
    let subs = vec![submitter("a", 1.0, vec![flat])];
    let post = Config {
        pre_job_rank: None,
        post_job_rank: Some(parse_expr("KFlops").unwrap()),
    };
    assert_eq!(
        negotiate(&slots, &subs, &post).matches[0].slot,
        1,
        "POST_JOB_RANK breaks the tie"
    );
}
