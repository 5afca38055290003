//! Autoclusters: jobs alike in every attribute a match can read are matched once.
//!
//! A job's significant attributes are its Requirements and Rank, what those read of the
//! job itself (RequestMemory, ...), and what the slots' Requirements and Rank read of their
//! TARGET (Owner, JobPrio, ...). Jobs whose significant attributes are written the same are
//! indistinguishable to every slot, so one of them stands for all.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use condorx_classad::check::references;
use condorx_classad::{unparse, ClassAd};

/// Jobs that match alike, in the order their first member was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// The significant attributes' expressions, as text: what makes the jobs alike.
    pub key: String,
    /// Indexes of the member jobs, in the order given.
    pub jobs: Vec<usize>,
}

/// A reference as an attribute of the other ad: `TARGET.x` and `other.x` are `x`; an
/// unqualified `x` the ad lacks falls through to the other ad; `x.y` reads `x`.
fn other_side_name(reference: &str) -> Option<String> {
    let mut parts = reference.splitn(2, '.');
    let first = parts.next()?;
    match parts.next() {
        Some(rest)
            if first.eq_ignore_ascii_case("target") || first.eq_ignore_ascii_case("other") =>
        {
            Some(rest.split('.').next().unwrap_or(rest).to_ascii_lowercase())
        }
        Some(_) if first.eq_ignore_ascii_case("my") => None,
        _ => Some(first.to_ascii_lowercase()),
    }
}

/// The attributes `ad`'s Requirements and Rank read of the other ad, lower-cased.
fn read_of_other(ad: &ClassAd, out: &mut BTreeSet<String>) {
    for attr in ["Requirements", "Rank"] {
        if let Some(e) = ad.lookup(attr) {
            out.extend(
                references(e, ad)
                    .external
                    .iter()
                    .filter_map(|r| other_side_name(r)),
            );
        }
    }
}

/// The attributes `job`'s own Requirements and Rank read of the job, lower-cased.
fn read_of_self(job: &ClassAd, out: &mut BTreeSet<String>) {
    for attr in ["Requirements", "Rank"] {
        if let Some(e) = job.lookup(attr) {
            out.extend(
                references(e, job)
                    .internal
                    .iter()
                    .map(|n| n.to_ascii_lowercase()),
            );
        }
    }
}

/// Every job attribute a match between these slots and jobs can read, sorted, lower-cased.
pub fn significant_attributes(slots: &[Arc<ClassAd>], jobs: &[Arc<ClassAd>]) -> Vec<String> {
    let mut names: BTreeSet<String> = ["requirements", "rank"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    // Slots of a pool share a handful of policies: read each distinct one once.
    let mut seen_policies: BTreeSet<String> = BTreeSet::new();
    for slot in slots {
        let policy: String = ["Requirements", "Rank", "START"]
            .iter()
            .map(|a| slot.lookup(a).map(unparse).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\0");
        if seen_policies.insert(policy) {
            read_of_other(slot, &mut names);
        }
    }
    for job in jobs {
        read_of_self(job, &mut names);
    }
    names.into_iter().collect()
}

/// The cluster key of `job`: the text of each significant attribute (or a mark for none).
fn key_of(job: &ClassAd, significant: &[String]) -> String {
    let mut key = String::new();
    for name in significant {
        match job.lookup(name) {
            Some(e) => key.push_str(&unparse(e)),
            None => key.push('\u{1}'),
        }
        key.push('\0');
    }
    key
}

/// Group jobs by their significant attributes.
pub fn cluster_jobs(jobs: &[Arc<ClassAd>], significant: &[String]) -> Vec<Cluster> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut clusters: Vec<Cluster> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let key = key_of(job, significant);
        match index.get(&key) {
            Some(&c) => {
                if let Some(cluster) = clusters.get_mut(c) {
                    cluster.jobs.push(i);
                }
            }
            None => {
                index.insert(key.clone(), clusters.len());
                clusters.push(Cluster { key, jobs: vec![i] });
            }
        }
    }
    clusters
}

#[cfg(test)]
mod tests {
    use super::*;
    use condorx_classad::parse_ad;

    fn ads(texts: &[&str]) -> Vec<Arc<ClassAd>> {
        texts
            .iter()
            .map(|t| Arc::new(parse_ad(t).unwrap()))
            .collect()
    }

    #[test]
    fn significant_attributes_come_from_both_sides() {
        let slots = ads(&[
            r#"[ Memory = 4096; START = TARGET.Owner != "mallory" && JobPrio > 0; Requirements = START; Rank = TARGET.Department == "physics" ]"#,
        ]);
        let jobs = ads(&[
            r#"[ RequestMemory = 1; Requirements = TARGET.Memory >= RequestMemory; Rank = 0 ]"#,
        ]);
        let sig = significant_attributes(&slots, &jobs);
        assert_eq!(
            sig,
            vec![
                "department",
                "jobprio",
                "owner",
                "rank",
                "requestmemory",
                "requirements"
            ]
        );
    }

    #[test]
    fn jobs_alike_in_significant_attributes_share_a_cluster() {
        let jobs = ads(&[
            r#"[ ProcId = 0; Owner = "a"; RequestMemory = 1; Requirements = true ]"#,
            r#"[ ProcId = 1; Owner = "a"; RequestMemory = 1; Requirements = true ]"#,
            r#"[ ProcId = 2; Owner = "a"; RequestMemory = 2; Requirements = true ]"#,
            r#"[ ProcId = 3; Owner = "b"; RequestMemory = 1; Requirements = true ]"#,
        ]);
        let sig: Vec<String> = ["owner", "requestmemory", "requirements"]
            .map(String::from)
            .to_vec();
        let clusters = cluster_jobs(&jobs, &sig);
        let members: Vec<Vec<usize>> = clusters.into_iter().map(|c| c.jobs).collect();
        assert_eq!(members, vec![vec![0, 1], vec![2], vec![3]]);
    }
}
