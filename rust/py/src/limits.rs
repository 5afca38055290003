//! Concurrency limits for the negotiator: the pool's maxima, what the running jobs hold
//! at the start of a cycle, and the counts once the cycle's matches are added.

use std::collections::HashMap;

use condorx_matchmaking::limits::{self, LimitsConfig};
use pyo3::prelude::*;

#[pyclass(name = "ConcurrencyLimits", module = "condorx.language.negotiation")]
pub struct PyLimits {
    config: LimitsConfig,
    last: HashMap<String, f64>,
}

#[pymethods]
impl PyLimits {
    /// `maxima`: <NAME>_LIMIT by name; `scoped`: CONCURRENCY_LIMIT_DEFAULT_<tag> by tag;
    /// `default`: CONCURRENCY_LIMIT_DEFAULT (names and tags are taken without case).
    #[new]
    #[pyo3(signature = (maxima, scoped, default))]
    fn new(maxima: HashMap<String, f64>, scoped: HashMap<String, f64>, default: f64) -> PyLimits {
        let lower = |m: HashMap<String, f64>| -> HashMap<String, f64> {
            m.into_iter().map(|(k, v)| (k.to_lowercase(), v)).collect()
        };
        PyLimits {
            config: LimitsConfig {
                maxima: lower(maxima),
                scoped: lower(scoped),
                default,
                in_use: HashMap::new(),
            },
            last: HashMap::new(),
        }
    }

    /// What the running jobs hold now: each slot's ConcurrencyLimits strings, counted.
    fn hold(&mut self, strings: Vec<String>) {
        let mut in_use: HashMap<String, f64> = HashMap::new();
        for text in &strings {
            for (name, amount) in limits::parse(text) {
                *in_use.entry(name).or_insert(0.0) += amount;
            }
        }
        self.config.in_use = in_use;
    }

    /// The most of `name` the pool allows.
    fn maximum(&self, name: &str) -> f64 {
        self.config.max(&name.to_lowercase())
    }

    /// The counts after the last cycle (what was held, and what it matched), by name.
    fn counts(&self) -> HashMap<String, f64> {
        self.last.clone()
    }

    /// The valid limits of a ConcurrencyLimits string: (name lowercased, amount).
    #[staticmethod]
    fn parse(text: &str) -> Vec<(String, f64)> {
        limits::parse(text)
    }
}

impl PyLimits {
    pub fn config(&self) -> LimitsConfig {
        self.config.clone()
    }

    pub fn record(&mut self, counts: Option<HashMap<String, f64>>) {
        self.last = counts.unwrap_or_else(|| self.config.in_use.clone());
    }
}
