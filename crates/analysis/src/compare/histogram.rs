//! The distribution of per-puzzle time ratios, current / baseline, as a histogram over the
//! log of the ratio: bins of equal width in log space, so that 2x slower and 2x faster are
//! as far from 1 and a bin is as wide at 0.5x as at 2x. The range runs from a whole number
//! of halvings to a whole number of doublings, always at least 0.5x .. 2x so that 1x (no
//! change) is inside it, wide enough for all but the outer 1% of ratios on each side and
//! for the markers drawn over it; what falls outside is counted in the end bins, which then
//! say so. Two builds of one solver fill a narrow range finely; two different solvers, a
//! thousand times apart, a wide one coarsely.

/// Doublings from 1x past which the range stops growing: 2^-20x .. 2^20x (a millionfold)
/// holds the ratio of any two solvers that finish at all.
pub(crate) const MAX_OCTAVES: i32 = 20;

/// Bins per doubling: fine over a narrow range, coarser over a wide one, so that the bars
/// stay a few pixels wide and a bin holds more than one of a few hundred puzzles.
fn per_octave(octaves: i32) -> u32 {
    (48 / octaves.max(1)).clamp(2, 12) as u32
}

/// How close to a bin edge, in bins, a ratio counts as on it.
const ON_EDGE: f64 = 1e-6;

/// Share of ratios on each side that the range need not hold.
const TAIL: f64 = 0.01;

/// A histogram of ratios over `2^low .. 2^high`.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// The range starts at `2^low` (`low` is -1 or less).
    pub low: i32,
    /// The range ends at `2^high` (`high` is 1 or more).
    pub high: i32,
    /// Bins per doubling.
    pub per_octave: u32,
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
        let (low, high) = span(ratios, keep);
        Histogram::over(ratios, low, high)
    }

    /// The ratios over `2^low .. 2^high`, widened to at least 0.5x .. 2x and narrowed to
    /// `MAX_OCTAVES` each way. A ratio that is not positive and finite (none is: times of 0
    /// count as 1 ns) is left out.
    pub fn over(ratios: &[f64], low: i32, high: i32) -> Histogram {
        let low = low.clamp(-MAX_OCTAVES, -1);
        let high = high.clamp(1, MAX_OCTAVES);
        let per_octave = per_octave(high - low);
        let bins = (high - low) as usize * per_octave as usize;
        let mut h = Histogram {
            low,
            high,
            per_octave,
            counts: vec![0; bins],
            below: 0,
            above: 0,
        };
        for &r in ratios.iter().filter(|r| r.is_finite() && **r > 0.0) {
            // Where the ratio falls, in bins from the bottom edge. A ratio on an edge (2x
            // written as 2000 / 1000 ns) can come back from the logs and exponentials of the
            // pairing a hair off it: it goes to the bin the exact value starts.
            let mut at = (r.log2() - f64::from(low)) * f64::from(per_octave);
            if (at - at.round()).abs() < ON_EDGE {
                at = at.round();
            }
            if at < 0.0 {
                h.below += 1;
            } else if at > bins as f64 {
                h.above += 1;
            }
            // The top edge itself belongs to the last bin, as the bottom one to the first.
            h.counts[at.floor().clamp(0.0, (bins - 1) as f64) as usize] += 1;
        }
        h
    }

    /// How many times wider a bin's right edge is than its left.
    pub fn step(&self) -> f64 {
        (1.0 / f64::from(self.per_octave)).exp2()
    }

    /// The ratio at the left edge of bin `i` (bin `counts.len()`: the range's right end).
    pub fn left_edge(&self, i: usize) -> f64 {
        (f64::from(self.low) + i as f64 / f64::from(self.per_octave)).exp2()
    }

    /// All ratios counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
}

/// The range, in whole halvings and doublings from 1x, that holds the ratios but the outer
/// `TAIL` on each side, and every value of `keep` (the markers drawn over the bars).
pub(crate) fn span(ratios: &[f64], keep: &[f64]) -> (i32, i32) {
    let mut logs: Vec<f64> = ratios
        .iter()
        .filter(|r| r.is_finite() && **r > 0.0)
        .map(|r| r.log2())
        .collect();
    logs.sort_by(f64::total_cmp);
    let (mut low, mut high) = (-1.0f64, 1.0f64);
    if !logs.is_empty() {
        let n = logs.len();
        // Nearest rank: the smallest and largest ratios that still stand for TAIL of them.
        let skip = ((n as f64 * TAIL).floor() as usize).min(n - 1);
        low = low.min(logs[skip]);
        high = high.max(logs[n - 1 - skip]);
    }
    for k in keep.iter().filter(|k| k.is_finite() && **k > 0.0) {
        low = low.min(k.log2());
        high = high.max(k.log2());
    }
    let max = f64::from(MAX_OCTAVES);
    (low.floor().max(-max) as i32, high.ceil().min(max) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_equal_in_log_space_and_the_tails_go_to_the_end_bins() {
        // 0.5..2 in 24 bins: a bin is 2^(1/12) wide; 1 starts bin 12.
        let h = Histogram::over(&[1.0, 1.01, 0.99, 2.0, 0.5, 0.1, 9.0, 1.5], -1, 1);
        assert_eq!(
            (h.left_edge(0), h.left_edge(24), h.counts.len()),
            (0.5, 2.0, 24)
        );
        assert!((h.step() - 2f64.powf(1.0 / 12.0)).abs() < 1e-12);
        assert!((h.left_edge(12) - 1.0).abs() < 1e-12);
        let mut expected = vec![0u64; 24];
        expected[12] = 2; // 1.0, 1.01
        expected[11] = 1; // 0.99
        expected[23] = 2; // 2.0 (the top edge), 9.0 (above)
        expected[0] = 2; // 0.5 (the bottom edge), 0.1 (below)
        expected[19] = 1; // 1.5: log2 = 0.585, 12 + 7.02
        assert_eq!(h.counts, expected);
        assert_eq!((h.below, h.above, h.total()), (1, 1, 8));
        assert_eq!(Histogram::over(&[0.0, f64::NAN, -1.0], -1, 1).total(), 0);
        // A hair off an edge is on it.
        let h = Histogram::over(&[0.5 - 1e-12, 1.0 - 1e-12, 2.0 + 1e-12], -1, 1);
        assert_eq!((h.counts[0], h.counts[12], h.counts[23]), (1, 1, 1));
        assert_eq!((h.below, h.above), (0, 0));
    }

    #[test]
    fn a_wide_range_has_coarser_bins() {
        let h = Histogram::over(&[0.1], -4, 1);
        assert_eq!((h.per_octave, h.counts.len()), (9, 45));
        // 0.1: (log2 0.1 + 4) * 9 = 0.678 * 9 = 6.1.
        assert_eq!(h.counts[6], 1);
        assert_eq!(Histogram::over(&[], -10, 10).counts.len(), 40);
        assert_eq!(Histogram::over(&[], -40, 40).counts.len(), 80);
        // Never narrower than 0.5x .. 2x: 1x is always in it.
        assert_eq!(
            (
                Histogram::over(&[], 2, 3).low,
                Histogram::over(&[], 2, 3).high
            ),
            (-1, 3)
        );
    }

    #[test]
    fn the_range_holds_all_but_the_outer_percent_and_the_markers() {
        assert_eq!(span(&[], &[]), (-1, 1));
        assert_eq!(span(&[1.0, 1.2, 0.9], &[]), (-1, 1));
        assert_eq!(span(&[1.0, 3.0], &[]), (-1, 2));
        assert_eq!(span(&[1.0, 0.2], &[]), (-3, 1));
        assert_eq!(span(&[0.01, 0.002], &[]), (-9, 1));
        assert_eq!(span(&[1.0], &[5.0]), (-1, 3));
        // One wild ratio among 200 is a tail, not the range.
        let mut ratios = vec![1.1; 199];
        ratios.push(1000.0);
        assert_eq!(span(&ratios, &[]), (-1, 1));
        assert_eq!(Histogram::of(&ratios, &[]).above, 1);
        // Among 99, it is more than the outer percent.
        ratios.truncate(98);
        ratios.push(1000.0);
        assert_eq!(span(&ratios, &[]), (-1, 10));
        assert_eq!(span(&[1e9], &[]), (-1, MAX_OCTAVES));
    }
}
