//! User priorities, as HTCondor's accountant keeps them.
//!
//! A user's real priority follows the resources they use, with a half-life: each update
//! moves it toward the number of slots in use by `1 - 0.5^(elapsed / PRIORITY_HALFLIFE)`.
//! It never goes below 0.5. The effective priority is real priority times the user's
//! priority factor; a lower effective priority is a better one and gets a larger share.

use std::collections::HashMap;

/// HTCondor's floor on real priority.
pub const MIN_PRIORITY: f64 = 0.5;

/// HTCondor's default priority factor (DEFAULT_PRIO_FACTOR).
pub const DEFAULT_FACTOR: f64 = 1000.0;

#[derive(Debug, Clone)]
struct User {
    real: f64,
    factor: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct Accountant {
    halflife: f64,
    default_factor: f64,
    users: HashMap<String, User>,
    last_update: Option<f64>,
}

impl Accountant {
    /// An accountant with PRIORITY_HALFLIFE `halflife` seconds.
    pub fn new(halflife: f64) -> Accountant {
        Accountant {
            halflife: halflife.max(1e-9),
            default_factor: DEFAULT_FACTOR,
            users: HashMap::new(),
            last_update: None,
        }
    }

    pub fn set_default_factor(&mut self, factor: f64) {
        self.default_factor = factor;
    }

    /// `condor_userprio -setfactor`.
    pub fn set_factor(&mut self, user: &str, factor: f64) {
        self.user(user).factor = Some(factor);
    }

    fn user(&mut self, name: &str) -> &mut User {
        self.users.entry(name.to_string()).or_insert(User {
            real: MIN_PRIORITY,
            factor: None,
        })
    }

    /// Advance to time `now` (seconds), `in_use` giving each user's slots in use since the
    /// last update. Users not listed used nothing.
    pub fn update(&mut self, now: f64, in_use: &HashMap<String, f64>) {
        let elapsed = self.last_update.map_or(0.0, |t| (now - t).max(0.0));
        self.last_update = Some(now);
        let keep = 0.5f64.powf(elapsed / self.halflife);
        for name in in_use.keys() {
            self.user(name);
        }
        for (name, user) in self.users.iter_mut() {
            let used = in_use.get(name).copied().unwrap_or(0.0);
            user.real = (keep * user.real + (1.0 - keep) * used).max(MIN_PRIORITY);
        }
    }

    pub fn real_priority(&self, user: &str) -> f64 {
        self.users.get(user).map_or(MIN_PRIORITY, |u| u.real)
    }

    pub fn factor(&self, user: &str) -> f64 {
        self.users
            .get(user)
            .and_then(|u| u.factor)
            .unwrap_or(self.default_factor)
    }

    pub fn effective_priority(&self, user: &str) -> f64 {
        self.real_priority(user) * self.factor(user)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_decays_with_the_half_life() {
        let mut acc = Accountant::new(100.0);
        let busy: HashMap<String, f64> = [("alice".to_string(), 10.0)].into();
        acc.update(0.0, &busy);
        assert_eq!(
            acc.real_priority("alice"),
            MIN_PRIORITY,
            "no time has passed yet"
        );
        acc.update(100.0, &busy);
        // One half-life at 10 slots: halfway from 0.5 to 10.
        assert!((acc.real_priority("alice") - 5.25).abs() < 1e-9);
        acc.update(200.0, &HashMap::new());
        assert!((acc.real_priority("alice") - 2.625).abs() < 1e-9);
        acc.set_factor("alice", 2.0);
        assert!((acc.effective_priority("alice") - 5.25).abs() < 1e-9);
        assert_eq!(acc.effective_priority("bob"), MIN_PRIORITY * DEFAULT_FACTOR);
    }
}
