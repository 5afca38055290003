//! `set_user_maps`: the process's user maps for `userMap()`, as the schedd reads them
//! from its map files (the parsing, with file and line for errors, is Python's).

use condorx_classad::usermaps::{set_all, Principal, Rule};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// One rule: (principal, whether it is a regular expression, what it maps to).
type RuleRow = (String, bool, String);

/// Replace every user map with `maps` (name, rules in order). A principal that is not a
/// regular expression this engine reads is refused, naming the map and the rule's index.
#[pyfunction]
fn set_user_maps(maps: Vec<(String, Vec<RuleRow>)>) -> PyResult<()> {
    let mut named = Vec::with_capacity(maps.len());
    for (name, rows) in maps {
        let mut rules = Vec::with_capacity(rows.len());
        for (i, (principal, is_regex, canonical)) in rows.into_iter().enumerate() {
            let principal = if is_regex {
                Principal::pattern(&principal).map_err(|e| {
                    PyValueError::new_err(format!("map {name}, rule {i}: bad regex: {e}"))
                })?
            } else {
                Principal::Literal(principal)
            };
            rules.push(Rule {
                principal,
                canonical,
            });
        }
        named.push((name, rules));
    }
    set_all(named);
    Ok(())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_user_maps, m)?)?;
    Ok(())
}
