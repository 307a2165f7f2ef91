//! The distribution of per-puzzle time ratios, current / baseline, as a histogram over the
//! log of the ratio: bins of equal width in log space, so that 2x slower and 2x faster are
//! as far from 1 and a bin is as wide at 0.5x as at 2x. The range is symmetric around 1,
//! so no change sits in the middle, and is a whole number of doublings each way, wide
//! enough for all but the outer 1% on each side; what falls outside is counted in the end
//! bins, which then say so.

/// Bins over the whole range, whatever it is: enough to show a shape at 0.5x .. 2x, few
/// enough that a bin over a few hundred puzzles holds more than one.
pub const BINS: usize = 24;

/// Doublings each way past which the range stops growing: 1/1024x .. 1024x holds the
/// ratio of any two solvers that finish at all.
pub const MAX_OCTAVES: u32 = 10;

/// How close to a bin edge, in bins, a ratio counts as on it.
const ON_EDGE: f64 = 1e-6;

/// Share of ratios on each side that the range need not hold.
const TAIL: f64 = 0.01;

/// A histogram of ratios over `2^-octaves .. 2^octaves`.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// The range reaches `2^octaves` times faster and slower.
    pub octaves: u32,
    /// Ratios per bin, lowest first; the first and last also hold `below` and `above`.
    pub counts: Vec<u64>,
    /// Ratios below the range, counted in the first bin.
    pub below: u64,
    /// Ratios above the range, counted in the last bin.
    pub above: u64,
}

impl Histogram {
    /// The ratios over the range that `span` chooses for them, `keep` included.
    pub fn of(ratios: &[f64], keep: &[f64]) -> Histogram {
        Histogram::over(ratios, span(ratios, keep))
    }

    /// The ratios over `2^-octaves .. 2^octaves` (`octaves` at least 1). A ratio that is not
    /// positive and finite (none is: times of 0 count as 1 ns) is left out.
    pub fn over(ratios: &[f64], octaves: u32) -> Histogram {
        let octaves = octaves.clamp(1, MAX_OCTAVES);
        let mut h = Histogram {
            octaves,
            counts: vec![0; BINS],
            below: 0,
            above: 0,
        };
        let half = f64::from(octaves);
        for &r in ratios.iter().filter(|r| r.is_finite() && **r > 0.0) {
            // Where the ratio falls, in bins from the bottom edge. A ratio on an edge (2x
            // written as 2000 / 1000 ns) can come back from the logs and exponentials of the
            // pairing a hair off it: it goes to the bin the exact value starts.
            let mut at = (r.log2() + half) / (2.0 * half) * BINS as f64;
            if (at - at.round()).abs() < ON_EDGE {
                at = at.round();
            }
            if at < 0.0 {
                h.below += 1;
            } else if at > BINS as f64 {
                h.above += 1;
            }
            // The top edge itself belongs to the last bin, as the bottom one to the first.
            h.counts[at.floor().clamp(0.0, (BINS - 1) as f64) as usize] += 1;
        }
        h
    }

    /// The ratio at the left edge of the first bin.
    pub fn low(&self) -> f64 {
        (-f64::from(self.octaves)).exp2()
    }

    /// The ratio at the right edge of the last bin.
    pub fn high(&self) -> f64 {
        f64::from(self.octaves).exp2()
    }

    /// How many times wider a bin's right edge is than its left.
    pub fn step(&self) -> f64 {
        (2.0 * f64::from(self.octaves) / BINS as f64).exp2()
    }

    /// The ratio at the left edge of bin `i`.
    pub fn left_edge(&self, i: usize) -> f64 {
        self.low() * self.step().powi(i as i32)
    }

    /// All ratios counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
}

/// Doublings each way (1 ..= `MAX_OCTAVES`) that hold the ratios but the outer `TAIL` on
/// each side, and every value of `keep` (the markers drawn over the bars).
pub fn span(ratios: &[f64], keep: &[f64]) -> u32 {
    let mut logs: Vec<f64> = ratios
        .iter()
        .filter(|r| r.is_finite() && **r > 0.0)
        .map(|r| r.log2())
        .collect();
    logs.sort_by(f64::total_cmp);
    let mut reach: f64 = 0.0;
    if let (Some(_), n) = (logs.first(), logs.len()) {
        // Nearest rank: the smallest and largest ratios that still stand for TAIL of them.
        let skip = ((n as f64 * TAIL).floor() as usize).min(n - 1);
        reach = logs[skip].abs().max(logs[n - 1 - skip].abs());
    }
    for k in keep.iter().filter(|k| k.is_finite() && **k > 0.0) {
        reach = reach.max(k.log2().abs());
    }
    (reach.ceil() as u32).clamp(1, MAX_OCTAVES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_equal_in_log_space_and_the_tails_go_to_the_end_bins() {
        // 0.5..2 in 24 bins: a bin is 2^(1/12) wide; 1 starts bin 12.
        let h = Histogram::over(&[1.0, 1.01, 0.99, 2.0, 0.5, 0.1, 9.0, 1.5], 1);
        assert_eq!((h.low(), h.high()), (0.5, 2.0));
        assert!((h.step() - 2f64.powf(1.0 / 12.0)).abs() < 1e-12);
        assert!((h.left_edge(12) - 1.0).abs() < 1e-12);
        let mut expected = vec![0u64; BINS];
        expected[12] = 2; // 1.0, 1.01
        expected[11] = 1; // 0.99
        expected[23] = 2; // 2.0 (the top edge), 9.0 (above)
        expected[0] = 2; // 0.5 (the bottom edge), 0.1 (below)
        expected[19] = 1; // 1.5: log2 = 0.585, 12 + 7.02
        assert_eq!(h.counts, expected);
        assert_eq!((h.below, h.above, h.total()), (1, 1, 8));
        assert_eq!(Histogram::over(&[0.0, f64::NAN, -1.0], 1).total(), 0);
        // A hair off an edge is on it.
        let h = Histogram::over(&[0.5 - 1e-12, 1.0 - 1e-12, 2.0 + 1e-12], 1);
        assert_eq!((h.counts[0], h.counts[12], h.counts[23]), (1, 1, 1));
        assert_eq!((h.below, h.above), (0, 0));
    }

    #[test]
    fn the_range_holds_all_but_the_outer_percent_and_the_markers() {
        assert_eq!(span(&[], &[]), 1);
        assert_eq!(span(&[1.0, 1.2, 0.9], &[]), 1);
        assert_eq!(span(&[1.0, 3.0], &[]), 2);
        assert_eq!(span(&[1.0, 0.2], &[]), 3);
        assert_eq!(span(&[1.0], &[5.0]), 3);
        // One wild ratio among 200 is a tail, not the range.
        let mut ratios = vec![1.1; 199];
        ratios.push(1000.0);
        assert_eq!(span(&ratios, &[]), 1);
        assert_eq!(Histogram::of(&ratios, &[]).above, 1);
        // Among 99, it is more than the outer percent.
        ratios.truncate(98);
        ratios.push(1000.0);
        assert_eq!(span(&ratios, &[]), 10);
        assert_eq!(span(&[1e9], &[]), MAX_OCTAVES);
    }
}
