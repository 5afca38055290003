//! Autoclusters are sound: every job of a cluster matches every slot exactly as the
//! cluster's first job does, and ranks it the same, whatever the pool's policies read.

// A test harness: failing loudly is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::case;
use condorx_matchmaking::deps::PoolReads;
use condorx_matchmaking::{cluster_jobs, PairEval};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn jobs_of_a_cluster_are_alike_to_every_slot(seed in any::<u64>()) {
        let (slots, submitters, _) = case(seed);
        let reads = PoolReads::of(slots.iter().map(|s| &**s));
        let mut pair = PairEval::new();
        for sub in &submitters {
            for cluster in cluster_jobs(&reads, &sub.jobs) {
                let first = &sub.jobs[cluster.jobs[0]];
                for &j in &cluster.jobs[1..] {
                    let job = &sub.jobs[j];
                    for slot in &slots {
                        prop_assert_eq!(pair.symmetric(first, slot), pair.symmetric(job, slot));
                        prop_assert_eq!(pair.rank(first, slot), pair.rank(job, slot));
                        prop_assert_eq!(pair.rank(slot, first), pair.rank(slot, job));
                    }
                }
            }
        }
    }
}
