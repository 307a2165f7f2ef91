//! The time a run has left, estimated so that it does not jump as the phases of fast and
//! slow strategies alternate.
//!
//! A run solves each chunk with one strategy after another, so the input consumed moves
//! fast in some phases and crawls in others, and a rate measured over the last seconds
//! (indicatif's `{eta}`), or even over the whole run, swings with the phase that happens to
//! run. Instead each strategy's own pace is measured: the bytes it has done against the
//! time its phases took, that time sampled at each poll (the interval since the last poll
//! goes to the phase running now, which over many polls gives each phase its share). The
//! time left is each strategy's bytes left at its own pace, scaled by the run's share of
//! time outside the phases (reading, reporting, the untimed reference), then smoothed.

/// Seconds over which a new estimate replaces the one shown: the shown one counts down
/// meanwhile, so it moves by seconds, not minutes, from one poll to the next. Early in a
/// run, a tenth of its time so far instead: the first estimates, from a pace seen over a
/// few polls, are not to be remembered for long.
const SMOOTHING: f64 = 5.0;

/// Estimates the time left of a run of several strategies over the same input.
#[derive(Debug)]
pub struct Eta {
    /// Bytes each strategy works through.
    total: u64,
    /// Per strategy, seconds its phases took, as sampled.
    busy: Vec<f64>,
    /// When it was last told of progress.
    last: f64,
    /// The last estimate given, and when.
    shown: Option<(f64, f64)>,
}

impl Eta {
    /// A run of `strategies`, each working through `total` bytes.
    pub fn new(total: u64, strategies: usize) -> Eta {
        Eta {
            total,
            busy: vec![0.0; strategies.max(1)],
            last: 0.0,
            shown: None,
        }
    }

    /// At `elapsed` seconds into the run, with strategy `phase`'s phase running (an index
    /// past the strategies: none of theirs) and `bytes` done by each strategy: the seconds
    /// left, once anything is done.
    pub fn observe(&mut self, elapsed: f64, phase: usize, bytes: &[u64]) -> Option<f64> {
        let interval = (elapsed - self.last).max(0.0);
        self.last = elapsed.max(self.last);
        if let Some(busy) = self.busy.get_mut(phase) {
            *busy += interval;
        }
        let estimate = self.estimate(elapsed, bytes)?;
        let shown = match self.shown {
            None => estimate,
            Some((before, at)) => {
                let since = (elapsed - at).max(0.0);
                let counted_down = (before - since).max(0.0);
                let smoothing = SMOOTHING.min(elapsed / 10.0);
                counted_down + (since / smoothing).min(1.0) * (estimate - counted_down)
            }
        };
        self.shown = Some((shown, elapsed));
        Some(shown)
    }

    /// Seconds left at each strategy's pace; until every strategy has done some work, at
    /// the pace of the whole run so far.
    fn estimate(&self, elapsed: f64, bytes: &[u64]) -> Option<f64> {
        let done: u64 = bytes.iter().sum();
        if done == 0 || self.total == 0 || elapsed <= 0.0 {
            return None;
        }
        let left = |b: u64| self.total.saturating_sub(b) as f64;
        if bytes.len() != self.busy.len() || bytes.contains(&0) {
            let all = self.total as f64 * bytes.len().max(1) as f64;
            return Some(elapsed * (all - done as f64).max(0.0) / done as f64);
        }
        let in_phases: f64 = self.busy.iter().sum();
        let phases_left: f64 = bytes
            .iter()
            .zip(&self.busy)
            .map(|(&b, &busy)| left(b) * busy / b as f64)
            .sum();
        let outside = if in_phases > 0.0 {
            (elapsed / in_phases).max(1.0)
        } else {
            1.0
        };
        Some(phases_left * outside)
    }
}

/// "ETA 42s", "ETA 3m 12s", "ETA 2h 05m".
pub fn text(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..60 => format!("ETA {s}s"),
        60..3600 => format!("ETA {}m {:02}s", s / 60, s % 60),
        _ => format!("ETA {}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of `chunks` chunks of `bytes` each over a fast strategy (0.05 s a chunk) and a
    /// slow one (2 s a chunk), their order alternating chunk by chunk as the runner's does,
    /// seen every 0.1 s: (elapsed, phase, bytes per strategy) at each poll, and the run's
    /// length.
    fn alternating(chunks: u64, bytes: u64) -> (Vec<(f64, usize, Vec<u64>)>, f64) {
        let pace = [0.05, 2.0];
        let per_chunk: f64 = pace.iter().sum();
        let length = per_chunk * chunks as f64;
        let mut polls = Vec::new();
        let mut t: f64 = 0.1;
        while t < length {
            let chunk = (t / per_chunk).floor() as u64;
            let into = t - chunk as f64 * per_chunk;
            let order = if chunk.is_multiple_of(2) {
                [0, 1]
            } else {
                [1, 0]
            };
            let mut done = vec![chunk * bytes; 2];
            let first = pace[order[0]];
            let phase = if into < first {
                done[order[0]] += (bytes as f64 * into / first) as u64;
                order[0]
            } else {
                done[order[0]] += bytes;
                done[order[1]] += (bytes as f64 * (into - first) / pace[order[1]]) as u64;
                order[1]
            };
            polls.push((t, phase, done));
            t += 0.1;
        }
        (polls, length)
    }

    /// The worst error, as a share of the run's length, of `estimate`'s predicted end over
    /// the polls after the first `skip` seconds; and the largest rise of the time left from
    /// one poll to the next, in seconds.
    fn errors(
        polls: &[(f64, usize, Vec<u64>)],
        length: f64,
        skip: f64,
        mut estimate: impl FnMut(f64, usize, &[u64]) -> Option<f64>,
    ) -> (f64, f64) {
        let (mut worst, mut rise, mut before) = (0.0f64, 0.0f64, None);
        for (t, phase, done) in polls {
            let Some(left) = estimate(*t, *phase, done) else {
                continue;
            };
            if *t > skip {
                worst = worst.max((t + left - length).abs() / length);
                if let Some(before) = before {
                    rise = rise.max(left - before);
                }
                before = Some(left);
            }
        }
        (worst, rise)
    }

    #[test]
    fn steady_when_fast_and_slow_phases_alternate() {
        let (polls, length) = alternating(60, 1000);
        let mut eta = Eta::new(60 * 1000, 2);
        let (worst, rise) = errors(&polls, length, 10.0, |t, p, b| eta.observe(t, p, b));
        assert!(worst < 0.02, "predicted end off by {:.1}%", worst * 100.0);
        assert!(
            rise < 0.5,
            "the time left rose by {rise:.2} s between polls"
        );
        // Not vacuous: the whole run's pace (elapsed x left / done) swings with the phases
        // (by 8% of the run here, several seconds; minutes, in a run of hours).
        let naive = |t: f64, _: usize, b: &[u64]| {
            let done: u64 = b.iter().sum();
            Some(t * (2.0 * 60_000.0 - done as f64) / done as f64)
        };
        let (worst, _) = errors(&polls, length, 10.0, naive);
        assert!(worst > 0.05, "{worst}");
    }

    #[test]
    fn nothing_done_is_no_estimate_and_the_end_is_zero() {
        let mut eta = Eta::new(100, 2);
        assert_eq!(eta.observe(1.0, 0, &[0, 0]), None);
        let left = eta.observe(2.0, 0, &[50, 0]).unwrap();
        // Only the whole run's pace is known yet: 50 of 200 bytes in 2 s.
        assert!((left - 6.0).abs() < 1e-9, "{left}");
        let mut eta = Eta::new(100, 1);
        assert_eq!(eta.observe(3.0, 0, &[100]), Some(0.0));
        assert_eq!(Eta::new(0, 1).observe(1.0, 0, &[0]), None);
    }

    #[test]
    fn eta_reads_in_the_units_it_needs() {
        assert_eq!(text(41.6), "ETA 42s");
        assert_eq!(text(192.0), "ETA 3m 12s");
        assert_eq!(text(7500.0), "ETA 2h 05m");
        assert_eq!(text(-3.0), "ETA 0s");
    }
}
