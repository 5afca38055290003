//! Why a job does not match: its Requirements, clause by clause, against a pool.
//!
//! This is what `condor_q -better-analyze` tells a user.
//! The job's Requirements are split into their top-level `&&` clauses (parentheses looked
//! through). Each clause is evaluated once on each slot; from those results alone we know
//! how many slots the whole Requirements accept, and how many would match if any one
//! clause were dropped — the hint that tells a user which clause to relax.

use std::sync::Arc;

use condorx_classad::ast::BinOp;
use condorx_classad::check::references;
use condorx_classad::matching::requirements_hold;
use condorx_classad::name::NameKind;
use condorx_classad::{unparse, ClassAd, Evaluator, Expr, Name, Value};

/// One top-level clause of the job's Requirements and how the pool answers it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clause {
    /// The clause as the unparser writes it (outer parentheses removed).
    pub text: String,
    /// Slots on which the clause is true (a non-zero number counts, as `&&` has it).
    pub true_on: usize,
    /// Slots on which it is false.
    pub false_on: usize,
    /// Slots on which it is UNDEFINED, ERROR, or not a boolean at all.
    pub undefined_on: usize,
    /// Slots that would match (both sides) if this clause alone were dropped.
    pub match_without: usize,
    /// Attributes the clause reads from the slot that no slot defines (`TARGET.Memroy`).
    pub missing: Vec<String>,
}

/// The whole analysis of one job against a pool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    /// Slots considered.
    pub slots: usize,
    /// Slots that match symmetrically: both Requirements hold.
    pub matching: usize,
    /// Slots the job's Requirements reject.
    pub rejected_by_job: usize,
    /// Slots whose own Requirements (START, in a startd's ad) reject the job.
    pub rejecting_job: usize,
    /// Whether the job has a Requirements attribute at all (without one it matches nothing).
    pub has_requirements: bool,
    /// The clauses of the job's Requirements, in order.
    pub clauses: Vec<Clause>,
}

/// The top-level `&&` operands of `e`, looking through parentheses, left to right.
pub fn conjuncts(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut pending = vec![e];
    // An explicit stack: a generated Requirements of thousands of `&&` must not recurse.
    while let Some(x) = pending.pop() {
        match x {
            Expr::Paren(inner) => pending.push(inner),
            Expr::Binary(BinOp::And, lr) => {
                pending.push(&lr.1);
                pending.push(&lr.0);
            }
            other => out.push(other),
        }
    }
    out
}

/// A clause lets `&&` go on: exactly when its value is true or a non-zero number. The
/// conjunction holds iff every clause does (`undefined && true` is UNDEFINED, which fails).
pub(crate) fn passes(v: &Value) -> bool {
    v.truth() == Some(true)
}

/// What one slot said to the job's clauses: how many failed, and the first that did.
struct SlotVerdict {
    failed: usize,
    first_failed: usize,
}

/// Evaluate every clause with `job` as MY and `slot` as TARGET, tallying into `stats`.
fn judge_clauses<'a>(
    ev: &mut Evaluator<'a>,
    clauses: &[&Expr],
    stats: &mut [Clause],
    job: &'a Arc<ClassAd>,
    slot: &'a Arc<ClassAd>,
) -> SlotVerdict {
    let mut verdict = SlotVerdict {
        failed: 0,
        first_failed: 0,
    };
    for (i, (clause, stat)) in clauses.iter().zip(stats.iter_mut()).enumerate() {
        // A fresh top-level evaluation per clause: each gets the full step budget.
        ev.reset(Some(job), Some(slot));
        let v = ev.eval(clause);
        match v.truth() {
            Some(true) => stat.true_on += 1,
            Some(false) => stat.false_on += 1,
            None => stat.undefined_on += 1,
        }
        if !passes(&v) {
            if verdict.failed == 0 {
                verdict.first_failed = i;
            }
            verdict.failed += 1;
        }
    }
    verdict
}

/// Analyze `job` against `slots`: see the module doc.
pub fn analyze(job: &Arc<ClassAd>, slots: &[Arc<ClassAd>]) -> Analysis {
    let requirements = job.lookup("Requirements");
    let clauses: Vec<&Expr> = requirements.map(conjuncts).unwrap_or_default();
    let mut out = Analysis {
        slots: slots.len(),
        has_requirements: requirements.is_some(),
        clauses: clauses.iter().map(|c| new_clause(c, job, slots)).collect(),
        ..Analysis::default()
    };
    let slot_requirements = Name::new("Requirements");
    let mut ev = Evaluator::new(None, None);
    for slot in slots {
        let verdict = judge_clauses(&mut ev, &clauses, &mut out.clauses, job, slot);
        ev.reset(Some(slot), Some(job));
        let slot_accepts = requirements_hold(ev.eval_my_attr(&slot_requirements));
        tally(&mut out, &verdict, slot_accepts);
    }
    out
}

/// Add one slot's verdicts to the totals.
fn tally(out: &mut Analysis, verdict: &SlotVerdict, slot_accepts: bool) {
    // No Requirements is UNDEFINED: the job accepts nothing, whatever the clauses say.
    let job_accepts = out.has_requirements && verdict.failed == 0;
    out.rejected_by_job += usize::from(!job_accepts);
    out.rejecting_job += usize::from(!slot_accepts);
    out.matching += usize::from(job_accepts && slot_accepts);
    if !slot_accepts {
        return;
    }
    match verdict.failed {
        // Every clause passed: the slot matches with any one of them dropped.
        0 => out.clauses.iter_mut().for_each(|c| c.match_without += 1),
        // Exactly one failed: dropping that one (and only that one) lets the slot match.
        1 => {
            if let Some(c) = out.clauses.get_mut(verdict.first_failed) {
                c.match_without += 1;
            }
        }
        _ => {}
    }
}

/// A clause's text and the slot attributes it reads that no slot has.
fn new_clause(e: &Expr, job: &ClassAd, slots: &[Arc<ClassAd>]) -> Clause {
    Clause {
        text: unparse(e),
        missing: missing_attributes(e, job, slots),
        ..Clause::default()
    }
}

/// References of `e` that would be looked up in the slot, and that no slot defines. With
/// no slots at all every name would qualify, which says nothing: report none.
fn missing_attributes(e: &Expr, job: &ClassAd, slots: &[Arc<ClassAd>]) -> Vec<String> {
    if slots.is_empty() {
        return Vec::new();
    }
    references(e, job)
        .external
        .into_iter()
        .filter(|r| slot_attribute(r).is_some_and(|a| !slots.iter().any(|s| s.contains(a))))
        .collect()
}

/// The slot attribute an external reference needs: `TARGET.x` and `OTHER.x` need `x`; a
/// bare `x` the job lacks falls through to the slot; `base.y` of a bare `base` needs
/// `base`. `MY.x` and `PARENT.x` are the job's own business, not the slot's.
fn slot_attribute(reference: &str) -> Option<&str> {
    let Some((base, attr)) = reference.split_once('.') else {
        return Some(reference);
    };
    match Name::new(base).kind {
        NameKind::Target => Some(attr),
        NameKind::Plain => Some(base),
        NameKind::My | NameKind::Parent => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pair::PairEval;
    use condorx_classad::{parse_ad, parse_expr};

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(parse_ad(text).unwrap())
    }

    /// `n` slots with memory 1024, 2048, ... and alternating architectures.
    fn pool(n: usize) -> Vec<Arc<ClassAd>> {
        (0..n)
            .map(|k| {
                let arch = if k % 2 == 0 { "X86_64" } else { "aarch64" };
                ad(&format!(
                    r#"[ Name = "slot{k}"; Memory = {}; Arch = "{arch}"; OpSys = "LINUX"; Requirements = true ]"#,
                    1024 * (k + 1)
                ))
            })
            .collect()
    }

    fn job(requirements: &str) -> Arc<ClassAd> {
        ad(&format!(
            r#"[ Owner = "alice"; RequestMemory = 4096; Requirements = {requirements} ]"#
        ))
    }

    #[test]
    fn conjuncts_look_through_parentheses() {
        let e = parse_expr("(a && (b && c)) && (d || e) && ((f))").unwrap();
        let texts: Vec<String> = conjuncts(&e).into_iter().map(unparse).collect();
        assert_eq!(texts, ["a", "b", "c", "d || e", "f"]);
    }

    #[test]
    fn counts_each_clause() {
        let slots = pool(8);
        let j = job(
            r#"(TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Memory >= RequestMemory)"#,
        );
        let a = analyze(&j, &slots);
        assert_eq!(a.slots, 8);
        // Memory 4096..8192 (k = 3..7) and x86 (k even): k = 4, 6.
        assert_eq!(a.matching, 2);
        assert_eq!(a.rejected_by_job, 6);
        assert_eq!(a.rejecting_job, 0);
        let rows: Vec<(&str, usize, usize, usize, usize)> = a
            .clauses
            .iter()
            .map(|c| {
                (
                    c.text.as_str(),
                    c.true_on,
                    c.false_on,
                    c.undefined_on,
                    c.match_without,
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (r#"TARGET.Arch == "X86_64""#, 4, 4, 0, 5),
                (r#"TARGET.OpSys == "LINUX""#, 8, 0, 0, 2),
                ("TARGET.Memory >= RequestMemory", 5, 3, 0, 4),
            ]
        );
        assert!(a.clauses.iter().all(|c| c.missing.is_empty()));
    }

    #[test]
    fn a_misspelt_attribute_is_named() {
        let slots = pool(4);
        let j = job(r#"TARGET.Memroy >= RequestMemory && Arch == "X86_64" && Colour == "red""#);
        let a = analyze(&j, &slots);
        assert_eq!(a.matching, 0);
        let memroy = &a.clauses[0];
        assert_eq!(memroy.undefined_on, 4);
        assert_eq!(memroy.missing, ["TARGET.Memroy"]);
        assert!(a.clauses[1].missing.is_empty(), "Arch is on the slots");
        assert_eq!(a.clauses[2].missing, ["Colour"]);
        assert_eq!(a.clauses[0].match_without, 0, "Colour still fails");
    }

    #[test]
    fn slots_that_reject_the_job() {
        let slots: Vec<Arc<ClassAd>> = (0..5)
            .map(|_| {
                ad(r#"[ Memory = 8192; START = TARGET.Owner == "bob"; Requirements = START ]"#)
            })
            .collect();
        let a = analyze(&job("TARGET.Memory >= RequestMemory"), &slots);
        assert_eq!((a.matching, a.rejected_by_job, a.rejecting_job), (0, 0, 5));
        assert_eq!(a.clauses[0].true_on, 5);
        assert_eq!(a.clauses[0].match_without, 0, "dropping it does not help");
    }

    #[test]
    fn no_requirements_matches_nothing() {
        let a = analyze(&ad("[ Owner = \"alice\" ]"), &pool(3));
        assert!(!a.has_requirements);
        assert!(a.clauses.is_empty());
        assert_eq!((a.matching, a.rejected_by_job), (0, 3));
    }

    #[test]
    fn agrees_with_the_pair_evaluator() {
        let slots = pool(16);
        let reqs = [
            "TARGET.Memory >= RequestMemory && TARGET.Arch == \"X86_64\"",
            "TARGET.Memory > 2048 && (undefined || true) && TARGET.Memory",
            "TARGET.Memory >= RequestMemory && TARGET.Nope",
            "1 && TARGET.Memory > 3000.5",
            "\"text\"",
        ];
        for r in reqs {
            let j = job(r);
            let a = analyze(&j, &slots);
            let mut p = PairEval::new();
            let expect = slots.iter().filter(|s| p.symmetric(&j, s)).count();
            assert_eq!(a.matching, expect, "{r}");
            let accepted = slots.iter().filter(|s| p.accepts(&j, s)).count();
            assert_eq!(a.rejected_by_job, slots.len() - accepted, "{r}");
        }
    }

    #[test]
    fn reference_kinds() {
        assert_eq!(slot_attribute("TARGET.Memory"), Some("Memory"));
        assert_eq!(slot_attribute("other.Memory"), Some("Memory"));
        assert_eq!(slot_attribute("Memory"), Some("Memory"));
        assert_eq!(slot_attribute("foo.bar"), Some("foo"));
        assert_eq!(slot_attribute("MY.Memory"), None);
    }
}
