//! ClassAd: attribute names (case-insensitive, spelling kept) bound to expressions.

use std::sync::Arc;

use hashbrown::HashTable;

use crate::ast::Expr;
use crate::name::{ci_hash, Name};

/// An expression held by many ads at once, with its structural hash: the million jobs of
/// one submission write the same Requirements, and parsing them shares one tree (as
/// HTCondor's ClassAd cache does), so they take the memory of one and are recognised
/// as alike without walking a million trees.
#[derive(Debug)]
pub struct Shared {
    pub hash: u64,
    pub expr: Expr,
}

/// An attribute's expression: its own, or shared with other ads.
#[derive(Clone)]
enum Held {
    Own(Expr),
    Shared(Arc<Shared>),
}

impl Held {
    fn expr(&self) -> &Expr {
        match self {
            Held::Own(e) => e,
            Held::Shared(s) => &s.expr,
        }
    }
}

/// An ad. Attributes keep their insertion order (for printing); lookups go through a hash
/// table of indexes keyed by the case-folded hash, so a lookup never allocates.
#[derive(Clone, Default)]
pub struct ClassAd {
    attrs: Vec<(Name, Held)>,
    index: HashTable<u32>,
    /// Some attribute is named MY, TARGET, OTHER or PARENT; such an attribute hides the
    /// scope name, so the evaluator must look before it takes the fast path.
    scope_names: bool,
    /// The ad this one is chained to (a job's cluster ad, as HTCondor's queue chains proc
    /// ads): its attributes show through wherever this ad does not set its own, so the
    /// hundred thousand procs of one submission hold only what differs between them.
    parent: Option<Arc<ClassAd>>,
}

impl std::fmt::Debug for ClassAd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::unparse::unparse_ad(self))
    }
}

impl ClassAd {
    pub fn new() -> ClassAd {
        ClassAd::default()
    }

    pub fn with_capacity(n: usize) -> ClassAd {
        ClassAd {
            attrs: Vec::with_capacity(n),
            index: HashTable::with_capacity(n),
            scope_names: false,
            parent: None,
        }
    }

    /// Chain this ad to `parent`, whose attributes show through where this ad has none.
    pub fn set_parent(&mut self, parent: Option<Arc<ClassAd>>) {
        self.parent = parent;
    }

    pub fn parent(&self) -> Option<&Arc<ClassAd>> {
        self.parent.as_ref()
    }

    /// The attributes set in this ad itself, not inherited through the chain.
    pub fn own_iter(&self) -> impl Iterator<Item = (&Name, &Expr)> {
        self.attrs.iter().map(|(n, e)| (n, e.expr()))
    }

    pub fn own_len(&self) -> usize {
        self.attrs.len()
    }

    /// This ad with its chain folded in: one ad holding every attribute it shows.
    pub fn flattened(&self) -> ClassAd {
        match &self.parent {
            None => self.clone(),
            Some(p) => {
                let mut flat = p.flattened();
                for (n, e) in &self.attrs {
                    flat.insert_held(n.clone(), e.clone());
                }
                flat
            }
        }
    }

    /// Whether an attribute is named like a scope (MY, TARGET, OTHER, PARENT).
    pub fn has_scope_names(&self) -> bool {
        self.scope_names || self.parent.as_ref().is_some_and(|p| p.has_scope_names())
    }

    pub fn len(&self) -> usize {
        match &self.parent {
            None => self.attrs.len(),
            Some(_) => self.names().count(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.attrs.is_empty() && self.parent.as_ref().is_none_or(|p| p.is_empty())
    }

    /// The position of `name` in this ad or, past this ad's own positions, in its chain.
    fn find_chained(&self, hash: u64, name: &str) -> Option<usize> {
        if let Some(i) = self.find(hash, name) {
            return Some(i);
        }
        let p = self.parent.as_ref()?;
        p.find_chained(hash, name).map(|i| i + self.attrs.len())
    }

    fn held_at(&self, i: usize) -> Option<&Held> {
        match self.attrs.get(i) {
            Some((_, h)) => Some(h),
            None => self.parent.as_ref()?.held_at(i - self.attrs.len()),
        }
    }

    fn find(&self, hash: u64, name: &str) -> Option<usize> {
        self.index
            .find(hash, |&i| {
                self.attrs.get(i as usize).is_some_and(|(n, _)| {
                    // Interned names usually share their bytes: compare pointers first.
                    std::ptr::eq(n.text.as_ptr(), name.as_ptr()) && n.text.len() == name.len()
                        || n.text.eq_ignore_ascii_case(name)
                })
            })
            .map(|&i| i as usize)
    }

    /// Set `name` to `expr`; an existing attribute keeps its place and its first spelling,
    /// as HTCondor's does (`[a = 1; A = 2]` is `[a = 2]`).
    pub fn insert(&mut self, name: Name, expr: Expr) {
        self.insert_held(name, Held::Own(expr));
    }

    /// Set `name` to an expression shared with other ads.
    pub fn insert_shared(&mut self, name: Name, shared: Arc<Shared>) {
        self.insert_held(name, Held::Shared(shared));
    }

    /// Share this ad's expressions through `cache` with the other ads that go through it.
    pub fn share_exprs(&mut self, cache: &mut crate::share::ExprCache) {
        for (_, held) in self.attrs.iter_mut() {
            if let Held::Own(e) = held {
                if matches!(e, Expr::Lit(_)) {
                    continue;
                }
                let own = std::mem::replace(e, UNDEFINED_EXPR.clone());
                *held = match cache.share(own) {
                    Ok(shared) => Held::Shared(shared),
                    Err(own) => Held::Own(own),
                };
            }
        }
    }

    /// The structural hash of `name`'s expression (kept with a shared one).
    pub fn hash_of(&self, name: &str) -> Option<u64> {
        self.lookup_hashed(name).map(|(_, h)| h)
    }

    /// `name`'s expression with its structural hash, in one lookup.
    pub fn lookup_hashed(&self, name: &str) -> Option<(&Expr, u64)> {
        let i = self.find_chained(ci_hash(name), name)?;
        self.held_at(i).map(|held| match held {
            Held::Own(e) => (e, crate::fingerprint::expr_hash(e)),
            Held::Shared(s) => (&s.expr, s.hash),
        })
    }

    /// The shared expression of `name`, when it has one.
    pub fn shared(&self, name: &str) -> Option<&Arc<Shared>> {
        let i = self.find_chained(ci_hash(name), name)?;
        match self.held_at(i) {
            Some(Held::Shared(s)) => Some(s),
            _ => None,
        }
    }

    fn insert_held(&mut self, name: Name, expr: Held) {
        self.scope_names |= name.kind != crate::name::NameKind::Plain;
        match self.find(name.hash, &name.text) {
            Some(i) => {
                if let Some(slot) = self.attrs.get_mut(i) {
                    slot.1 = expr;
                }
            }
            None => {
                let i = self.attrs.len() as u32;
                let hash = name.hash;
                self.attrs.push((name, expr));
                let attrs = &self.attrs;
                self.index.insert_unique(hash, i, |&j| {
                    attrs.get(j as usize).map_or(0, |(n, _)| n.hash)
                });
            }
        }
    }

    pub fn insert_str(&mut self, name: &str, expr: Expr) {
        self.insert(Name::new(name), expr);
    }

    pub fn lookup(&self, name: &str) -> Option<&Expr> {
        self.get_index(ci_hash(name), name).map(|i| self.expr_at(i))
    }

    /// The attribute's position, for the evaluator's cycle guard.
    pub fn get_index(&self, hash: u64, name: &str) -> Option<usize> {
        self.find_chained(hash, name)
    }

    pub fn lookup_name(&self, name: &Name) -> Option<&Expr> {
        self.find_chained(name.hash, &name.text)
            .map(|i| self.expr_at(i))
    }

    pub(crate) fn expr_at(&self, i: usize) -> &Expr {
        match self.held_at(i) {
            Some(e) => e.expr(),
            None => &UNDEFINED_EXPR,
        }
    }

    /// Remove an attribute set in this ad itself (a chained parent's stays visible);
    /// returns whether it was there. Later attributes keep their order.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(i) = self.find(ci_hash(name), name) else {
            return false;
        };
        self.attrs.remove(i);
        self.rebuild_index();
        true
    }

    fn rebuild_index(&mut self) {
        self.index.clear();
        for (i, (n, _)) in self.attrs.iter().enumerate() {
            let attrs = &self.attrs;
            self.index.insert_unique(n.hash, i as u32, |&j| {
                attrs.get(j as usize).map_or(0, |(n, _)| n.hash)
            });
        }
    }

    pub fn contains(&self, name: &str) -> bool {
        self.find_chained(ci_hash(name), name).is_some()
    }

    /// Every attribute the ad shows: its own in order, then its chain's that it does not set.
    pub fn iter(&self) -> Box<dyn Iterator<Item = (&Name, &Expr)> + '_> {
        let own = self.attrs.iter().map(|(n, e)| (n, e.expr()));
        match &self.parent {
            None => Box::new(own),
            Some(p) => Box::new(
                own.chain(
                    p.iter()
                        .filter(move |(n, _)| self.find(n.hash, &n.text).is_none()),
                ),
            ),
        }
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.iter().map(|(n, _)| n.as_str())
    }

    /// Copy every attribute `other` shows into this ad (other wins).
    pub fn update(&mut self, other: &ClassAd) {
        let flat;
        let src = match other.parent {
            None => other,
            Some(_) => {
                flat = other.flattened();
                &flat
            }
        };
        for (n, e) in &src.attrs {
            self.insert_held(n.clone(), e.clone());
        }
    }

    pub fn clear(&mut self) {
        self.attrs.clear();
        self.index.clear();
        self.scope_names = false;
        self.parent = None;
    }
}

static UNDEFINED_EXPR: Expr = Expr::Lit(crate::value::Value::Undefined);
