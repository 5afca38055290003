//! Slots a job's Requirements rule out before any pair is evaluated.
//!
//! Requirements are true only if every top-level `&&` clause is. A clause that reads a
//! single slot attribute and nothing of the job (`TARGET.Arch == "aarch64"`,
//! `TARGET.KFlops > 1000000`, `regexp("^exec0", TARGET.Machine)`) has one value per
//! slot whatever the job, so it is evaluated once per slot per cycle and remembered as a
//! bit set: the slots where it is true. A search then skips, with one bit test, every
//! slot some such clause of its job rules out, evaluating only the rest in full.
//!
//! A slot whose attribute is written as an expression (which could read the job) is
//! never ruled out. The bit sets are exact otherwise: the clause is evaluated by the
//! same evaluator, with the slot as TARGET.

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::ast::Expr;
use condorx_classad::fingerprint::expr_hash;
use condorx_classad::{ClassAd, Evaluator};

use crate::analyze::{conjuncts, passes};
use crate::deps::{refs_of, Side};
use crate::slots::PoolSlot;

/// Slots by index, one bit each.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotSet {
    words: Vec<u64>,
}

impl SlotSet {
    fn empty(n: usize) -> SlotSet {
        SlotSet {
            words: vec![0; n.div_ceil(64)],
        }
    }

    fn insert(&mut self, k: usize) {
        if let Some(w) = self.words.get_mut(k / 64) {
            *w |= 1 << (k % 64);
        }
    }

    pub fn contains(&self, k: usize) -> bool {
        self.words
            .get(k / 64)
            .is_some_and(|w| w & (1 << (k % 64)) != 0)
    }

    fn intersect(&mut self, other: &SlotSet) {
        self.words
            .iter_mut()
            .zip(&other.words)
            .for_each(|(a, b)| *a &= b);
    }
}

/// The one slot attribute `clause` reads, if it reads exactly one and nothing of the job
/// (`job` decides whether an unqualified name is its own).
fn slot_only(clause: &Expr, job: &ClassAd) -> Option<String> {
    let refs = refs_of(clause)?;
    let mut name: Option<String> = None;
    for (side, n) in refs {
        let of_slot = side == Side::Other || (side == Side::Either && !job.contains(&n));
        if !of_slot || name.as_ref().is_some_and(|m| *m != n) {
            return None;
        }
        name = Some(n);
    }
    name
}

/// What a Requirements expression's slot-only clauses leave (`None`: they tell nothing).
type Verdict = Option<Arc<SlotSet>>;

struct Known {
    clause: Expr,
    slots: Arc<SlotSet>,
}

/// The cycle's bit sets, per clause and per Requirements expression.
pub struct Prefilter {
    slots: usize,
    clauses: HashMap<u64, Vec<Known>>,
    requirements: HashMap<u64, Vec<(Expr, Verdict)>>,
}

impl Prefilter {
    pub fn new(pool: &[PoolSlot]) -> Prefilter {
        Prefilter {
            slots: pool.len(),
            clauses: HashMap::new(),
            requirements: HashMap::new(),
        }
    }

    /// The slots `job`'s Requirements can be true on, as far as its slot-only clauses
    /// tell (`None`: they tell nothing).
    pub fn for_job(&mut self, job: &Arc<ClassAd>, pool: &[PoolSlot]) -> Option<Arc<SlotSet>> {
        let req = job.lookup("Requirements")?;
        let hash = job
            .hash_of("Requirements")
            .unwrap_or_else(|| expr_hash(req));
        // Whether an unqualified name is the job's own decides what a clause reads, so
        // the answer is remembered per Requirements only when it names nothing unqualified.
        let plain = refs_of(req).is_none_or(|r| r.iter().any(|(s, _)| *s == Side::Either));
        if !plain {
            let known = self
                .requirements
                .get(&hash)
                .and_then(|v| v.iter().find(|(e, _)| e.same_as(req)));
            if let Some((_, set)) = known {
                return set.clone();
            }
        }
        let set = self.compute(job, req, pool);
        if !plain {
            self.requirements
                .entry(hash)
                .or_default()
                .push((req.clone(), set.clone()));
        }
        set
    }

    fn compute(
        &mut self,
        job: &Arc<ClassAd>,
        req: &Expr,
        pool: &[PoolSlot],
    ) -> Option<Arc<SlotSet>> {
        let mut result: Option<SlotSet> = None;
        for clause in conjuncts(req) {
            let Some(attr) = slot_only(clause, job) else {
                continue;
            };
            let set = self.clause_set(clause, &attr, job, pool);
            match &mut result {
                None => result = Some((*set).clone()),
                Some(r) => r.intersect(&set),
            }
        }
        result.map(Arc::new)
    }

    /// The slots where `clause` (reading only the slot's `attr`) is true.
    fn clause_set(
        &mut self,
        clause: &Expr,
        attr: &str,
        job: &Arc<ClassAd>,
        pool: &[PoolSlot],
    ) -> Arc<SlotSet> {
        let hash = expr_hash(clause);
        if let Some(k) = self
            .clauses
            .get(&hash)
            .and_then(|v| v.iter().find(|k| k.clause.same_as(clause)))
        {
            return k.slots.clone();
        }
        let mut set = SlotSet::empty(self.slots);
        for (k, slot) in pool.iter().enumerate() {
            // Taken slots stay taken all cycle: no search will ask about them.
            if !slot.free {
                continue;
            }
            let ad = &slot.advertised;
            // Written as an expression, the attribute could read the job: keep the slot.
            let literal = !matches!(ad.lookup(attr), Some(e) if !matches!(e, Expr::Lit(_)));
            // A partitionable slot changes as it is carved: keep it too.
            if !literal || slot.partitionable {
                set.insert(k);
                continue;
            }
            let mut ev = Evaluator::new(Some(job), Some(ad));
            if passes(&ev.eval(clause)) {
                set.insert(k);
            }
        }
        let set = Arc::new(set);
        self.clauses.entry(hash).or_default().push(Known {
            clause: clause.clone(),
            slots: set.clone(),
        });
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use condorx_classad::parse_ad;

    fn pool(texts: &[&str]) -> Vec<PoolSlot> {
        texts
            .iter()
            .map(|t| {
                PoolSlot::new(
                    &Arc::new(parse_ad(t).unwrap()),
                    crate::slots::Preemptible::Any,
                )
            })
            .collect()
    }

    fn job(text: &str) -> Arc<ClassAd> {
        Arc::new(parse_ad(text).unwrap())
    }

    #[test]
    fn slot_only_clauses_rule_slots_out() {
        let slots = pool(&[
            r#"[ Arch = "X86_64"; KFlops = 5; Requirements = true ]"#,
            r#"[ Arch = "aarch64"; KFlops = 50; Requirements = true ]"#,
            r#"[ Arch = "AARCH64"; KFlops = 1; Requirements = true ]"#,
            r#"[ Arch = ifThenElse(TARGET.X, "aarch64", "x"); KFlops = 50; Requirements = true ]"#,
            r#"[ KFlops = 50; Requirements = true ]"#,
        ]);
        let mut p = Prefilter::new(&slots);
        let j = job(
            r#"[ Need = 10; Requirements = (TARGET.Arch == "aarch64") && TARGET.KFlops > 10 && TARGET.Memory > Need ]"#,
        );
        let set = p.for_job(&j, &slots).unwrap();
        let members: Vec<usize> = (0..5).filter(|&k| set.contains(k)).collect();
        // 0: wrong arch; 1: both hold; 2: too slow ("==" ignores case); 3: Arch reads the
        // job, kept; 4: no Arch, so the clause is undefined.
        assert_eq!(members, vec![1, 3]);
        // A number lets `&&` go on when it is not zero, as true does.
        let j = job(r#"[ Requirements = TARGET.KFlops && true ]"#);
        let set = p.for_job(&j, &slots).unwrap();
        assert_eq!((0..5).filter(|&k| set.contains(k)).count(), 5);
        // A clause reading the job tells nothing.
        let j = job(r#"[ Need = 10; Requirements = TARGET.KFlops > Need ]"#);
        assert_eq!(p.for_job(&j, &slots), None);
        // An unqualified name the job has is the job's.
        let j = job(r#"[ KFlops = 1; Requirements = KFlops > 0 ]"#);
        assert_eq!(p.for_job(&j, &slots), None);
    }

    #[test]
    fn sets_hold_the_pool_exactly() {
        let mut s = SlotSet::empty(70);
        s.insert(0);
        s.insert(69);
        assert!(s.contains(0) && s.contains(69) && !s.contains(70) && !s.contains(1));
        let mut t = SlotSet::empty(70);
        t.insert(69);
        s.intersect(&t);
        assert!(!s.contains(0) && s.contains(69));
    }
}
