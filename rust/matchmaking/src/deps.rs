//! What an expression evaluated between a job and a slot can read of either ad.
//!
//! Evaluating `e` with MY = one ad and TARGET = the other reads attributes of both: those
//! `e` names, and those their own expressions name in turn, on either side (a slot's
//! `TARGET.x` read from a job's Rank is evaluated in the slot, where TARGET is the job).
//! Knowing which job attributes a job's ranking of slots can read lets the negotiator
//! rank the pool once for all jobs that agree on them.

use std::collections::{HashMap, HashSet};

use condorx_classad::ast::Expr;
use condorx_classad::check::walk;
use condorx_classad::fingerprint::expr_hash;
use condorx_classad::name::NameKind;
use condorx_classad::{ClassAd, Name};

/// Which ad a reference reads, seen from the ad whose expression makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    Me,
    Other,
    /// An unqualified name: the ad's own attribute if it has one, else the other ad's.
    Either,
}

/// The references an expression makes: (side, lower-cased name), or `None` when it calls
/// a function that reads attributes chosen at run time (`eval`, `countMatches`, ...).
pub fn refs_of(e: &Expr) -> Option<Vec<(Side, String)>> {
    let mut out: Vec<(Side, String)> = Vec::new();
    let mut opaque = false;
    walk(e, &mut |x| match x {
        Expr::Attr(n) | Expr::Root(n) if n.kind == NameKind::Plain => {
            out.push((Side::Either, n.as_str().to_ascii_lowercase()))
        }
        Expr::Select(base, n) => {
            if let Expr::Attr(b) = &**base {
                match b.kind {
                    NameKind::My => out.push((Side::Me, n.as_str().to_ascii_lowercase())),
                    NameKind::Target => out.push((Side::Other, n.as_str().to_ascii_lowercase())),
                    // `x.y` reads x (noted when the walk reaches it); PARENT is no ad here.
                    NameKind::Plain | NameKind::Parent => {}
                }
            }
        }
        Expr::Call(c) if reads_at_run_time(&c.name) => opaque = true,
        _ => {}
    });
    if opaque {
        return None;
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// Functions whose attribute reads cannot be seen in the expression, or whose value is
/// not a function of the ads.
fn reads_at_run_time(name: &str) -> bool {
    [
        "eval",
        "countMatches",
        "evalInEachContext",
        "unresolved",
        "random",
    ]
    .iter()
    .any(|f| f.eq_ignore_ascii_case(name))
}

/// Each distinct expression (not a literal) the slots write, once, with its name: a
/// pool repeats a few policies over thousands of slots.
pub fn distinct_exprs<'a>(
    slots: impl IntoIterator<Item = &'a ClassAd>,
) -> Vec<(&'a Name, &'a Expr)> {
    let mut seen: HashMap<(u64, u64), Vec<&'a Expr>> = HashMap::new();
    let mut out = Vec::new();
    for slot in slots {
        for (name, e) in slot.iter() {
            if matches!(e, Expr::Lit(_)) {
                continue;
            }
            let alike = seen.entry((name.hash, expr_hash(e))).or_default();
            if alike.iter().any(|x| x.same_as(e)) {
                continue;
            }
            alike.push(e);
            out.push((name, e));
        }
    }
    out
}

/// Over the whole pool: for each slot attribute some slot writes as an expression (not a
/// literal), what those expressions reference. Attributes written as literals in every
/// slot read nothing and are absent.
#[derive(Debug, Default)]
pub struct PoolReads {
    reads: HashMap<String, HashSet<(Side, String)>>,
    /// Attributes some slot writes with a function that reads at run time.
    opaque: HashSet<String>,
}

impl PoolReads {
    pub fn of<'a>(slots: impl IntoIterator<Item = &'a ClassAd>) -> PoolReads {
        let mut pool = PoolReads::default();
        for (name, e) in distinct_exprs(slots) {
            pool.add(name, e);
        }
        pool
    }

    /// The job attributes that slot attribute `name` can read, through any slot and any
    /// chain of the slot's own attributes; `None` when some read is hidden. An unqualified
    /// name counts as both the slot's and the job's (some slot may lack it).
    pub fn job_names_read_by(&self, name: &str) -> Option<Vec<String>> {
        let mut job: Vec<String> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut todo = vec![name.to_ascii_lowercase()];
        while let Some(n) = todo.pop() {
            if self.opaque.contains(&n) {
                return None;
            }
            if !seen.insert(n.clone()) {
                continue;
            }
            for (side, m) in self.reads.get(&n).into_iter().flatten() {
                if *side != Side::Me && !job.contains(m) {
                    job.push(m.clone());
                }
                if *side != Side::Other {
                    todo.push(m.clone());
                }
            }
        }
        job.sort();
        Some(job)
    }

    fn add(&mut self, name: &Name, e: &Expr) {
        let key = name.as_str().to_ascii_lowercase();
        match refs_of(e) {
            Some(refs) => self.reads.entry(key).or_default().extend(refs),
            None => {
                self.opaque.insert(key);
            }
        }
    }
}

/// The job attributes (lower-cased, sorted) that expressions evaluated between `job` and
/// any slot of the pool can read, and whether they read the slot at all; `None` when
/// some read is hidden from analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobReads {
    pub job: Vec<String>,
    pub reads_slot: bool,
}

/// Where a walk through both ads' references stands.
struct Closure<'a> {
    job: &'a ClassAd,
    pool: &'a PoolReads,
    job_seen: HashSet<String>,
    slot_seen: HashSet<String>,
    todo: Vec<(bool, String)>,
}

impl Closure<'_> {
    /// Queue references made from one side (`from_job`) for the walk.
    fn push_refs(&mut self, from_job: bool, refs: impl IntoIterator<Item = (Side, String)>) {
        for (side, name) in refs {
            match side {
                Side::Me => self.todo.push((from_job, name)),
                Side::Other => self.todo.push((!from_job, name)),
                // From the job, the job is known: the name is its own if it has it.
                Side::Either if from_job => {
                    let own = self.job.contains(&name);
                    self.todo.push((own, name));
                }
                // From a slot, any slot may or may not have it: both.
                Side::Either => {
                    self.todo.push((false, name.clone()));
                    self.todo.push((true, name));
                }
            }
        }
    }

    fn run(&mut self) -> Option<()> {
        while let Some((on_job, name)) = self.todo.pop() {
            if on_job {
                if !self.job_seen.insert(name.clone()) {
                    continue;
                }
                if let Some(e) = self.job.lookup(&name) {
                    self.push_refs(true, refs_of(e)?);
                }
            } else {
                if !self.slot_seen.insert(name.clone()) {
                    continue;
                }
                if self.pool.opaque.contains(&name) {
                    return None;
                }
                if let Some(refs) = self.pool.reads.get(&name) {
                    let refs: Vec<_> = refs.iter().cloned().collect();
                    self.push_refs(false, refs);
                }
            }
        }
        Some(())
    }
}

/// What the job's attributes `job_attrs` (evaluated with MY = the job) and `slot_exprs`
/// (with MY = a slot) can read of `job`, through any slot of `pool`. The attributes
/// themselves count as read: they are part of what the job is ranked by.
pub fn job_reads(
    job: &ClassAd,
    job_attrs: &[&str],
    slot_exprs: &[&Expr],
    pool: &PoolReads,
) -> Option<JobReads> {
    let mut c = Closure {
        job,
        pool,
        job_seen: HashSet::new(),
        slot_seen: HashSet::new(),
        todo: Vec::new(),
    };
    c.todo
        .extend(job_attrs.iter().map(|a| (true, a.to_ascii_lowercase())));
    for e in slot_exprs {
        c.push_refs(false, refs_of(e)?);
    }
    c.run()?;
    let mut names: Vec<String> = c.job_seen.into_iter().collect();
    names.sort();
    Some(JobReads {
        job: names,
        reads_slot: !c.slot_seen.is_empty(),
    })
}

/// Does `slot`'s expression `e` read the job it is matched with (or something hidden)?
/// Exact for this slot: its own attributes are followed, names it lacks go to the job.
pub fn slot_expr_reads_job(slot: &ClassAd, e: &Expr) -> bool {
    let mut seen: HashSet<String> = HashSet::new();
    let mut todo: Vec<&Expr> = vec![e];
    while let Some(e) = todo.pop() {
        let Some(refs) = refs_of(e) else { return true };
        for (side, name) in refs {
            match (side, slot.lookup(&name)) {
                (Side::Other, _) | (Side::Either, None) => return true,
                (Side::Me | Side::Either, Some(inner)) => {
                    if seen.insert(name) {
                        todo.push(inner);
                    }
                }
                // MY.x of an attribute it lacks is UNDEFINED, whatever the job.
                (Side::Me, None) => {}
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use condorx_classad::{parse_ad, parse_expr};

    fn ad(text: &str) -> ClassAd {
        parse_ad(text).unwrap()
    }

    #[test]
    fn a_rank_of_literal_slot_attributes_reads_only_itself() {
        let slots = [ad(
            "[ KFlops = 10; Start = TARGET.Owner == \"a\"; Requirements = START ]",
        )];
        let pool = PoolReads::of(slots.iter());
        let job = ad("[ Owner = \"a\"; Rank = TARGET.KFlops ]");
        let r = job_reads(&job, &["Rank"], &[], &pool).unwrap();
        assert_eq!(r.job, vec!["rank"]);
        assert!(r.reads_slot);
    }

    #[test]
    fn reads_cross_sides_through_slot_expressions() {
        let slots = [ad(
            "[ Bonus = TARGET.Group == \"physics\"; Requirements = true ]",
        )];
        let pool = PoolReads::of(slots.iter());
        let job = ad("[ Group = \"physics\"; W = 2; Rank = TARGET.Bonus * W ]");
        let r = job_reads(&job, &["Rank"], &[], &pool).unwrap();
        assert_eq!(r.job, vec!["group", "rank", "w"]);
        // A slot-side expression (MY = slot) naming Rank reads the slot's Rank.
        let pre = parse_expr("Bonus + TARGET.W").unwrap();
        let r = job_reads(&job, &[], &[&pre], &pool).unwrap();
        assert_eq!(r.job, vec!["bonus", "group", "w"]);
    }

    #[test]
    fn what_slot_policies_read_of_the_job() {
        let slots = [
            ad("[ Start = TARGET.Owner != \"x\" && Idle > 5 && Extra; Extra = TARGET.Prio > 1; Requirements = START ]"),
            ad("[ Hidden = eval(\"1\"); Requirements = true ]"),
        ];
        let pool = PoolReads::of(slots.iter());
        assert_eq!(
            pool.job_names_read_by("Requirements").unwrap(),
            vec!["extra", "idle", "owner", "prio", "start"]
        );
        assert_eq!(
            pool.job_names_read_by("Memory").unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(pool.job_names_read_by("hidden"), None);
    }

    #[test]
    fn a_constant_rank_reads_no_slot_and_eval_is_opaque() {
        let pool = PoolReads::default();
        let job = ad("[ Rank = 0 ]");
        let r = job_reads(&job, &["Rank"], &[], &pool).unwrap();
        assert!(!r.reads_slot);
        let job = ad("[ Rank = eval(\"TARGET.Memory\") ]");
        assert_eq!(job_reads(&job, &["Rank"], &[], &pool), None);
    }

    #[test]
    fn slot_requirements_that_ignore_the_job() {
        let slot = ad("[ KeyboardIdle = 5; Start = KeyboardIdle > 900; Requirements = START ]");
        assert!(!slot_expr_reads_job(
            &slot,
            slot.lookup("Requirements").unwrap()
        ));
        let slot = ad("[ Start = Owner =!= \"x\"; Requirements = START ]");
        assert!(slot_expr_reads_job(
            &slot,
            slot.lookup("Requirements").unwrap()
        ));
        let slot = ad("[ Requirements = MY.Missing =?= undefined ]");
        assert!(!slot_expr_reads_job(
            &slot,
            slot.lookup("Requirements").unwrap()
        ));
    }
}
