//! The process's user maps, for `userMap()`: named lists of rules read from map files
//! (a schedd's SCHEDD_CLASSAD_USER_MAP_NAMES and CLASSAD_USER_MAPFILE_<name>), each a
//! principal (a literal name, or a regular expression) and what it maps to (for groups,
//! a comma-separated list). The first rule whose principal matches gives the answer; a
//! regular expression's `\1`..`\9` in the answer are its captures.

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use regex::Regex;

pub enum Principal {
    Literal(String),
    Pattern(Regex),
}

impl Principal {
    /// A regular expression's principal; the engine's error when it does not read.
    pub fn pattern(text: &str) -> Result<Principal, String> {
        Regex::new(text)
            .map(Principal::Pattern)
            .map_err(|e| e.to_string())
    }
}

pub struct Rule {
    pub principal: Principal,
    pub canonical: String,
}

fn maps() -> &'static RwLock<HashMap<String, Vec<Rule>>> {
    static MAPS: OnceLock<RwLock<HashMap<String, Vec<Rule>>>> = OnceLock::new();
    MAPS.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Replace every map with `named` (map names ignore case).
pub fn set_all(named: Vec<(String, Vec<Rule>)>) {
    let table = named
        .into_iter()
        .map(|(name, rules)| (name.to_ascii_lowercase(), rules))
        .collect();
    if let Ok(mut m) = maps().write() {
        *m = table;
    }
}

/// What `input` maps to in the map `name`; None when the map has no rule for it.
pub fn map(name: &str, input: &str) -> Option<String> {
    let m = maps().read().ok()?;
    let rules = m.get(&name.to_ascii_lowercase())?;
    rules.iter().find_map(|r| match &r.principal {
        Principal::Literal(p) => (p == input).then(|| r.canonical.clone()),
        Principal::Pattern(re) => re.captures(input).map(|c| substitute(&r.canonical, &c)),
    })
}

/// `\N` in `canonical` replaced by capture N (empty when it did not take part).
fn substitute(canonical: &str, caps: &regex::Captures<'_>) -> String {
    let mut out = String::with_capacity(canonical.len());
    let mut chars = canonical.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek().and_then(|d| d.to_digit(10))) {
            ('\\', Some(n)) => {
                chars.next();
                out.push_str(caps.get(n as usize).map_or("", |m| m.as_str()));
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_then_pattern_with_captures() {
        set_all(vec![(
            "Groups".into(),
            vec![
                Rule {
                    principal: Principal::Literal("alice".into()),
                    canonical: "cs,condor".into(),
                },
                Rule {
                    principal: Principal::Pattern(Regex::new("^(.*)@physics$").unwrap()),
                    canonical: "phys_\\1".into(),
                },
            ],
        )]);
        assert_eq!(map("groups", "alice").as_deref(), Some("cs,condor"));
        assert_eq!(map("GROUPS", "bob@physics").as_deref(), Some("phys_bob"));
        assert_eq!(map("groups", "carol"), None);
        assert_eq!(map("nosuch", "alice"), None);
    }
}
