//! What the schedd and the starter do with a job's DeferralTime, which for a CronTab job is
//! its next run time: when it may be sent to a machine, and what happens when it arrives.

/// Whether the schedd should match and send the job now. From the manual, the job is sent
/// when `( CurrentTime + SCHEDD_INTERVAL ) >= ( DeferralTime - CronPrepTime )`: it goes out
/// `prep_time` seconds early, and one schedd interval early so the next pass is not late.
/// A negative interval or prep time counts as 0 (it could only make the job miss its time).
pub fn ready_to_send(now: i64, schedd_interval: i64, deferral_time: i64, prep_time: i64) -> bool {
    now.saturating_add(schedd_interval.max(0)) >= deferral_time.saturating_sub(prep_time.max(0))
}

/// What the execution side does with a deferred job that has just arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// The deferral time is still ahead: wait this many seconds (the job shows as Running).
    Wait { seconds: i64 },
    /// On time, or late by no more than the window: start now.
    Start,
    /// Late by more than the window: "the job is evicted from the execution machine and is
    /// put on hold in the job queue".
    Hold,
}

/// The manual's rule: a job arriving after its deferral time starts at once when "the
/// difference in seconds between the execution machine's current time and the job's
/// deferral time ... is less than or equal to the deferral window" (CronWindow for a
/// CronTab job), and is held otherwise. With no window (0) only an exactly-on-time
/// arrival starts. A negative window counts as 0.
pub fn on_arrival(now: i64, deferral_time: i64, window: i64) -> Arrival {
    if now < deferral_time {
        return Arrival::Wait {
            seconds: deferral_time.saturating_sub(now),
        };
    }
    if now.saturating_sub(deferral_time) <= window.max(0) {
        Arrival::Start
    } else {
        Arrival::Hold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_prep_time_example() {
        // Runs at 10:00 with CronPrepTime = 300: may be sent from 09:55.
        let ten = 36_000;
        assert!(!ready_to_send(ten - 301, 0, ten, 300));
        assert!(ready_to_send(ten - 300, 0, ten, 300));
        // A schedd that looks again in 20 s sends it on the pass just before.
        assert!(ready_to_send(ten - 320, 20, ten, 300));
        assert!(ready_to_send(i64::MAX, i64::MAX, i64::MIN, i64::MAX));
    }

    #[test]
    fn manual_window_examples() {
        // DeferralTime = CurrentTime - 60, DeferralWindow = 120: runs.
        assert_eq!(on_arrival(1000, 940, 120), Arrival::Start);
        // 45 s late with a 120 s window: runs.
        assert_eq!(on_arrival(1000, 955, 120), Arrival::Start);
        assert_eq!(on_arrival(1000, 880, 120), Arrival::Start);
        assert_eq!(on_arrival(1000, 879, 120), Arrival::Hold);
        // DeferralTime = CurrentTime + 60: waits 60 s.
        assert_eq!(on_arrival(1000, 1060, 0), Arrival::Wait { seconds: 60 });
        assert_eq!(on_arrival(1000, 1000, 0), Arrival::Start);
        assert_eq!(on_arrival(1001, 1000, 0), Arrival::Hold);
        assert_eq!(on_arrival(1000, 1000, -5), Arrival::Start);
        assert_eq!(on_arrival(i64::MAX, i64::MIN, 0), Arrival::Hold);
        assert_eq!(
            on_arrival(i64::MIN, i64::MAX, 0),
            Arrival::Wait { seconds: i64::MAX }
        );
    }
}
