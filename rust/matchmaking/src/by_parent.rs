//! One answer for the procs of a cluster that read alike.
//!
//! A schedd's procs are chained to their cluster's ad and mostly set only ProcId and
//! GlobalJobId of their own. Anything worked out from a proc by looking up attributes
//! (a constraint's value, the attributes an autocluster reads) is the same for two procs
//! of one cluster ad when each name looked up resolves alike in both: neither sets it,
//! or both set it to the same literal. So the answer is kept under the cluster ad and
//! the literals the proc sets among the names its first proc's working-out looked up:
//! a million procs are worked out once per distinct answer, the rest found in a table.
//!
//! Why literals only: a literal adds no lookups, so two procs that set the same names to
//! literals, over a parent's expressions, are looked at along exactly the same path. A
//! proc that sets one of those names to an expression is worked out on its own.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use condorx_classad::fingerprint::expr_hash;
use condorx_classad::{ClassAd, Expr};

/// What each proc's working-out looked up: attribute names by case-folded hash.
pub type Looked = HashSet<u64>;

/// A proc's own literals among a cluster ad's looked-up names, as compared.
type Own = Vec<(u64, Expr)>;

/// Answers kept per cluster ad (by address) and the literals its procs set there.
pub struct ByParent<T> {
    /// Per cluster ad: the names its first worked-out proc looked up.
    looked: HashMap<usize, Arc<Looked>>,
    /// Per (cluster ad, hash of the own literals): the literals and the answer.
    answers: HashMap<(usize, u64), Vec<(Own, T)>>,
}

impl<T: Clone> Default for ByParent<T> {
    fn default() -> Self {
        ByParent {
            looked: HashMap::new(),
            answers: HashMap::new(),
        }
    }
}

impl<T: Clone> ByParent<T> {
    /// The answer kept for a proc alike to `job`, if any.
    pub fn get(&self, job: &ClassAd) -> Option<T> {
        let parent = parent_of(job)?;
        let looked = self.looked.get(&parent)?;
        let (hash, own) = own_literals(job, looked)?;
        let kept = self.answers.get(&(parent, hash))?;
        kept.iter()
            .find(|(o, _)| same(o, &own))
            .map(|(_, t)| t.clone())
    }

    /// Keep `answer` for procs alike to `job`, whose working-out looked up `looked`
    /// (nothing is kept when that went past what the cluster ad's first proc looked up,
    /// or when `job` sets one of those names to an expression).
    pub fn put(&mut self, job: &ClassAd, looked: &Looked, answer: T) {
        let Some(parent) = parent_of(job) else {
            return;
        };
        let known = self
            .looked
            .entry(parent)
            .or_insert_with(|| Arc::new(looked.clone()))
            .clone();
        if !looked.is_subset(&known) {
            return;
        }
        if let Some((hash, own)) = own_literals(job, &known) {
            let own = own.into_iter().map(|(h, e)| (h, e.clone())).collect();
            self.answers
                .entry((parent, hash))
                .or_default()
                .push((own, answer));
        }
    }
}

/// The cluster ad's address: procs are alike only over one and the same parent.
fn parent_of(job: &ClassAd) -> Option<usize> {
    job.parent().map(|p| Arc::as_ptr(p) as usize)
}

/// The literals `job` sets of its own among `looked`, and their hash; None when it
/// sets one of them to an expression.
fn own_literals<'a>(job: &'a ClassAd, looked: &Looked) -> Option<(u64, Vec<(u64, &'a Expr)>)> {
    let mut own: Vec<(u64, &Expr)> = Vec::new();
    for (name, e) in job.own_iter() {
        if looked.contains(&name.hash) {
            if !e.is_literal() {
                return None;
            }
            own.push((name.hash, e));
        }
    }
    own.sort_unstable_by_key(|(h, _)| *h);
    let hash = own.iter().fold(own.len() as u64, |h, (n, e)| {
        (h.rotate_left(5) ^ n ^ expr_hash(e)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    });
    Some((hash, own))
}

fn same(kept: &Own, own: &[(u64, &Expr)]) -> bool {
    kept.len() == own.len()
        && kept
            .iter()
            .zip(own)
            .all(|((a, x), (b, y))| a == b && x.same_as(y))
}

/// Every attribute name evaluating `e` in `job` alone may look up, followed through
/// `job`'s expressions; None when some read is hidden (`eval`, `random`).
pub fn looked_by(job: &ClassAd, e: &Expr) -> Option<Looked> {
    let mut looked = Looked::new();
    let mut todo: Vec<String> = crate::deps::refs_of(e)?
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    while let Some(name) = todo.pop() {
        if !looked.insert(condorx_classad::name::ci_hash(&name)) {
            continue;
        }
        if let Some(x) = job.lookup(&name) {
            if !x.is_literal() {
                todo.extend(crate::deps::refs_of(x)?.into_iter().map(|(_, n)| n));
            }
        }
    }
    Some(looked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use condorx_classad::parse_ad;

    fn proc_of(parent: &Arc<ClassAd>, text: &str) -> ClassAd {
        let mut ad = parse_ad(text).unwrap();
        ad.set_parent(Some(parent.clone()));
        ad
    }

    #[test]
    fn procs_alike_where_looked_share_an_answer_and_others_do_not() {
        let cluster = Arc::new(parse_ad("[ Need = Base * 2; Base = 1; Status = 1 ]").unwrap());
        let e = condorx_classad::parse_expr("Status == 1 && Need > 1").unwrap();
        let first = proc_of(&cluster, "[ ProcId = 0 ]");
        let looked = looked_by(&first, &e).unwrap();
        let mut memo: ByParent<bool> = ByParent::default();
        memo.put(&first, &looked, true);
        // Another ProcId: not looked at, so alike.
        assert_eq!(memo.get(&proc_of(&cluster, "[ ProcId = 7 ]")), Some(true));
        // A literal of its own where the first proc read the cluster's: not kept yet.
        assert_eq!(
            memo.get(&proc_of(&cluster, "[ ProcId = 1; Base = 5 ]")),
            None
        );
        // An expression of its own there: never kept.
        let own_expr = proc_of(&cluster, "[ ProcId = 2; Need = Base ]");
        memo.put(&own_expr, &looked_by(&own_expr, &e).unwrap(), false);
        assert_eq!(memo.get(&own_expr), None);
        // Another cluster ad, written alike: not the same parent.
        let twin = Arc::new(parse_ad("[ Need = Base * 2; Base = 1; Status = 1 ]").unwrap());
        assert_eq!(memo.get(&proc_of(&twin, "[ ProcId = 0 ]")), None);
    }

    #[test]
    fn a_literal_of_its_own_is_kept_with_its_value() {
        let cluster = Arc::new(parse_ad("[ Status = 1 ]").unwrap());
        let e = condorx_classad::parse_expr("Status == 1").unwrap();
        let mut memo: ByParent<bool> = ByParent::default();
        for (text, value) in [("[ Status = 2 ]", false), ("[ Status = 1 ]", true)] {
            let job = proc_of(&cluster, text);
            memo.put(&job, &looked_by(&job, &e).unwrap(), value);
        }
        assert_eq!(
            memo.get(&proc_of(&cluster, "[ Status = 2; ProcId = 3 ]")),
            Some(false)
        );
        assert_eq!(
            memo.get(&proc_of(&cluster, "[ Status = 1; ProcId = 4 ]")),
            Some(true)
        );
        assert_eq!(memo.get(&proc_of(&cluster, "[ Status = 3 ]")), None);
    }

    #[test]
    fn a_hidden_read_is_no_looked_set() {
        let job = parse_ad("[ X = 1 ]").unwrap();
        let e = condorx_classad::parse_expr(r#"eval("X") == 1"#).unwrap();
        assert!(looked_by(&job, &e).is_none());
    }
}
