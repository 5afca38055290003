//! Autoclusters: jobs alike in every attribute a match can read are matched once.
//!
//! A job's significant attributes are its Requirements and Rank, what the slots'
//! Requirements and Rank read of their TARGET (Owner, JobPrio, ...), and, followed
//! through, whatever those attributes' own expressions read, on either side. Jobs that
//! write every significant attribute the same are indistinguishable to every slot, so
//! one of them stands for all.
//!
//! A million jobs share a handful of Requirements expressions, so the expressions are
//! recognised by structural hash (confirmed by comparison), never printed.

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::fingerprint::expr_hash;
use condorx_classad::{ClassAd, Expr};

use crate::deps::{refs_of, PoolReads, Side};

/// Jobs that match alike, in the order their first member was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// Indexes of the member jobs, in the order given.
    pub jobs: Vec<usize>,
}

/// Attribute names numbered, lower-cased: the closure below works on numbers.
#[derive(Default)]
struct Names {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        let lower = name.to_ascii_lowercase();
        if let Some(&i) = self.ids.get(&lower) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(lower.clone());
        self.ids.insert(lower, i);
        i
    }
}

/// What one job expression refers to, by side and name number.
type Refs = Arc<Vec<(Side, u32)>>;

/// The closure of job attributes a match can read, computed job by job with the
/// expressions' references and the slots' reads remembered.
struct Reader<'a> {
    pool: &'a PoolReads,
    names: Names,
    /// Expressions seen, by hash: the expression and its references (`None`: hidden).
    refs: HashMap<u64, Vec<(Expr, Option<Refs>)>>,
    /// Job attributes each slot attribute reads (`None`: hidden).
    slot_reads: HashMap<u32, Option<Vec<u32>>>,
    /// Significant so far, by name number.
    significant: Vec<bool>,
    /// Some read is hidden from analysis: every attribute is significant.
    opaque: bool,
}

impl Reader<'_> {
    fn mark(&mut self, id: u32) -> bool {
        let i = id as usize;
        if self.significant.len() <= i {
            self.significant.resize(i + 1, false);
        }
        match self.significant.get_mut(i) {
            Some(b) if !*b => {
                *b = true;
                true
            }
            _ => false,
        }
    }

    fn refs(&mut self, e: &Expr) -> Option<Refs> {
        let h = expr_hash(e);
        let known = self
            .refs
            .get(&h)
            .and_then(|alike| alike.iter().find(|(x, _)| x.same_as(e)));
        if let Some((_, r)) = known {
            return r.clone();
        }
        let refs: Option<Refs> = refs_of(e).map(|rs| {
            Arc::new(
                rs.iter()
                    .map(|(side, n)| (*side, self.names.id(n)))
                    .collect(),
            )
        });
        self.refs
            .entry(h)
            .or_default()
            .push((e.clone(), refs.clone()));
        refs
    }

    fn slot_reads(&mut self, slot_attr: u32) -> Option<Vec<u32>> {
        if let Some(r) = self.slot_reads.get(&slot_attr) {
            return r.clone();
        }
        let name = self.names.names.get(slot_attr as usize)?.clone();
        let r = self
            .pool
            .job_names_read_by(&name)
            .map(|ns| ns.iter().map(|n| self.names.id(n)).collect::<Vec<u32>>());
        self.slot_reads.insert(slot_attr, r.clone());
        r
    }

    /// Follow `job`'s expressions from the names in `todo`, marking what they read.
    fn follow(&mut self, job: &ClassAd, mut todo: Vec<u32>) {
        let mut seen: Vec<u32> = Vec::new();
        while let Some(id) = todo.pop() {
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            self.mark(id);
            let Some(name) = self.names.names.get(id as usize) else {
                continue;
            };
            let e = match job.lookup(name) {
                None | Some(Expr::Lit(_)) => continue,
                Some(e) => e,
            };
            let Some(refs) = self.refs(e) else {
                self.opaque = true;
                return;
            };
            for &(side, n) in refs.iter() {
                let own = match side {
                    Side::Me => true,
                    Side::Other => false,
                    Side::Either => self
                        .names
                        .names
                        .get(n as usize)
                        .is_some_and(|s| job.contains(s)),
                };
                if own {
                    todo.push(n);
                    continue;
                }
                match self.slot_reads(n) {
                    Some(more) => todo.extend(more),
                    None => {
                        self.opaque = true;
                        return;
                    }
                }
            }
        }
    }
}

/// Every job attribute a match between the pool (as `pool` describes its slots) and
/// these jobs can read, sorted, lower-cased.
pub fn significant_attributes<'a>(
    pool: &PoolReads,
    jobs: impl IntoIterator<Item = &'a Arc<ClassAd>> + Clone,
) -> Vec<String> {
    let mut r = Reader {
        pool,
        names: Names::default(),
        refs: HashMap::new(),
        slot_reads: HashMap::new(),
        significant: Vec::new(),
        opaque: false,
    };
    let mut start: Vec<u32> = vec![r.names.id("requirements"), r.names.id("rank")];
    for slot_attr in ["requirements", "rank"] {
        let id = r.names.id(slot_attr);
        match r.slot_reads(id) {
            Some(more) => start.extend(more),
            None => r.opaque = true,
        }
    }
    for job in jobs.clone() {
        if r.opaque {
            break;
        }
        r.follow(job, start.clone());
    }
    let mut names: Vec<String> = if r.opaque {
        // Something reads attributes chosen at run time: any attribute may matter.
        jobs.into_iter()
            .flat_map(|j| j.names().map(str::to_ascii_lowercase).collect::<Vec<_>>())
            .chain(["requirements".to_string(), "rank".to_string()])
            .collect()
    } else {
        r.names
            .names
            .iter()
            .zip(&r.significant)
            .filter(|(_, &s)| s)
            .map(|(n, _)| n.clone())
            .collect()
    };
    names.sort();
    names.dedup();
    names
}

/// The hash of `job`'s significant attributes (absent ones included).
fn key_of(job: &ClassAd, significant: &[String]) -> u64 {
    let mut h: u64 = 0;
    for name in significant {
        let e = job.lookup(name).map_or(0x5bd1_e995, expr_hash);
        h = (h.rotate_left(7) ^ e).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    h
}

/// Do two jobs write every significant attribute the same (or both lack it)?
fn alike(a: &ClassAd, b: &ClassAd, significant: &[String]) -> bool {
    significant
        .iter()
        .all(|n| match (a.lookup(n), b.lookup(n)) {
            (None, None) => true,
            (Some(x), Some(y)) => x.same_as(y),
            _ => false,
        })
}

/// Group jobs by their significant attributes.
pub fn cluster_jobs(jobs: &[Arc<ClassAd>], significant: &[String]) -> Vec<Cluster> {
    let mut index: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut clusters: Vec<Cluster> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let candidates = index.entry(key_of(job, significant)).or_default();
        let found = candidates.iter().copied().find(|&c| {
            clusters
                .get(c)
                .and_then(|cl| cl.jobs.first())
                .and_then(|&first| jobs.get(first))
                .is_some_and(|rep| alike(rep, job, significant))
        });
        match found.and_then(|c| clusters.get_mut(c)) {
            Some(cluster) => cluster.jobs.push(i),
            None => {
                candidates.push(clusters.len());
                clusters.push(Cluster { jobs: vec![i] });
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

    fn pool(slots: &[Arc<ClassAd>]) -> PoolReads {
        PoolReads::of(slots.iter().map(|s| &**s))
    }

    #[test]
    fn significant_attributes_come_from_both_sides() {
        let slots = ads(&[
            r#"[ Memory = 4096; START = TARGET.Owner != "mallory" && JobPrio > 0; Requirements = START; Rank = TARGET.Department == "physics" ]"#,
        ]);
        let jobs = ads(&[
            r#"[ RequestMemory = 1; Requirements = TARGET.Memory >= RequestMemory; Rank = 0 ]"#,
        ]);
        let sig = significant_attributes(&pool(&slots), &jobs);
        assert_eq!(
            sig,
            vec![
                "department",
                "jobprio",
                "owner",
                "rank",
                "requestmemory",
                "requirements",
                "start",
            ]
        );
    }

    #[test]
    fn reads_are_followed_through_both_ads() {
        // The job's Rank reads the slot's Bonus, which reads the job's Group; the job's
        // Requirements read its own Need, which reads its own Base.
        let slots = ads(&[r#"[ Bonus = TARGET.Group == "x"; Requirements = true ]"#]);
        let jobs = ads(&[
            r#"[ Group = "x"; Base = 1; Need = Base * 2; Requirements = TARGET.Memory > Need; Rank = TARGET.Bonus ]"#,
        ]);
        let sig = significant_attributes(&pool(&slots), &jobs);
        assert_eq!(sig, vec!["base", "group", "need", "rank", "requirements"]);
    }

    #[test]
    fn jobs_alike_in_significant_attributes_share_a_cluster() {
        let jobs = ads(&[
            r#"[ ProcId = 0; Owner = "a"; RequestMemory = 1; Requirements = true ]"#,
            r#"[ ProcId = 1; Owner = "a"; RequestMemory = 1; Requirements = (true) ]"#,
            r#"[ ProcId = 2; Owner = "a"; RequestMemory = 2; Requirements = true ]"#,
            r#"[ ProcId = 3; Owner = "b"; RequestMemory = 1; Requirements = true ]"#,
            r#"[ ProcId = 4; Owner = "a"; Requirements = true ]"#,
        ]);
        let sig: Vec<String> = ["owner", "requestmemory", "requirements"]
            .map(String::from)
            .to_vec();
        let clusters = cluster_jobs(&jobs, &sig);
        let members: Vec<Vec<usize>> = clusters.into_iter().map(|c| c.jobs).collect();
        assert_eq!(members, vec![vec![0, 1], vec![2], vec![3], vec![4]]);
    }
}
