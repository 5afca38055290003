//! Concurrency limits, as HTCondor's negotiator keeps them: how much of each named limit
//! the pool's running jobs hold (counted from the slots at the start of the cycle), and
//! each match of the cycle adding its job's amounts.
//!
//! A job's ConcurrencyLimits is `name[:amount]` words, comma or blank separated, without
//! case (ParseConcurrencyLimit: a name is an attribute name, or two joined by a dot; the
//! amount is 1 unless it is a number above zero). A job is refused while any of its
//! limits would go above its maximum: `<NAME>_LIMIT`, else
//! CONCURRENCY_LIMIT_DEFAULT_<tag> for a name `tag.x`, else CONCURRENCY_LIMIT_DEFAULT.

use std::collections::HashMap;

/// One job's claim on the limits: each name (lowercase) with its amount.
pub type Wants = Vec<(String, f64)>;

#[derive(Debug, Clone, Default)]
pub struct LimitsConfig {
    /// `<NAME>_LIMIT`, by lowercase name.
    pub maxima: HashMap<String, f64>,
    /// CONCURRENCY_LIMIT_DEFAULT_<tag>, by lowercase tag.
    pub scoped: HashMap<String, f64>,
    /// CONCURRENCY_LIMIT_DEFAULT.
    pub default: f64,
    /// What the running jobs hold at the start of the cycle, by lowercase name.
    pub in_use: HashMap<String, f64>,
}

impl LimitsConfig {
    /// The most of `name` the pool allows.
    pub fn max(&self, name: &str) -> f64 {
        if let Some(m) = self.maxima.get(name) {
            return *m;
        }
        let scoped = name
            .rfind('.')
            .and_then(|dot| self.scoped.get(&name[..dot]));
        scoped.copied().unwrap_or(self.default)
    }
}

/// The limits' counts through a cycle.
#[derive(Debug, Clone)]
pub struct Limits {
    pub used: HashMap<String, f64>,
}

impl Limits {
    pub fn start(config: &LimitsConfig) -> Limits {
        Limits {
            used: config.in_use.clone(),
        }
    }

    /// The first of `wants` that has no room left for its amount, if any (a count
    /// below zero refuses too, as HTCondor's does).
    pub fn refuses<'w>(&self, config: &LimitsConfig, wants: &'w Wants) -> Option<&'w str> {
        wants.iter().find_map(|(name, amount)| {
            let count = self.used.get(name).copied().unwrap_or(0.0);
            (count < 0.0 || count + amount > config.max(name)).then_some(name.as_str())
        })
    }

    /// A match takes its job's amounts.
    pub fn take(&mut self, wants: &Wants) {
        for (name, amount) in wants {
            *self.used.entry(name.clone()).or_insert(0.0) += amount;
        }
    }
}

/// The valid limits of a ConcurrencyLimits string, lowercased (an invalid one is
/// ignored, as the negotiator ignores it).
pub fn parse(text: &str) -> Wants {
    text.to_lowercase()
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .filter_map(parse_one)
        .collect()
}

fn parse_one(word: &str) -> Option<(String, f64)> {
    let (name, amount) = match word.split_once(':') {
        Some((name, amount)) => (name, leading_number(amount)),
        None => (word, 1.0),
    };
    let amount = if amount > 0.0 { amount } else { 1.0 };
    let valid = match name.split_once('.') {
        Some((head, tail)) => is_attr_name(head) && is_attr_name(tail),
        None => is_attr_name(name),
    };
    valid.then(|| (name.to_string(), amount))
}

/// strtod's reading: the longest number at the start of `text` (0 when there is none).
fn leading_number(text: &str) -> f64 {
    let text = text.trim_start();
    (1..=text.len())
        .rev()
        .filter(|&end| text.is_char_boundary(end))
        .find_map(|end| {
            let head = &text[..end];
            let numeric = head
                .chars()
                .all(|c| c.is_ascii_digit() || "+-.eE".contains(c));
            numeric.then(|| head.parse::<f64>().ok()).flatten()
        })
        .unwrap_or(0.0)
}

fn is_attr_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_amounts_and_invalid_names() {
        assert_eq!(
            parse("Sw_A, b.C:2.5 x:abc y:0 9a a.b.c z:-3 w:1.5e1kg"),
            vec![
                ("sw_a".to_string(), 1.0),
                ("b.c".to_string(), 2.5),
                ("x".to_string(), 1.0),
                ("y".to_string(), 1.0),
                ("z".to_string(), 1.0),
                ("w".to_string(), 15.0),
            ]
        );
    }

    #[test]
    fn the_maximum_of_a_name_a_scope_and_the_default() {
        let config = LimitsConfig {
            maxima: HashMap::from([("sw_a".to_string(), 2.0)]),
            scoped: HashMap::from([("lic".to_string(), 5.0)]),
            default: 7.0,
            in_use: HashMap::from([("sw_a".to_string(), 1.5)]),
        };
        assert_eq!(config.max("sw_a"), 2.0);
        assert_eq!(config.max("lic.matlab"), 5.0);
        assert_eq!(config.max("other"), 7.0);
        let mut limits = Limits::start(&config);
        let half = parse("sw_a:0.5");
        assert_eq!(limits.refuses(&config, &half), None);
        limits.take(&half);
        assert_eq!(limits.refuses(&config, &half), Some("sw_a"));
        assert_eq!(limits.refuses(&config, &parse("other:7")), None);
        assert_eq!(limits.refuses(&config, &parse("other:7.5")), Some("other"));
    }
}
