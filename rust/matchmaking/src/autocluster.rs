//! Autoclusters: jobs alike in every attribute a match can read are matched once.
//!
//! A job's significant attributes are its Requirements and Rank, what the slots'
//! Requirements and Rank read of their TARGET (Owner, JobPrio, ...), and, followed
//! through, whatever those attributes' own expressions read, on either side. Jobs that
//! write every significant attribute the same are indistinguishable to every slot, so
//! one of them stands for all.
//!
//! The attributes are followed job by job, and a job's cluster key is made on the way
//! from what it writes for each: two jobs that agree on every attribute one of them
//! reads read the same attributes, so they agree on all a match can see. (HTCondor keys
//! every job by one pool-wide list; keying by each job's own reads never splits what
//! that list would join, and joins jobs that differ only where neither is read.)
//! A million jobs share a handful of Requirements expressions, recognised by structural
//! hash confirmed by comparison (at once, when parsing shared the tree), never printed.

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::classad::Shared;
use condorx_classad::fingerprint::expr_hash;
use condorx_classad::{ClassAd, Expr};

use crate::by_parent::{ByParent, Looked};
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
    names: Vec<Arc<str>>,
    hashes: Vec<u64>, // each name's case-folded hash, as a proc's own names carry it
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        let lower = name.to_ascii_lowercase();
        if let Some(&i) = self.ids.get(&lower) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(Arc::from(lower.as_str()));
        self.hashes.push(condorx_classad::name::ci_hash(&lower));
        self.ids.insert(lower, i);
        i
    }
}

/// What one job expression refers to, by side and name number.
type Refs = Arc<Vec<(Side, u32)>>;

/// An expression remembered: shared among ads, or a copy.
enum Kept {
    Shared(Arc<Shared>),
    Own(Expr),
}

impl Kept {
    fn expr(&self) -> &Expr {
        match self {
            Kept::Shared(s) => &s.expr,
            Kept::Own(e) => e,
        }
    }
}

/// The closure of job attributes a match can read, computed job by job with the
/// expressions' references and the slots' reads remembered.
struct Reader<'a> {
    pool: &'a PoolReads,
    names: Names,
    /// Expressions seen, by hash: the expression and its references (`None`: hidden).
    refs: HashMap<u64, Vec<(Kept, Option<Refs>)>>,
    /// Job attributes each slot attribute reads (`None`: hidden).
    slot_reads: HashMap<u32, Option<Vec<u32>>>,
}

impl Reader<'_> {
    /// The references of `job`'s expression `e` for attribute `name`.
    fn refs(&mut self, job: &ClassAd, name: &str, e: &Expr, h: u64) -> Option<Refs> {
        let known = self
            .refs
            .get(&h)
            .and_then(|alike| alike.iter().find(|(x, _)| x.expr().same_as(e)));
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
        // Keep the shared tree itself when there is one: the next job's is the same
        // tree, recognised by address.
        let kept = match job.shared(name) {
            Some(s) => Kept::Shared(s.clone()),
            None => Kept::Own(e.clone()),
        };
        self.refs.entry(h).or_default().push((kept, refs.clone()));
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

    /// Follow `job`'s expressions from the names in `todo`: each attribute it reads, with
    /// the hash of what the job writes for it (`ABSENT` when nothing), sorted; `None`
    /// when some read is hidden from analysis. Every name looked up in the job goes
    /// into `looked`.
    fn follow<'j>(
        &mut self,
        job: &'j ClassAd,
        mut todo: Vec<u32>,
        looked: &mut Looked,
    ) -> Option<Vec<Read<'j>>> {
        let mut seen: Vec<Read<'j>> = Vec::with_capacity(todo.len() + 4);
        while let Some(id) = todo.pop() {
            if seen.iter().any(|(s, _, _)| *s == id) {
                continue;
            }
            let name = self.names.names.get(id as usize)?.clone();
            looked.insert(*self.names.hashes.get(id as usize)?);
            let (e, hash) = match job.lookup_hashed(&name) {
                None => (None, ABSENT),
                Some((e, h)) => (Some(e), h),
            };
            seen.push((id, hash, e));
            let e = match e {
                None | Some(Expr::Lit(_)) => continue,
                Some(e) => e,
            };
            let refs = self.refs(job, &name, e, hash)?;
            for &(side, n) in refs.iter() {
                let own = match side {
                    Side::Me => true,
                    Side::Other => false,
                    Side::Either => {
                        looked.insert(*self.names.hashes.get(n as usize)?);
                        self.names
                            .names
                            .get(n as usize)
                            .is_some_and(|s| job.contains(s))
                    }
                };
                if own {
                    todo.push(n);
                } else {
                    todo.extend(self.slot_reads(n)?);
                }
            }
        }
        seen.sort_unstable_by_key(|(id, _, _)| *id);
        Some(seen)
    }
}

/// An attribute a job reads: its number, the hash of what the job writes for it, and
/// that expression (none when the job lacks it).
type Read<'j> = (u32, u64, Option<&'j Expr>);

/// The hash standing for an attribute the job does not have.
const ABSENT: u64 = 0x5bd1_e995;

/// What one cluster's jobs all write for the attributes they read.
struct Signature<'j> {
    reads: Vec<Read<'j>>,
}

/// Group jobs by what they write for every attribute a match with the pool (as `pool`
/// describes its slots) can read of them.
pub fn cluster_jobs(pool: &PoolReads, jobs: &[Arc<ClassAd>]) -> Vec<Cluster> {
    cluster_jobs_apart(pool, jobs, &[])
}

/// `cluster_jobs`, with jobs that write any of `apart` differently kept apart too (a
/// schedd groups each owner's jobs apart, as its negotiator matches them).
pub fn cluster_jobs_apart(pool: &PoolReads, jobs: &[Arc<ClassAd>], apart: &[&str]) -> Vec<Cluster> {
    let mut r = Reader {
        pool,
        names: Names::default(),
        refs: HashMap::new(),
        slot_reads: HashMap::new(),
    };
    let start = r.start().map(|mut s| {
        s.extend(apart.iter().map(|n| r.names.id(n)));
        s.sort_unstable();
        s.dedup();
        s
    });
    let mut index: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut clusters: Vec<(Signature, Cluster)> = Vec::new();
    // A cluster's procs mostly read alike: the first of each kind is followed, the
    // others found by what they set of their own (`by_parent`).
    let mut known: ByParent<usize> = ByParent::default();
    for (i, job) in jobs.iter().enumerate() {
        if let Some((_, cluster)) = known.get(job).and_then(|c| clusters.get_mut(c)) {
            cluster.jobs.push(i);
            continue;
        }
        // A read hidden from analysis (eval()): the job is alike only to jobs written
        // the same in every attribute.
        let mut looked = Looked::new();
        let followed = start
            .as_ref()
            .and_then(|start| r.follow(job, start.clone(), &mut looked));
        let kept = followed.is_some();
        let reads = followed.unwrap_or_else(|| r.everything(job));
        let key = reads.iter().fold(reads.len() as u64, |h, (id, e, _)| {
            (h.rotate_left(7) ^ e ^ u64::from(*id)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        });
        let candidates = index.entry(key).or_default();
        let found = candidates.iter().copied().find(|&c| {
            clusters
                .get(c)
                .is_some_and(|(sig, _)| alike(&sig.reads, &reads))
        });
        let c = match found.zip(found.and_then(|c| clusters.get_mut(c))) {
            Some((c, (_, cluster))) => {
                cluster.jobs.push(i);
                c
            }
            None => {
                candidates.push(clusters.len());
                clusters.push((Signature { reads }, Cluster { jobs: vec![i] }));
                clusters.len() - 1
            }
        };
        if kept {
            known.put(job, &looked, c);
        }
    }
    clusters.into_iter().map(|(_, c)| c).collect()
}

impl Reader<'_> {
    /// Where every job's reads start: its Requirements and Rank, and what the slots'
    /// Requirements and Rank read of it; `None` when the slots' reads are hidden.
    fn start(&mut self) -> Option<Vec<u32>> {
        // A match reads Requirements and Rank, and carving a dynamic slot out of a
        // partitionable one reads the job's requests: jobs asking for other sizes are
        // never alike (HTCondor's autoclusters count them significant too).
        let mut start: Vec<u32> = [
            "requirements",
            "rank",
            "requestcpus",
            "requestmemory",
            "requestdisk",
        ]
        .iter()
        .map(|n| self.names.id(n))
        .collect();
        for slot_attr in ["requirements", "rank"] {
            let id = self.names.id(slot_attr);
            start.extend(self.slot_reads(id)?);
        }
        start.sort_unstable();
        start.dedup();
        Some(start)
    }

    /// Every attribute of `job`, as reads.
    fn everything<'j>(&mut self, job: &'j ClassAd) -> Vec<Read<'j>> {
        let mut reads: Vec<Read<'j>> = job
            .iter()
            .map(|(n, e)| (self.names.id(n.as_str()), expr_hash(e), Some(e)))
            .collect();
        reads.sort_unstable_by_key(|(id, _, _)| *id);
        reads.dedup_by_key(|(id, _, _)| *id);
        reads
    }
}

/// Do two jobs read the same attributes and write each the same?
fn alike(a: &[Read], b: &[Read]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((x, hx, p), (y, hy, q))| {
            x == y
                && hx == hy
                && match (p, q) {
                    (None, None) => true,
                    (Some(p), Some(q)) => p.same_as(q),
                    _ => false,
                }
        })
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

    fn members(pool: &PoolReads, jobs: &[Arc<ClassAd>]) -> Vec<Vec<usize>> {
        cluster_jobs(pool, jobs)
            .into_iter()
            .map(|c| c.jobs)
            .collect()
    }

    #[test]
    fn what_either_side_reads_of_the_job_tells_clusters_apart() {
        let slots = ads(&[
            r#"[ Memory = 4096; START = TARGET.Owner != "mallory" && JobPrio > 0; Requirements = START; Rank = TARGET.Department == "physics" ]"#,
        ]);
        let job = |extra: &str| {
            format!(
                r#"[ RequestMemory = 1; Owner = "a"; JobPrio = 1; Department = "cs"; ProcId = 0; Requirements = TARGET.Memory >= RequestMemory; Rank = 0; {extra} ]"#
            )
        };
        let jobs = ads(&[
            &job(""),
            &job("ProcId = 1"),
            &job("Department = \"physics\""),
            &job("JobPrio = 2"),
            &job("RequestMemory = 2"),
            &job("Owner = \"b\""),
            &job("Rank = 1"),
            &job("Unread = 5"),
        ]);
        assert_eq!(
            members(&pool(&slots), &jobs),
            vec![vec![0, 1, 7], vec![2], vec![3], vec![4], vec![5], vec![6]]
        );
    }

    #[test]
    fn reads_are_followed_through_both_ads() {
        // The job's Rank reads the slot's Bonus, which reads the job's Group; the job's
        // Requirements read its own Need, which reads its own Base.
        let slots = ads(&[r#"[ Bonus = TARGET.Group == "x"; Requirements = true ]"#]);
        let job = |extra: &str| {
            format!(
                r#"[ Group = "x"; Base = 1; Need = Base * 2; Other = 1; Requirements = TARGET.Memory > Need; Rank = TARGET.Bonus; {extra} ]"#
            )
        };
        let jobs = ads(&[
            &job(""),
            &job("Group = \"y\""),
            &job("Base = 2"),
            &job("Other = 2"),
        ]);
        assert_eq!(
            members(&pool(&slots), &jobs),
            vec![vec![0, 3], vec![1], vec![2]]
        );
    }

    #[test]
    fn a_hidden_read_clusters_only_jobs_written_alike() {
        let slots = ads(&[r#"[ Requirements = eval("TARGET.X > 1") ]"#]);
        let jobs = ads(&[
            r#"[ X = 1; Requirements = true ]"#,
            r#"[ X = 1; Requirements = true ]"#,
            r#"[ X = 2; Requirements = true ]"#,
        ]);
        assert_eq!(members(&pool(&slots), &jobs), vec![vec![0, 1], vec![2]]);
    }

    #[test]
    fn jobs_alike_in_significant_attributes_share_a_cluster() {
        let slots = ads(&[r#"[ Requirements = TARGET.Owner != "x" ]"#]);
        let jobs = ads(&[
            r#"[ ProcId = 0; Owner = "a"; RequestMemory = 1; Requirements = MY.RequestMemory > 0 ]"#,
            r#"[ ProcId = 1; Owner = "a"; RequestMemory = 1; Requirements = (MY.RequestMemory > 0) ]"#,
            r#"[ ProcId = 2; Owner = "a"; RequestMemory = 2; Requirements = MY.RequestMemory > 0 ]"#,
            r#"[ ProcId = 3; Owner = "b"; RequestMemory = 1; Requirements = MY.RequestMemory > 0 ]"#,
            r#"[ ProcId = 4; Owner = "a"; Requirements = MY.RequestMemory > 0 ]"#,
        ]);
        assert_eq!(
            members(&pool(&slots), &jobs),
            vec![vec![0, 1], vec![2], vec![3], vec![4]]
        );
    }
}
