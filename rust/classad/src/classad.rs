//! ClassAd: attribute names (case-insensitive, spelling kept) bound to expressions.

use hashbrown::HashTable;

use crate::ast::Expr;
use crate::name::{ci_hash, Name};

/// An ad. Attributes keep their insertion order (for printing); lookups go through a hash
/// table of indexes keyed by the case-folded hash, so a lookup never allocates.
#[derive(Clone, Default)]
pub struct ClassAd {
    attrs: Vec<(Name, Expr)>,
    index: HashTable<u32>,
    /// Some attribute is named MY, TARGET, OTHER or PARENT; such an attribute hides the
    /// scope name, so the evaluator must look before it takes the fast path.
    scope_names: bool,
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
        }
    }

    /// Whether an attribute is named like a scope (MY, TARGET, OTHER, PARENT).
    pub fn has_scope_names(&self) -> bool {
        self.scope_names
    }

    pub fn len(&self) -> usize {
        self.attrs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.attrs.is_empty()
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

    /// Set `name` to `expr`; an existing attribute keeps its place and its first spelling
    /// (`[Name = 1; NAME = 2]` is `[Name = 2]`), as HTCondor's case-blind map does.
    pub fn insert(&mut self, name: Name, expr: Expr) {
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
        self.find(hash, name)
    }

    pub fn lookup_name(&self, name: &Name) -> Option<&Expr> {
        self.find(name.hash, &name.text).map(|i| self.expr_at(i))
    }

    pub(crate) fn expr_at(&self, i: usize) -> &Expr {
        match self.attrs.get(i) {
            Some((_, e)) => e,
            None => &UNDEFINED_EXPR,
        }
    }

    /// Remove an attribute; returns whether it was there. Later attributes keep their order.
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
        self.find(ci_hash(name), name).is_some()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Name, &Expr)> {
        self.attrs.iter().map(|(n, e)| (n, e))
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.attrs.iter().map(|(n, _)| n.as_str())
    }

    /// Copy every attribute of `other` into this ad (other wins).
    pub fn update(&mut self, other: &ClassAd) {
        for (n, e) in other.iter() {
            self.insert(n.clone(), e.clone());
        }
    }

    pub fn clear(&mut self) {
        self.attrs.clear();
        self.index.clear();
        self.scope_names = false;
    }
}

static UNDEFINED_EXPR: Expr = Expr::Lit(crate::value::Value::Undefined);
