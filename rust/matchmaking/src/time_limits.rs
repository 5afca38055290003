//! The negotiator's time limits, as HTCondor's matchmaker keeps them through a cycle:
//! NEGOTIATOR_MAX_TIME_PER_SUBMITTER (the time a submitter's turns take, all its spins
//! of the pie together), _PER_SCHEDD (its schedd's submitters together), _PER_CYCLE
//! (from the cycle's start) and _PER_PIESPIN (one turn). A submitter out of time is
//! passed over for the rest of the cycle; a turn stops at its deadline, the earliest of
//! the four.
//!
//! Time already spent before matching (fetching each schedd's jobs, in HTCondor part of
//! the negotiation itself) counts as the submitters' and their schedds' (`spent`).

use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct TimeLimits {
    pub per_submitter: f64,
    pub per_schedd: f64,
    pub per_cycle: f64,
    pub per_spin: f64,
    /// Each submitter's schedd (by index).
    pub schedd_of: Vec<usize>,
    /// Seconds each submitter has used before matching begins.
    pub spent: Vec<f64>,
}

impl TimeLimits {
    /// HTCondor's defaults: 60 s a submitter, 120 s a schedd, 1200 s a cycle, 120 s a
    /// turn, for `submitters` submitters each of its own schedd.
    pub fn defaults(submitters: usize) -> TimeLimits {
        TimeLimits {
            per_submitter: 60.0,
            per_schedd: 120.0,
            per_cycle: 1200.0,
            per_spin: 120.0,
            schedd_of: (0..submitters).collect(),
            spent: vec![0.0; submitters],
        }
    }
}

/// The clock of one cycle's time limits: what each submitter and schedd has used.
#[derive(Debug)]
pub struct Timer {
    limits: TimeLimits,
    started: Instant,
    submitter: Vec<f64>,
    schedd: Vec<f64>,
}

/// Why a submitter gets no turn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OutOfTime {
    Submitter,
    Schedd,
    Cycle,
}

impl Timer {
    pub fn start(limits: TimeLimits, started: Instant) -> Timer {
        let schedds = limits.schedd_of.iter().max().map_or(0, |m| m + 1);
        let mut schedd = vec![0.0; schedds];
        for (i, s) in limits.spent.iter().enumerate() {
            if let Some(total) = limits.schedd_of.get(i).and_then(|&k| schedd.get_mut(k)) {
                *total += s;
            }
        }
        Timer {
            submitter: limits.spent.clone(),
            schedd,
            limits,
            started,
        }
    }

    fn used(&self, party: usize) -> (f64, f64) {
        let mine = self.submitter.get(party).copied().unwrap_or(0.0);
        let schedd = self
            .limits
            .schedd_of
            .get(party)
            .and_then(|&k| self.schedd.get(k))
            .copied()
            .unwrap_or(0.0);
        (mine, schedd)
    }

    /// The deadline of `party`'s turn now, or why it gets none (in HTCondor's order).
    pub fn turn(&self, party: usize, now: Instant) -> Result<Instant, OutOfTime> {
        let (mine, schedd) = self.used(party);
        let l = &self.limits;
        let left_mine = l.per_submitter - mine;
        let left_schedd = l.per_schedd - schedd;
        let left_cycle = l.per_cycle - now.duration_since(self.started).as_secs_f64();
        if left_mine <= 0.0 {
            return Err(OutOfTime::Submitter);
        }
        if left_schedd <= 0.0 {
            return Err(OutOfTime::Schedd);
        }
        if left_cycle <= 0.0 {
            return Err(OutOfTime::Cycle);
        }
        let left = l.per_spin.min(left_mine).min(left_schedd).min(left_cycle);
        Ok(now + Duration::from_secs_f64(left.min(1.0e9)))
    }

    /// `party`'s turn took `seconds`.
    pub fn took(&mut self, party: usize, seconds: f64) {
        if let Some(s) = self.submitter.get_mut(party) {
            *s += seconds;
        }
        if let Some(&k) = self.limits.schedd_of.get(party) {
            if let Some(s) = self.schedd.get_mut(k) {
                *s += seconds;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(spent: Vec<f64>, schedd_of: Vec<usize>) -> TimeLimits {
        TimeLimits {
            per_submitter: 10.0,
            per_schedd: 15.0,
            per_cycle: 100.0,
            per_spin: 4.0,
            schedd_of,
            spent,
        }
    }

    #[test]
    fn a_turns_deadline_is_the_earliest_limit() {
        let t0 = Instant::now();
        let mut timer = Timer::start(limits(vec![0.0, 8.0, 0.0], vec![0, 0, 1]), t0);
        // Submitter 0: 4 s of a spin. Submitter 1: 2 s left of its own 10.
        assert_eq!(timer.turn(0, t0), Ok(t0 + Duration::from_secs(4)));
        assert_eq!(timer.turn(1, t0), Ok(t0 + Duration::from_secs(2)));
        timer.took(1, 2.0);
        assert_eq!(timer.turn(1, t0), Err(OutOfTime::Submitter));
        // Their schedd has used 10 of its 15: submitter 0 has 5 left of it.
        timer.took(0, 3.0);
        assert_eq!(timer.turn(0, t0), Ok(t0 + Duration::from_secs(2)));
        timer.took(0, 2.0);
        assert_eq!(timer.turn(0, t0), Err(OutOfTime::Schedd));
        // Another schedd's submitter is not held back, until the cycle's time is out.
        assert_eq!(timer.turn(2, t0), Ok(t0 + Duration::from_secs(4)));
        let late = t0 + Duration::from_secs(100);
        assert_eq!(timer.turn(2, late), Err(OutOfTime::Cycle));
    }
}
