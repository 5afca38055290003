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
    in_use: f64,
    /// Slot-seconds used since the record began or was last reset.
    accumulated: f64,
    /// When the user first used anything since then (0: never).
    begin: f64,
    /// When the user last used anything (0: never).
    last: f64,
}

/// One user's record as `condor_userprio` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct UserRecord {
    pub name: String,
    pub real_priority: f64,
    pub factor: f64,
    pub in_use: f64,
    pub accumulated: f64,
    pub begin: f64,
    pub last: f64,
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
            in_use: 0.0,
            accumulated: 0.0,
            begin: 0.0,
            last: 0.0,
        })
    }

    /// `condor_userprio -setprio`: the real priority (never below the floor).
    pub fn set_priority(&mut self, user: &str, real: f64) {
        self.user(user).real = real.max(MIN_PRIORITY);
    }

    /// `-setaccum`, `-setbegin`, `-setlast`.
    pub fn set_accumulated(&mut self, user: &str, seconds: f64) {
        self.user(user).accumulated = seconds.max(0.0);
    }

    pub fn set_begin(&mut self, user: &str, when: f64) {
        self.user(user).begin = when;
    }

    pub fn set_last(&mut self, user: &str, when: f64) {
        self.user(user).last = when;
    }

    /// `-resetusage`: the accumulated usage starts again from `now`.
    pub fn reset_usage(&mut self, user: &str, now: f64) {
        let u = self.user(user);
        u.accumulated = 0.0;
        u.begin = now;
    }

    /// `-resetall`: every user's accumulated usage starts again from `now`.
    pub fn reset_all(&mut self, now: f64) {
        let names: Vec<String> = self.users.keys().cloned().collect();
        for name in names {
            self.reset_usage(&name, now);
        }
    }

    /// `-delete`: whether there was such a record.
    /// Whether the accountant has a record of `user`.
    pub fn knows(&self, user: &str) -> bool {
        self.users.contains_key(user)
    }

    pub fn delete(&mut self, user: &str) -> bool {
        self.users.remove(user).is_some()
    }

    /// Every user's record, sorted by name.
    pub fn records(&self) -> Vec<UserRecord> {
        let mut out: Vec<UserRecord> = self
            .users
            .iter()
            .map(|(name, u)| UserRecord {
                name: name.clone(),
                real_priority: u.real,
                factor: u.factor.unwrap_or(self.default_factor),
                in_use: u.in_use,
                accumulated: u.accumulated,
                begin: u.begin,
                last: u.last,
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// A record as saved (`records`), restored; its factor stays the default's when it is.
    pub fn restore(&mut self, r: &UserRecord) {
        let default = self.default_factor;
        let u = self.user(&r.name);
        u.real = r.real_priority.max(MIN_PRIORITY);
        u.factor = (r.factor != default).then_some(r.factor);
        u.accumulated = r.accumulated;
        u.begin = r.begin;
        u.last = r.last;
    }

    /// When priorities were last brought up to date (0: never).
    pub fn last_update(&self) -> f64 {
        self.last_update.unwrap_or(0.0)
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
            // What was in use since the last update is charged for that time.
            user.accumulated += user.in_use * elapsed;
            user.in_use = used;
            if used > 0.0 {
                if user.begin == 0.0 {
                    user.begin = now;
                }
                user.last = now;
            }
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

    #[test]
    fn usage_is_accumulated_with_its_times_and_can_be_reset_and_restored() {
        let mut acc = Accountant::new(100.0);
        let busy: HashMap<String, f64> = [("alice".to_string(), 4.0)].into();
        acc.update(10.0, &busy);
        acc.update(70.0, &busy); // 4 slots for 60 s
        acc.update(100.0, &HashMap::new()); // and for 30 s more, then none
        let r = &acc.records()[0];
        assert_eq!((r.name.as_str(), r.accumulated), ("alice", 360.0));
        assert_eq!((r.begin, r.last, r.in_use), (10.0, 70.0, 0.0));
        acc.reset_usage("alice", 200.0);
        assert_eq!(
            (acc.records()[0].accumulated, acc.records()[0].begin),
            (0.0, 200.0)
        );
        acc.set_priority("alice", 0.1);
        assert_eq!(acc.real_priority("alice"), MIN_PRIORITY);
        acc.set_factor("alice", 3.0);
        let saved = acc.records();
        let mut again = Accountant::new(100.0);
        for r in &saved {
            again.restore(r);
        }
        assert_eq!(again.records(), saved);
        assert!(again.delete("alice") && !again.delete("alice"));
        assert!(again.records().is_empty());
    }
}
