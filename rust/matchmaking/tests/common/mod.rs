//! Random pools for property tests: claimed and partitionable slots, START and RANK
//! policies that read the job, slot attributes written as expressions, job Ranks that
//! read job attributes directly and through the slot, and every negotiator rank knob.

// A test harness: failing loudly is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    dead_code
)]

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::{parse_ad, parse_expr, ClassAd};
use condorx_matchmaking::{Config, Submitter};

/// A small deterministic generator: the case is its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() as usize) % items.len()]
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const STARTS: &[&str] = &[
    "true",
    "KeyboardIdle > 900",
    "TARGET.Owner =!= \"u1\"",
    "TARGET.RequestMemory <= MY.Memory",
    "TARGET.Prio > 2 || Owner == \"u0\"",
];
const SLOT_RANKS: &[&str] = &[
    "0",
    "TARGET.Owner == \"u2\"",
    "TARGET.RequestMemory",
    "TARGET.Prio",
];
const JOB_RANKS: &[&str] = &[
    "0",
    "TARGET.Memory",
    "TARGET.KFlops / 1000",
    "TARGET.Memory - MY.RequestMemory",
    "TARGET.Bonus",
    "TARGET.Memory > 4000",
    "Weight * TARGET.Cpus",
];
const REQUIREMENTS: &[&str] = &[
    "TARGET.Memory >= MY.RequestMemory",
    "TARGET.Memory >= RequestMemory && TARGET.Cpus >= RequestCpus",
    "true",
    "TARGET.Arch == \"X86_64\"",
    "(TARGET.Arch == \"X86_64\") && TARGET.KFlops >= 2000 && TARGET.Memory >= RequestMemory",
    "TARGET.Bonus > 1 && TARGET.Cpus >= RequestCpus",
    "regexp(\"slot1\", TARGET.Name) && TARGET.Arch =!= \"aarch64\"",
    "TARGET.KFlops && TARGET.CurrentRank - 1",
];

pub fn slot_ad(rng: &mut Rng, i: usize) -> Arc<ClassAd> {
    let memory = [1024, 2048, 4096, 8192][rng.below(4) as usize];
    let cpus = 1 + rng.below(4);
    let arch = rng.pick(&["X86_64", "aarch64"]);
    let state = if rng.below(3) == 0 {
        "Claimed"
    } else {
        "Unclaimed"
    };
    let owner = rng.pick(&["u0", "u1", "u2", "u3"]);
    let bonus = rng.pick(&["1", "2", "TARGET.Prio * 2", "Memory / 1024"]);
    let partitionable = state == "Unclaimed" && rng.below(5) == 0;
    let text = format!(
        r#"[ Name = "slot{i}"; Memory = {memory}; Cpus = {cpus}; Arch = "{arch}"; KFlops = {kf};
             KeyboardIdle = {ki}; State = "{state}"; RemoteOwner = "{owner}"; CurrentRank = {cr};
             Bonus = {bonus}; PartitionableSlot = {partitionable}; Disk = 100000;
             Start = {start}; Requirements = START; Rank = {rank} ]"#,
        kf = rng.below(5) * 1000,
        ki = rng.below(2000),
        cr = rng.below(3),
        start = rng.pick(STARTS),
        rank = rng.pick(SLOT_RANKS),
    );
    Arc::new(parse_ad(&text).unwrap())
}

/// A job's attributes, without the closing bracket (variations are appended).
pub fn job_text(rng: &mut Rng, owner: &str) -> String {
    format!(
        r#"[ Owner = "{owner}"; RequestMemory = {mem}; RequestCpus = {cpus}; RequestDisk = 10; Prio = {prio};
             Weight = {w}; Requirements = {req}; Rank = {rank}"#,
        mem = [512, 1024, 2048, 4096][rng.below(4) as usize],
        cpus = 1 + rng.below(2),
        prio = rng.below(5),
        w = rng.below(3),
        req = rng.pick(REQUIREMENTS),
        rank = rng.pick(JOB_RANKS),
    )
}

/// Ways one job of a submission differs from the next: in attributes no policy reads
/// (ProcId, Unread), and now and then in ones a policy does read.
const VARIATIONS: &[&str] = &[
    "",
    "",
    "; Unread = 7",
    "; Prio = 4",
    "; Weight = 5",
    "; Owner = \"u9\"",
    "; RequestMemory = 8192",
];

pub fn job_ad(rng: &mut Rng, shape: &str, proc_id: usize) -> Arc<ClassAd> {
    let variation = rng.pick(VARIATIONS);
    let text = format!("{shape}; ProcId = {proc_id}{variation} ]");
    Arc::new(parse_ad(&text).unwrap())
}

pub fn config(rng: &mut Rng) -> Config {
    let mut c = Config::default();
    let maybe = |rng: &mut Rng, e: &[&str]| {
        let s = rng.pick(e);
        (!s.is_empty()).then(|| parse_expr(s).unwrap())
    };
    c.pre_job_rank = maybe(rng, &["", "", "RANK", "MY.Cpus", "TARGET.Prio"]);
    c.post_job_rank = maybe(rng, &["", "", "KFlops", "-Memory"]);
    c.preemption_requirements = maybe(rng, &["", "RemoteUserPrio > SubmitterUserPrio * 1.2"]);
    c.preemption_rank = maybe(rng, &["", "-CurrentRank", "Memory"]);
    c.consider_preemption = rng.below(4) != 0;
    c.priorities = HashMap::from([
        ("u0".to_string(), 10.0),
        ("u1".to_string(), 500.0),
        ("u2".to_string(), 2000.0),
        ("u3".to_string(), 100.0),
    ]);
    c
}

pub fn case(seed: u64) -> (Vec<Arc<ClassAd>>, Vec<Submitter>, Config) {
    let mut rng = Rng(seed);
    let slots: Vec<_> = (0..5 + rng.below(40) as usize)
        .map(|i| slot_ad(&mut rng, i))
        .collect();
    let users = ["u0", "u1", "u2", "u3"];
    let submitters = users
        .iter()
        .map(|&u| {
            let n = rng.below(12) as usize;
            // Jobs repeat a few shapes so that clusters have several members.
            let shapes: Vec<String> = (0..3).map(|_| job_text(&mut rng, u)).collect();
            let jobs = (0..n)
                .map(|p| {
                    let shape = shapes[rng.below(3) as usize].clone();
                    job_ad(&mut rng, &shape, p)
                })
                .collect();
            Submitter {
                name: u.to_string(),
                priority: [10.0, 500.0, 2000.0, 100.0][users.iter().position(|x| *x == u).unwrap()],
                jobs,
            }
        })
        .collect();
    let config = config(&mut rng);
    (slots, submitters, config)
}
