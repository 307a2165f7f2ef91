//! Where values land on an axis and which of them get a tick: the data range (padded),
//! the value-to-fraction mapping, tick choice and tick labels.

use super::{Labels, Scale};
use crate::numbers::{tick_duration, tick_number};

/// A value on the axis's own straight line: itself on a linear axis, its decimal log on a
/// log axis; `None` for what the axis cannot draw (NaN, infinities, log of <= 0).
pub(super) fn position(scale: Scale, value: f64) -> Option<f64> {
    if !value.is_finite() {
        return None;
    }
    match scale {
        Scale::Linear => Some(value),
        Scale::Log if value > 0.0 => Some(value.log10()),
        Scale::Log => None,
    }
}

/// The span an axis shows, in positions (see `position`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Range {
    pub scale: Scale,
    pub lo: f64,
    pub hi: f64,
}

/// One tick: where it is (a position), the value it labels, and the step the labels are
/// written to (so 0.1 + 0.2 prints as 0.3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Tick {
    pub at: f64,
    pub value: f64,
    pub step: f64,
}

impl Range {
    /// The span of `positions` (finite), padded a little so points at the ends are not
    /// cut by the frame. A linear span starting at or above 0 is not padded below 0: a
    /// count axis starts at 0, not at -40,000.
    pub fn around(scale: Scale, lo: f64, hi: f64) -> Range {
        let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
        let span = half_span(lo, hi) * 2.0;
        let pad = match scale {
            // A single value: half a decade either side.
            Scale::Log if span == 0.0 => 0.5,
            Scale::Log => (span * 0.04).max(0.02),
            Scale::Linear if span == 0.0 => (lo.abs() * 0.1).max(1.0),
            Scale::Linear => span * 0.04,
        };
        let mut new_lo = (lo - pad).max(-f64::MAX);
        let new_hi = (hi + pad).min(f64::MAX);
        if scale == Scale::Linear && lo >= 0.0 && new_lo < 0.0 {
            new_lo = 0.0;
        }
        Range {
            scale,
            lo: new_lo,
            hi: new_hi,
        }
    }

    /// Where `position` is, from 0 (at `lo`) to 1 (at `hi`). Halves first, so the span of
    /// the widest finite range does not overflow.
    pub fn fraction(&self, position: f64) -> f64 {
        let half = half_span(self.lo, self.hi);
        if half > 0.0 {
            (position / 2.0 - self.lo / 2.0) / half
        } else {
            0.5
        }
    }

    /// The ticks to label, at most about `most` of them: powers of ten on a log axis
    /// (every other one or sparser over many decades; with 2 and 5 between over less
    /// than two), 1, 2 or 5 times a power of ten apart on a linear axis.
    pub(crate) fn ticks(&self, most: usize) -> Vec<Tick> {
        let most = most.max(2);
        match self.scale {
            Scale::Linear => linear_ticks(self.lo, self.hi, most),
            Scale::Log => self.log_ticks(most),
        }
    }

    fn log_ticks(&self, most: usize) -> Vec<Tick> {
        // Decimal logs of finite f64 lie within about -324..309; the clamp keeps the
        // count below from overflowing whatever range it is handed.
        let first = self.lo.ceil().clamp(-330.0, 330.0) as i32;
        let last = self.hi.floor().clamp(-330.0, 330.0) as i32;
        let powers = (last - first + 1).max(0) as usize;
        if self.hi - self.lo >= 2.0 && powers >= 2 {
            let stride = powers.div_ceil(most).max(1) as i32;
            // Strides aligned on 10^0, so a chart shows 1 µs, 100 µs, 10 ms rather than
            // whichever power happens to come first.
            let aligned: Vec<Tick> = (first..=last)
                .filter(|k| k.rem_euclid(stride) == 0)
                .map(power_tick)
                .collect();
            if aligned.len() >= 2 {
                return aligned;
            }
            return (first..=last)
                .step_by(stride as usize)
                .map(power_tick)
                .collect();
        }
        let mut ticks = Vec::new();
        for k in (first - 1)..=(last + 1) {
            for m in [1.0, 2.0, 5.0] {
                let value = m * 10f64.powi(k);
                let at = value.log10();
                if at >= self.lo && at <= self.hi {
                    ticks.push(Tick {
                        at,
                        value,
                        step: 10f64.powi(k),
                    });
                }
            }
        }
        if ticks.len() > most {
            ticks.retain(|t| t.value == t.step);
        }
        if ticks.len() >= 2 {
            return ticks;
        }
        // Less than a factor of 2 or so: evenly spaced values, placed on the log line.
        let (lo, hi) = (10f64.powf(self.lo), 10f64.powf(self.hi));
        linear_ticks(lo, hi, most)
            .into_iter()
            .filter(|t| t.value > 0.0)
            .map(|t| Tick {
                at: t.value.log10(),
                ..t
            })
            .collect()
    }
}

fn power_tick(k: i32) -> Tick {
    let value = 10f64.powi(k);
    Tick {
        at: f64::from(k),
        value,
        step: value,
    }
}

/// Half of `hi - lo`, which stays finite when the difference itself would not.
fn half_span(lo: f64, hi: f64) -> f64 {
    hi / 2.0 - lo / 2.0
}

/// Multiples of a step of 1, 2 or 5 times a power of ten, about `most` of them.
fn linear_ticks(lo: f64, hi: f64, most: usize) -> Vec<Tick> {
    let raw = half_span(lo, hi) / most as f64 * 2.0;
    if !(raw.is_finite() && raw > 0.0) {
        return Vec::new();
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = match raw / magnitude {
        // Tolerant: 0.2 / 2 is a hair over 0.1 in binary.
        r if r <= 1.0 + 1e-9 => magnitude,
        r if r <= 2.0 + 1e-9 => 2.0 * magnitude,
        r if r <= 5.0 + 1e-9 => 5.0 * magnitude,
        _ => 10.0 * magnitude,
    };
    if !(step.is_finite() && step > 0.0) {
        return Vec::new();
    }
    let (first, last) = ((lo / step).ceil(), (hi / step).floor());
    // Rounding at the ends of an enormous range could make more than asked: bounded.
    let count = (last - first + 1.0).clamp(0.0, most as f64 * 2.0 + 2.0) as usize;
    (0..count)
        .map(|i| {
            let value = (first + i as f64) * step;
            Tick {
                at: value,
                value,
                step,
            }
        })
        .filter(|t| t.at >= lo && t.at <= hi)
        .collect()
}

/// A tick's label.
pub(super) fn label(labels: Labels, tick: &Tick) -> String {
    let Tick { value, step, .. } = *tick;
    match labels {
        Labels::Number => tick_number(value, step),
        Labels::Duration => tick_duration(value, step),
        Labels::Percent => format!("{}%", tick_number(value * 100.0, step * 100.0)),
        Labels::Ratio => format!("{}×", tick_number(value, step)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_range(lo: f64, hi: f64) -> Range {
        Range::around(Scale::Log, lo.log10(), hi.log10())
    }

    fn labels_of(range: &Range, labels: Labels, most: usize) -> Vec<String> {
        range.ticks(most).iter().map(|t| label(labels, t)).collect()
    }

    #[test]
    fn linear_positions_are_the_values_and_fractions_run_from_lo_to_hi() {
        let range = Range {
            scale: Scale::Linear,
            lo: 10.0,
            hi: 30.0,
        };
        assert_eq!(position(Scale::Linear, -4.0), Some(-4.0));
        assert_eq!(range.fraction(10.0), 0.0);
        assert_eq!(range.fraction(15.0), 0.25);
        assert_eq!(range.fraction(30.0), 1.0);
    }

    #[test]
    fn log_positions_are_decades_and_nothing_at_or_below_zero() {
        assert_eq!(position(Scale::Log, 1000.0), Some(3.0));
        assert_eq!(position(Scale::Log, 0.0), None);
        assert_eq!(position(Scale::Log, -5.0), None);
        assert_eq!(position(Scale::Linear, f64::NAN), None);
        assert_eq!(position(Scale::Log, f64::INFINITY), None);
        // 10 µs sits a third of the way from 1 µs to 1 ms.
        let range = Range {
            scale: Scale::Log,
            lo: 3.0,
            hi: 6.0,
        };
        let third = range.fraction(position(Scale::Log, 1e4).unwrap());
        assert!((third - 1.0 / 3.0).abs() < 1e-12, "{third}");
    }

    #[test]
    fn the_range_is_padded_but_a_count_does_not_go_below_zero() {
        let r = Range::around(Scale::Linear, 0.0, 100.0);
        assert_eq!((r.lo, r.hi), (0.0, 104.0));
        let r = Range::around(Scale::Linear, -100.0, 100.0);
        assert_eq!((r.lo, r.hi), (-108.0, 108.0));
        let r = Range::around(Scale::Log, 3.0, 3.0);
        assert_eq!((r.lo, r.hi), (2.5, 3.5));
        let r = Range::around(Scale::Linear, 7.0, 7.0);
        assert_eq!((r.lo, r.hi), (6.0, 8.0));
    }

    #[test]
    fn a_log_time_axis_over_4_decades_ticks_at_powers_of_ten_with_unit_labels() {
        // 3 µs .. 40 ms, in nanoseconds.
        let range = log_range(3e3, 4e7);
        assert_eq!(
            labels_of(&range, Labels::Duration, 8),
            ["10 µs", "100 µs", "1 ms", "10 ms"]
        );
        let at: Vec<f64> = range.ticks(8).iter().map(|t| t.at).collect();
        assert_eq!(at, [4.0, 5.0, 6.0, 7.0]);
    }

    #[test]
    fn a_log_axis_over_many_decades_labels_every_few_and_stays_aligned() {
        // 1 ns .. 1e12 ns with room for about 5 labels.
        let range = log_range(1.0, 1e12);
        assert_eq!(
            labels_of(&range, Labels::Duration, 5),
            ["1 ns", "1 µs", "1 ms", "1 s", "1000 s"]
        );
        assert_eq!(
            labels_of(&range, Labels::Number, 7),
            ["1", "100", "10k", "1M", "100M", "10G", "1T"]
        );
    }

    #[test]
    fn a_log_axis_under_two_decades_adds_2_and_5_and_a_narrow_one_spaces_evenly() {
        let range = log_range(1.5e6, 6e7);
        assert_eq!(
            labels_of(&range, Labels::Duration, 10),
            ["2 ms", "5 ms", "10 ms", "20 ms", "50 ms"]
        );
        let range = log_range(300.0, 400.0);
        let labels = labels_of(&range, Labels::Number, 5);
        assert!(labels.len() >= 2, "{labels:?}");
        assert!(labels.contains(&"350".to_string()), "{labels:?}");
    }

    #[test]
    fn linear_ticks_step_by_1_2_or_5_times_a_power_of_ten() {
        let range = Range {
            scale: Scale::Linear,
            lo: 0.0,
            hi: 2_080_000.0,
        };
        assert_eq!(
            labels_of(&range, Labels::Number, 5),
            ["0", "500k", "1M", "1.5M", "2M"]
        );
        let range = Range {
            scale: Scale::Linear,
            lo: 0.0,
            hi: 1.0,
        };
        assert_eq!(
            labels_of(&range, Labels::Percent, 6),
            ["0%", "20%", "40%", "60%", "80%", "100%"]
        );
        let range = Range {
            scale: Scale::Linear,
            lo: -0.05,
            hi: 0.35,
        };
        assert_eq!(
            labels_of(&range, Labels::Number, 4),
            ["0", "0.1", "0.2", "0.3"]
        );
    }

    #[test]
    fn labels_read_as_units_ratios_and_short_numbers() {
        let t = |value, step| Tick {
            at: 0.0,
            value,
            step,
        };
        assert_eq!(label(Labels::Duration, &t(250e3, 50e3)), "250 µs");
        assert_eq!(label(Labels::Duration, &t(1.5e9, 5e8)), "1.5 s");
        assert_eq!(label(Labels::Duration, &t(7.0, 1.0)), "7 ns");
        assert_eq!(label(Labels::Ratio, &t(0.5, 0.1)), "0.5×");
        assert_eq!(label(Labels::Number, &t(1e-7, 1e-7)), "1e-7");
        assert_eq!(label(Labels::Number, &t(2e20, 1e20)), "2e20");
        assert_eq!(label(Labels::Number, &t(-0.0, 1.0)), "0");
    }

    #[test]
    fn degenerate_and_enormous_ranges_give_few_or_no_ticks_and_never_panic() {
        for (lo, hi) in [
            (-f64::MAX, f64::MAX),
            (0.0, 0.0),
            (1e16, 1e16 + 2.0),
            (f64::MIN_POSITIVE, 1.0),
        ] {
            for scale in [Scale::Linear, Scale::Log] {
                let range = Range::around(scale, lo, hi);
                let ticks = range.ticks(6);
                assert!(ticks.len() <= 14, "{lo} {hi} {scale:?} {}", ticks.len());
                for t in &ticks {
                    let f = range.fraction(t.at);
                    assert!((-1e-9..=1.0 + 1e-9).contains(&f), "{f}");
                    let _ = label(Labels::Duration, t);
                }
            }
        }
        let log = Range::around(Scale::Log, -323.0, 308.0);
        assert!(log.ticks(6).len() >= 2);
    }
}
