//! Evaluation: an expression in a scope gives a Value. Total: runaway input gives ERROR.

use std::sync::Arc;

use crate::ast::{BinOp, Expr};
use crate::calendar::now;
use crate::classad::ClassAd;
use crate::name::{Name, NameKind};
use crate::ops;
use crate::value::{AdValue, ListValue, Value};

/// Where an unqualified name is looked up.
#[derive(Clone, Debug, Default)]
pub enum Scope {
    /// No ad at all: every reference is UNDEFINED.
    #[default]
    None,
    /// One of the two top-level ads of an evaluation: 0 is MY, 1 is TARGET.
    Side(u8),
    /// A nested ad, with the scope it was written in.
    Nested(Arc<ScopeNode>),
}

#[derive(Debug)]
pub struct ScopeNode {
    pub ad: Arc<ClassAd>,
    pub parent: Scope,
}

/// Deepest evaluation recursion. Why: attribute chains (`a1 = a2 + 1; a2 = a3 + 1; ...`)
/// and long operator chains recurse once per step; the stack grows onto the heap as they
/// go (`stack::guard`), and past this depth the answer is ERROR rather than unbounded
/// memory. 20,000 covers a Requirements of thousands of `||` clauses.
const MAX_EVAL_DEPTH: u32 = 20_000;

/// Most evaluation steps for one top-level evaluation. Why: `a1 = a0 + a0; a2 = a1 + a1; ...`
/// takes 2^n steps without any cycle; this bounds it to well under a second.
const MAX_STEPS: u64 = 20_000_000;

/// An evaluator's reusable allocations, for code that evaluates many short-lived pairs
/// of ads and cannot keep one evaluator borrowing them all.
#[derive(Debug, Default)]
pub struct EvalBuffer(Vec<(usize, u32)>);

/// The state of one evaluation: the two top-level ads, the current scope, and the guards.
pub struct Evaluator<'a> {
    pub(crate) roots: [Option<&'a Arc<ClassAd>>; 2],
    pub(crate) scope: Scope,
    depth: u32,
    steps: u64,
    /// Attributes being evaluated right now, by ad address and attribute position.
    active: Vec<(usize, u32)>,
}

impl<'a> Evaluator<'a> {
    /// An evaluator for expressions in `my`, with `target` as the other ad of a match.
    pub fn new(my: Option<&'a Arc<ClassAd>>, target: Option<&'a Arc<ClassAd>>) -> Evaluator<'a> {
        Evaluator {
            roots: [my, target],
            scope: if my.is_some() {
                Scope::Side(0)
            } else {
                Scope::None
            },
            depth: 0,
            steps: 0,
            active: Vec::new(),
        }
    }

    /// An evaluator that reuses the allocations of an earlier one (see [`EvalBuffer`]).
    pub fn with_buffer(
        my: Option<&'a Arc<ClassAd>>,
        target: Option<&'a Arc<ClassAd>>,
        buffer: EvalBuffer,
    ) -> Evaluator<'a> {
        let mut ev = Evaluator::new(my, target);
        ev.active = buffer.0;
        ev.active.clear();
        ev
    }

    /// Give back the allocations, for the next [`Evaluator::with_buffer`].
    pub fn into_buffer(self) -> EvalBuffer {
        EvalBuffer(self.active)
    }

    /// Reuse this evaluator for a new top-level evaluation (keeps its allocations).
    pub fn reset(&mut self, my: Option<&'a Arc<ClassAd>>, target: Option<&'a Arc<ClassAd>>) {
        self.roots = [my, target];
        self.scope = if my.is_some() {
            Scope::Side(0)
        } else {
            Scope::None
        };
        self.depth = 0;
        self.steps = 0;
        self.active.clear();
    }

    pub fn eval(&mut self, e: &Expr) -> Value {
        self.steps += 1;
        if self.steps > MAX_STEPS || self.depth > MAX_EVAL_DEPTH {
            return Value::Error;
        }
        match e {
            Expr::Lit(v) => v.clone(),
            Expr::Attr(n) => self.eval_name(n),
            Expr::Binary(op, lr) => self.eval_binary(*op, &lr.0, &lr.1),
            Expr::Paren(inner) => self.nested(|ev| ev.eval(inner)),
            Expr::Select(base, n) => self.eval_select(base, n),
            Expr::Unary(op, x) => {
                let v = self.nested(|ev| ev.eval(x));
                ops::unary(*op, v)
            }
            Expr::Cond(cte) => self.eval_cond(&cte.0, &cte.1, &cte.2),
            Expr::Elvis(cf) => {
                let c = self.nested(|ev| ev.eval(&cf.0));
                if c.is_undefined() {
                    self.nested(|ev| ev.eval(&cf.1))
                } else {
                    c
                }
            }
            Expr::Call(call) => match call.func {
                Some(b) => self.nested(|ev| (b.f)(ev, &call.args)),
                None => Value::Error,
            },
            Expr::Index(bi) => self.eval_index(&bi.0, &bi.1),
            Expr::Root(n) => self.eval_root(n),
            Expr::List(items) => Value::List(ListValue {
                items: items.clone(),
                scope: self.scope.clone(),
                computed: false,
            }),
            Expr::Ad(ad) => Value::Ad(AdValue {
                ad: ad.clone(),
                parent: self.scope.clone(),
            }),
        }
    }

    /// Attribute `n` of MY, evaluated there (UNDEFINED when MY has none).
    pub fn eval_my_attr(&mut self, n: &Name) -> Value {
        self.attr_in_side(0, n).unwrap_or(Value::Undefined)
    }

    /// Run `f` one level deeper (the depth guard counts native recursion).
    #[inline]
    pub fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.depth += 1;
        // Checking the stack every eighth level keeps the check off the hot path; the red
        // zone covers the frames in between.
        let r = if self.depth.is_multiple_of(8) {
            crate::stack::guard(|| f(self))
        } else {
            f(self)
        };
        self.depth -= 1;
        r
    }

    /// Evaluate `e` with `scope` as the current scope.
    pub fn eval_in(&mut self, e: &Expr, scope: Scope) -> Value {
        let saved = std::mem::replace(&mut self.scope, scope);
        let v = self.nested(|ev| ev.eval(e));
        self.scope = saved;
        v
    }

    /// Evaluate `e` as if written inside the ad `ad` (its attributes are in scope).
    pub fn eval_in_ad(&mut self, e: &Expr, ad: &AdValue) -> Value {
        let scope = self.ad_scope(ad);
        self.eval_in(e, scope)
    }

    /// The values of a list's items, each evaluated in the scope the list was written in.
    pub fn list_items(&mut self, l: &ListValue) -> Vec<Value> {
        l.items
            .iter()
            .map(|item| match item {
                Expr::Lit(v) => v.clone(),
                _ => self.eval_in(item, l.scope.clone()),
            })
            .collect()
    }

    /// The values of a list passed to a function. HTCondor evaluates such items in the
    /// caller's scope, as if they were written as arguments: with `n = [a = 5; l = {a}]`
    /// and an outer `a = 1`, `sum(n.l)` is 1 while `n.l[0]` is 5.
    pub fn arg_items(&mut self, l: &ListValue) -> Vec<Value> {
        l.items
            .iter()
            .map(|item| match item {
                Expr::Lit(v) => v.clone(),
                _ => self.nested(|ev| ev.eval(item)),
            })
            .collect()
    }

    fn eval_binary(&mut self, op: BinOp, l: &Expr, r: &Expr) -> Value {
        self.nested(|ev| {
            let lv = ev.eval(l);
            match op {
                BinOp::And => match ops::and_left(&lv) {
                    Some(done) => done,
                    None => ops::and(lv, ev.eval(r)),
                },
                BinOp::Or => match ops::or_left(&lv) {
                    Some(done) => done,
                    None => ops::or(lv, ev.eval(r)),
                },
                _ => {
                    let rv = ev.eval(r);
                    ops::binary(op, lv, rv)
                }
            }
        })
    }

    fn eval_cond(&mut self, c: &Expr, t: &Expr, f: &Expr) -> Value {
        let cv = self.nested(|ev| ev.eval(c));
        match cv {
            Value::Undefined => Value::Undefined,
            _ => match cv.truth() {
                Some(true) => self.nested(|ev| ev.eval(t)),
                Some(false) => self.nested(|ev| ev.eval(f)),
                None => Value::Error,
            },
        }
    }

    /// The side (0 = MY, 1 = TARGET) that the current scope belongs to.
    fn side(&self) -> Option<u8> {
        let mut s = &self.scope;
        loop {
            match s {
                Scope::None => return None,
                Scope::Side(i) => return Some(*i),
                Scope::Nested(node) => s = &node.parent,
            }
        }
    }

    fn root(&self, side: u8) -> Option<&'a Arc<ClassAd>> {
        self.roots.get(usize::from(side)).copied().flatten()
    }

    fn eval_name(&mut self, n: &Name) -> Value {
        if n.kind != NameKind::Plain {
            // An attribute called MY (or TARGET, ...) in the current ad hides the scope name.
            if let Some((ad, idx, scope)) = self.defined_here(n) {
                return self.eval_attr(&ad, idx, scope);
            }
        }
        match n.kind {
            NameKind::Plain => self.lookup_chain(n),
            NameKind::My => match &self.scope {
                Scope::None => Value::Undefined,
                s => self.scope_as_value(&s.clone()).unwrap_or(Value::Undefined),
            },
            NameKind::Target => match self.side().and_then(|s| self.root(1 - s).map(|_| 1 - s)) {
                Some(other) => self
                    .scope_as_value(&Scope::Side(other))
                    .unwrap_or(Value::Undefined),
                None => Value::Undefined,
            },
            NameKind::Parent => match &self.scope {
                Scope::Nested(node) => {
                    let p = node.parent.clone();
                    self.scope_as_value(&p).unwrap_or(Value::Undefined)
                }
                _ => Value::Undefined,
            },
        }
    }

    /// Attribute `n` of the innermost ad of the current scope, when that ad has scope names.
    fn defined_here(&self, n: &Name) -> Option<(Arc<ClassAd>, usize, Scope)> {
        let ad = match &self.scope {
            Scope::None => return None,
            Scope::Side(i) => self.root(*i)?,
            Scope::Nested(node) => &node.ad,
        };
        if !ad.has_scope_names() {
            return None;
        }
        let idx = ad.get_index(n.hash, &n.text)?;
        Some((ad.clone(), idx, self.scope.clone()))
    }

    /// The ad a scope denotes, as a value that remembers where it sits.
    fn scope_as_value(&self, scope: &Scope) -> Option<Value> {
        match scope {
            Scope::None => None,
            Scope::Side(i) => self.root(*i).map(|a| {
                Value::Ad(AdValue {
                    ad: a.clone(),
                    parent: Scope::Side(*i),
                })
            }),
            Scope::Nested(node) => Some(Value::Ad(AdValue {
                ad: node.ad.clone(),
                parent: node.parent.clone(),
            })),
        }
    }

    /// The scope inside an ad value: a top-level ad is its side, anything else is nested.
    /// (A top-level ad's value carries `parent: Side(i)` and is that very root.)
    fn ad_scope(&self, adv: &AdValue) -> Scope {
        if let Scope::Side(i) = adv.parent {
            if self.root(i).is_some_and(|r| Arc::ptr_eq(r, &adv.ad)) {
                return Scope::Side(i);
            }
        }
        Scope::Nested(Arc::new(ScopeNode {
            ad: adv.ad.clone(),
            parent: adv.parent.clone(),
        }))
    }

    /// An unqualified name. At the top level of a match it is looked up in MY, then in TARGET;
    /// inside a nested ad, in that ad and then the ads enclosing it.
    fn lookup_chain(&mut self, n: &Name) -> Value {
        if let Scope::Side(i) = self.scope {
            if let Some(v) = self.attr_in_side(i, n) {
                return v;
            }
            return self
                .attr_in_side(1 - i, n)
                .unwrap_or_else(|| Self::absent(n));
        }
        let scope = self.scope.clone();
        self.lookup_from(scope, n)
    }

    /// The value of a name no ad in scope defines: UNDEFINED, except `CurrentTime`, which
    /// is the time now. HTCondor's daemons and tools see it so (their ads are born with
    /// `CurrentTime = time()`, after old ClassAds' environment lookup), and every policy
    /// written for them relies on it: `CurrentTime - EnteredCurrentStatus > 600`,
    /// `DeferralTime = CurrentTime + 60`. An ad that defines CurrentTime itself wins.
    fn absent(n: &Name) -> Value {
        if n.text.eq_ignore_ascii_case("CurrentTime") {
            Value::Int(now())
        } else {
            Value::Undefined
        }
    }

    /// `n` in the ad of `scope`, then in the ads enclosing it (never in the other side).
    fn lookup_from(&mut self, mut s: Scope, n: &Name) -> Value {
        loop {
            match s {
                Scope::None => return Self::absent(n),
                Scope::Side(i) => {
                    return self.attr_in_side(i, n).unwrap_or_else(|| Self::absent(n))
                }
                Scope::Nested(node) => {
                    if let Some(idx) = node.ad.get_index(n.hash, &n.text) {
                        let scope = Scope::Nested(node.clone());
                        return self.eval_attr(&node.ad, idx, scope);
                    }
                    s = node.parent.clone();
                }
            }
        }
    }

    /// The attribute `n` of top-level ad `side`, evaluated there; None when it has none.
    fn attr_in_side(&mut self, side: u8, n: &Name) -> Option<Value> {
        let ad = self.root(side)?;
        let idx = ad.get_index(n.hash, &n.text)?;
        Some(self.eval_attr(ad, idx, Scope::Side(side)))
    }

    /// Evaluate attribute `idx` of `ad` in `scope`, with the cycle guard.
    fn eval_attr(&mut self, ad: &ClassAd, idx: usize, scope: Scope) -> Value {
        let key = (ad as *const ClassAd as usize, idx as u32);
        if self.active.contains(&key) {
            // HTCondor gives UNDEFINED for an attribute that refers to itself.
            return Value::Undefined;
        }
        self.active.push(key);
        let saved = std::mem::replace(&mut self.scope, scope);
        let v = self.nested(|ev| ev.eval(ad.expr_at(idx)));
        self.scope = saved;
        self.active.pop();
        v
    }

    fn eval_root(&mut self, n: &Name) -> Value {
        // `.name` is looked up in the outermost ad. In a match that is the pair itself,
        // which has no attributes of its own.
        let mut s = self.scope.clone();
        loop {
            match s {
                Scope::None => return Value::Undefined,
                Scope::Side(i) => {
                    if self.root(1 - i).is_some() {
                        return Value::Undefined;
                    }
                    return self.attr_in_side(i, n).unwrap_or(Value::Undefined);
                }
                Scope::Nested(node) => match &node.parent {
                    Scope::None => {
                        return match node.ad.get_index(n.hash, &n.text) {
                            Some(idx) => self.eval_attr(&node.ad, idx, Scope::Nested(node.clone())),
                            None => Value::Undefined,
                        }
                    }
                    p => s = p.clone(),
                },
            }
        }
    }

    fn eval_select(&mut self, base: &Expr, n: &Name) -> Value {
        // Fast paths for MY.x and TARGET.x at the top level: no ad value is built.
        if let (Expr::Attr(b), NameKind::Plain, Scope::Side(i)) = (base, n.kind, &self.scope) {
            let i = *i;
            let plain_root = self.root(i).is_some_and(|r| !r.has_scope_names());
            match b.kind {
                _ if !plain_root => {}
                NameKind::My => return self.attr_in_side(i, n).unwrap_or(Value::Undefined),
                NameKind::Target => return self.attr_in_side(1 - i, n).unwrap_or(Value::Undefined),
                _ => {}
            }
        }
        let bv = self.nested(|ev| ev.eval(base));
        self.select_from(bv, n)
    }

    fn select_from(&mut self, bv: Value, n: &Name) -> Value {
        match bv {
            Value::Ad(adv) => self.attr_of(&adv, n),
            Value::List(l) => {
                let items = self.list_items(&l);
                let out = items
                    .into_iter()
                    .map(|v| match v {
                        Value::Ad(adv) => Expr::Lit(self.attr_of(&adv, n)),
                        Value::Undefined => Expr::Lit(Value::Undefined),
                        // A list inside the list is selected from in turn, as HTCondor
                        // does: `{{1}}.a` is `{{error}}`.
                        l @ Value::List(_) => Expr::Lit(self.select_from(l, n)),
                        _ => Expr::Lit(Value::Error),
                    })
                    .collect();
                Value::list_of(out)
            }
            Value::Undefined => Value::Undefined,
            _ => Value::Error,
        }
    }

    /// `ad.n`: the attribute looked up in that ad and the ads enclosing it; the scope
    /// names (MY, TARGET, PARENT) are taken relative to that ad.
    pub fn attr_of(&mut self, adv: &AdValue, n: &Name) -> Value {
        let scope = self.ad_scope(adv);
        match n.kind {
            NameKind::Plain => self.lookup_from(scope, n),
            _ => {
                let saved = std::mem::replace(&mut self.scope, scope);
                let v = self.eval_name(n);
                self.scope = saved;
                v
            }
        }
    }

    /// `ad["n"]`: the attribute of that very ad only.
    fn attr_here(&mut self, adv: &AdValue, n: &Name) -> Value {
        match adv.ad.get_index(n.hash, &n.text) {
            Some(idx) => {
                let scope = self.ad_scope(adv);
                self.eval_attr(&adv.ad, idx, scope)
            }
            None => Value::Undefined,
        }
    }

    fn eval_index(&mut self, base: &Expr, idx: &Expr) -> Value {
        let bv = self.nested(|ev| ev.eval(base));
        let iv = self.nested(|ev| ev.eval(idx));
        match (bv, iv) {
            (Value::Error, _) | (_, Value::Error) => Value::Error,
            (Value::Undefined, _) | (_, Value::Undefined) => Value::Undefined,
            (Value::List(l), Value::Int(i)) => {
                let item = usize::try_from(i).ok().and_then(|i| l.items.get(i));
                match item {
                    Some(Expr::Lit(v)) => v.clone(),
                    Some(e) => self.eval_in(e, l.scope.clone()),
                    None => Value::Error,
                }
            }
            (Value::Ad(adv), Value::Str(s)) => self.attr_here(&adv, &Name::new(&s)),
            _ => Value::Error,
        }
    }
}

/// Evaluate an expression with no ads in scope.
pub fn eval_standalone(e: &Expr) -> Value {
    Evaluator::new(None, None).eval(e)
}

/// Evaluate an expression in `my`, with `target` as the other ad of a match.
pub fn eval_expr(e: &Expr, my: Option<&Arc<ClassAd>>, target: Option<&Arc<ClassAd>>) -> Value {
    Evaluator::new(my, target).eval(e)
}

/// Evaluate attribute `name` of `my` (UNDEFINED when it has none).
pub fn eval_attr(my: &Arc<ClassAd>, target: Option<&Arc<ClassAd>>, name: &str) -> Value {
    let mut ev = Evaluator::new(Some(my), target);
    match my.get_index(crate::name::ci_hash(name), name) {
        Some(idx) => ev.eval_attr(my, idx, Scope::Side(0)),
        None => Value::Undefined,
    }
}
