//! The accounting-group tree of GROUP_NAMES, built as HTCondor's negotiator builds it,
//! and the group each submitter is charged to.
//!
//! Names are dotted paths (`group_physics.hep`), compared without regard to case. The root
//! is `<none>`: every submitter outside a defined group belongs to it. A name whose parent
//! is not defined, a duplicate, or the reserved `<none>` is dropped with a warning, as
//! HTCondor drops it (GroupEntry.cpp, hgq_construct_tree).

use std::collections::HashMap;

/// The root group's name.
pub const ROOT: &str = "<none>";

/// A group's configured quota.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Quota {
    /// GROUP_QUOTA_<g>: a number of (weighted) slots.
    Static(f64),
    /// GROUP_QUOTA_DYNAMIC_<g>: a fraction of what the parent has left after its static
    /// children.
    Dynamic(f64),
}

impl Quota {
    pub fn value(self) -> f64 {
        match self {
            Quota::Static(v) | Quota::Dynamic(v) => v,
        }
    }

    pub fn is_static(self) -> bool {
        matches!(self, Quota::Static(_))
    }
}

/// One name of GROUP_NAMES with its knobs, as the configuration gives them.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupSpec {
    pub name: String,
    /// None when neither GROUP_QUOTA_<g> nor GROUP_QUOTA_DYNAMIC_<g> is set.
    pub quota: Option<Quota>,
    /// GROUP_ACCEPT_SURPLUS_<g>, defaulting to GROUP_ACCEPT_SURPLUS.
    pub accept_surplus: bool,
    /// GROUP_AUTOREGROUP_<g>, defaulting to GROUP_AUTOREGROUP.
    pub autoregroup: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The full dotted name, spelt as in GROUP_NAMES.
    pub name: String,
    pub parent: Option<usize>,
    /// In the order of their names, compared without case.
    pub children: Vec<usize>,
    pub quota: Quota,
    pub accept_surplus: bool,
    pub autoregroup: bool,
}

/// The groups, root first, then breadth first.
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    pub groups: Vec<Group>,
    /// GROUP_ACCEPT_SURPLUS, or any group accepting surplus.
    pub accept_surplus: bool,
    /// GROUP_AUTOREGROUP, or any group regrouping: the root then negotiates last, for the
    /// autoregrouping groups' submitters too.
    pub autoregroup: bool,
    /// Full names, lower-cased, to their group.
    by_name: HashMap<String, usize>,
}

impl Tree {
    /// A pool without groups: the root alone.
    pub fn flat() -> Tree {
        Tree::build(&[], false, false).0
    }

    /// The tree of `specs`, with a warning for each name dropped or defaulted.
    /// `accept_surplus` and `autoregroup` are the global GROUP_ACCEPT_SURPLUS and
    /// GROUP_AUTOREGROUP.
    pub fn build(
        specs: &[GroupSpec],
        accept_surplus: bool,
        autoregroup: bool,
    ) -> (Tree, Vec<String>) {
        let mut warnings = Vec::new();
        let mut specs: Vec<&GroupSpec> = specs
            .iter()
            .filter(|s| {
                let reserved = s.name == ROOT;
                if reserved {
                    warnings.push(format!(
                        "group quotas: ERROR: group name \"{ROOT}\" is reserved for root group -- ignoring this group"
                    ));
                }
                !reserved && !s.name.is_empty()
            })
            .collect();
        // A parent's name sorts before its children's.
        specs.sort_by_key(|s| s.name.to_lowercase());
        let mut nodes = vec![Group {
            name: ROOT.to_string(),
            parent: None,
            children: Vec::new(),
            quota: Quota::Dynamic(0.0),
            accept_surplus: true,
            autoregroup: false,
        }];
        let mut global_surplus = accept_surplus;
        let mut global_regroup = autoregroup;
        for spec in specs {
            let Some(parent) = parent_of(&nodes, &spec.name, &mut warnings) else {
                continue;
            };
            let quota = spec.quota.unwrap_or_else(|| {
                warnings.push(format!(
                    "group quotas: WARNING: no quota specified for group \"{}\", defaulting to zero",
                    spec.name
                ));
                Quota::Dynamic(0.0)
            });
            global_surplus |= spec.accept_surplus;
            global_regroup |= spec.autoregroup;
            let index = nodes.len();
            nodes.push(Group {
                name: spec.name.clone(),
                parent: Some(parent),
                children: Vec::new(),
                quota: clamp_quota(quota, &spec.name, &mut warnings),
                accept_surplus: spec.accept_surplus,
                autoregroup: spec.autoregroup,
            });
            if let Some(p) = nodes.get_mut(parent) {
                p.children.push(index);
            }
        }
        if let Some(root) = nodes.first_mut() {
            root.autoregroup = global_regroup;
        }
        let tree = Tree::breadth_first(nodes, global_surplus, global_regroup);
        (tree, warnings)
    }

    /// Renumber `nodes` breadth first from the root (the order HTCondor lists its groups).
    fn breadth_first(nodes: Vec<Group>, accept_surplus: bool, autoregroup: bool) -> Tree {
        let mut order = vec![0];
        let mut i = 0;
        while let Some(&n) = order.get(i) {
            if let Some(node) = nodes.get(n) {
                order.extend(node.children.iter().copied());
            }
            i += 1;
        }
        let mut new_index = vec![0; nodes.len()];
        for (new, &old) in order.iter().enumerate() {
            if let Some(slot) = new_index.get_mut(old) {
                *slot = new;
            }
        }
        let renumber = |i: usize| new_index.get(i).copied().unwrap_or(0);
        let groups: Vec<Group> = order
            .iter()
            .filter_map(|&old| nodes.get(old))
            .map(|g| Group {
                parent: g.parent.map(renumber),
                children: g.children.iter().map(|&c| renumber(c)).collect(),
                ..g.clone()
            })
            .collect();
        let by_name = groups
            .iter()
            .enumerate()
            .map(|(i, g)| (g.name.to_lowercase(), i))
            .collect();
        Tree {
            groups,
            accept_surplus,
            autoregroup,
            by_name,
        }
    }

    pub fn len(&self) -> usize {
        self.groups.len()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Whether any group is defined (HTCondor negotiates by group only then).
    pub fn has_groups(&self) -> bool {
        self.groups.len() > 1
    }

    pub fn group(&self, index: usize) -> Option<&Group> {
        self.groups.get(index)
    }

    pub fn name(&self, index: usize) -> &str {
        self.groups.get(index).map_or(ROOT, |g| g.name.as_str())
    }

    /// The defined group named `name`, ignoring case.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.by_name.get(&name.to_lowercase()).copied()
    }

    /// The group a submitter is charged to: for `group.user@domain`, the deepest defined
    /// group along `group`'s path; a name without a group part, or whose first component
    /// is not defined, belongs to the root. A name without `@` is taken as a group's own
    /// name (its accounting record), the root when no such group is defined.
    pub fn assigned(&self, submitter: &str) -> usize {
        let Some(at) = submitter.rfind('@') else {
            return self.find(submitter).unwrap_or(0);
        };
        let account = submitter.get(..at).unwrap_or("");
        let Some(dot) = account.rfind('.') else {
            return 0;
        };
        let mut node = 0;
        for part in account.get(..dot).unwrap_or("").split('.') {
            match self.child_named(node, part) {
                Some(c) => node = c,
                None => break,
            }
        }
        node
    }

    fn child_named(&self, parent: usize, component: &str) -> Option<usize> {
        child_named(&self.groups, parent, component)
    }

    /// `index` and its ancestors, up to the root.
    pub fn path_up(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(Some(index), |&i| self.groups.get(i).and_then(|g| g.parent))
    }
}

fn last_component(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// The child of `parent` whose last name component is `component`, ignoring case.
fn child_named(nodes: &[Group], parent: usize, component: &str) -> Option<usize> {
    let children = &nodes.get(parent)?.children;
    children.iter().copied().find(|&c| {
        nodes
            .get(c)
            .is_some_and(|g| last_component(&g.name).eq_ignore_ascii_case(component))
    })
}

/// The parent a new group hangs from: every component but the last must name a group
/// already defined, and the last must not be taken.
fn parent_of(nodes: &[Group], name: &str, warnings: &mut Vec<String>) -> Option<usize> {
    let parts: Vec<&str> = name.split('.').collect();
    let (last, path) = parts.split_last()?;
    let mut node = 0;
    for part in path {
        match child_named(nodes, node, part) {
            Some(c) => node = c,
            None => {
                warnings.push(format!(
                    "group quotas: WARNING: ignoring group name {name} with missing parent {part}"
                ));
                return None;
            }
        }
    }
    if child_named(nodes, node, last).is_some() {
        warnings.push(format!(
            "group quotas: WARNING: ignoring duplicate group name {name}"
        ));
        return None;
    }
    Some(node)
}

fn clamp_quota(quota: Quota, name: &str, warnings: &mut Vec<String>) -> Quota {
    let bad = |v: f64| !v.is_finite() || v < 0.0;
    match quota {
        Quota::Static(v) | Quota::Dynamic(v) if bad(v) => {
            warnings.push(format!(
                "group quotas: ERROR: negative quota ({v}) for group {name}, setting it to zero"
            ));
            match quota {
                Quota::Static(_) => Quota::Static(0.0),
                Quota::Dynamic(_) => Quota::Dynamic(0.0),
            }
        }
        Quota::Dynamic(v) if v > 1.0 => Quota::Dynamic(1.0),
        q => q,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn spec(name: &str, quota: Option<Quota>) -> GroupSpec {
        GroupSpec {
            name: name.into(),
            quota,
            accept_surplus: false,
            autoregroup: false,
        }
    }

    fn manual_tree() -> Tree {
        let specs = [
            spec("group_physics", Some(Quota::Static(20.0))),
            spec("group_physics.hep", Some(Quota::Static(15.0))),
            spec("group_physics.lep", Some(Quota::Static(5.0))),
            spec("group_chemistry", Some(Quota::Static(10.0))),
        ];
        Tree::build(&specs, false, false).0
    }

    #[test]
    fn groups_are_listed_root_first_then_breadth_first_by_name() {
        let tree = manual_tree();
        let names: Vec<&str> = tree.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "<none>",
                "group_chemistry",
                "group_physics",
                "group_physics.hep",
                "group_physics.lep"
            ]
        );
        assert_eq!(tree.groups[3].parent, Some(2));
        assert_eq!(tree.groups[2].children, [3, 4]);
        assert_eq!(tree.groups[0].children, [1, 2]);
    }

    #[test]
    fn a_submitter_goes_to_its_deepest_defined_group_ignoring_case() {
        let tree = manual_tree();
        assert_eq!(tree.assigned("group_physics.hep.higgs@cs.wisc.edu"), 3);
        assert_eq!(tree.assigned("GROUP_Physics.HEP.higgs@cs.wisc.edu"), 3);
        assert_eq!(tree.assigned("group_physics.hep.sub.higgs@x"), 3);
        assert_eq!(tree.assigned("group_physics.nope.higgs@x"), 2);
        assert_eq!(tree.assigned("group_physics.alice@x"), 2);
        assert_eq!(tree.assigned("alice@x"), 0);
        assert_eq!(tree.assigned("group_biology.alice@x"), 0);
        assert_eq!(
            tree.assigned("group_physics.hep"),
            3,
            "a group's own record"
        );
        assert_eq!(tree.assigned("retired_group"), 0);
    }

    #[test]
    fn bad_names_are_dropped_with_htcondors_warnings() {
        let specs = [
            spec("<none>", Some(Quota::Static(1.0))),
            spec("a", None),
            spec("A", Some(Quota::Static(3.0))),
            spec("b.c", Some(Quota::Static(1.0))),
            spec("a.x", Some(Quota::Static(-4.0))),
        ];
        let (tree, warnings) = Tree::build(&specs, false, false);
        assert_eq!(tree.len(), 3, "{tree:?}");
        assert_eq!(tree.find("A"), tree.find("a"));
        assert_eq!(tree.groups[2].quota, Quota::Static(0.0));
        let text = warnings.join("\n");
        for expected in [
            "group name \"<none>\" is reserved for root group -- ignoring this group",
            "ignoring duplicate group name",
            "ignoring group name b.c with missing parent b",
            "negative quota (-4) for group a.x",
        ] {
            assert!(text.contains(expected), "{expected:?} not in {text}");
        }
    }

    #[test]
    fn the_root_accepts_surplus_and_regroups_if_any_group_does() {
        let mut s = spec("a", Some(Quota::Dynamic(0.5)));
        s.autoregroup = true;
        let (tree, _) = Tree::build(&[s, spec("b", None)], false, false);
        assert!(tree.autoregroup && tree.groups[0].autoregroup);
        assert!(
            !tree.accept_surplus,
            "the root's own acceptance does not count"
        );
        assert!(tree.groups[0].accept_surplus);
        assert!(!Tree::flat().has_groups());
    }
}
