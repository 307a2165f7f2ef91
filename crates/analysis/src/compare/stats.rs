//! The statistics `compare` rests on: geometric means of ratios and a seeded,
//! deterministic percentile bootstrap of their confidence interval.
//!
//! Ratios are handled as natural logarithms: a geometric mean is the exponential of the
//! mean log, and "twice as slow" and "twice as fast" sit at the same distance from 1.
//!
//! One bootstrap serves every mode. Each side is a set of runs, each run a log time per
//! puzzle, the puzzles in the same order in every run. A resample draws runs within each
//! side (with replacement), then puzzles, and a drawn puzzle is drawn for every run, so the
//! pairing of puzzles across runs is kept. With one run per side that is the classic paired
//! bootstrap over puzzles; with several it is a hierarchical bootstrap whose interval also
//! holds how much whole runs move. Puzzles can be drawn in blocks of consecutive ones, for
//! noise that touches neighbouring puzzles alike.

use sudoku_bench_core::rng::Rng;

/// The geometric mean of values given as logarithms; `None` when there are none.
pub fn geometric_mean_of_logs(logs: &[f64]) -> Option<f64> {
    if logs.is_empty() {
        return None;
    }
    Some((logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

/// The geometric mean of positive values; `None` when empty or when any value is not
/// positive and finite.
pub fn geometric_mean(values: &[f64]) -> Option<f64> {
    if values.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return None;
    }
    let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    geometric_mean_of_logs(&logs)
}

/// The mean of `values`; `None` when empty.
fn average(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Per-puzzle log ratios: the current runs' mean log time minus the baseline runs' mean,
/// puzzle by puzzle; `None` when a side is empty or the runs' lengths differ.
fn differences(baseline: &[Vec<f64>], current: &[Vec<f64>]) -> Option<Vec<f64>> {
    let puzzles = baseline.first()?.len();
    if current.is_empty() || baseline.iter().chain(current).any(|r| r.len() != puzzles) {
        return None;
    }
    Some(
        (0..puzzles)
            .map(|p| over_runs(current, p) - over_runs(baseline, p))
            .collect(),
    )
}

/// Puzzle `p`'s log time averaged over a side's runs.
fn over_runs(side: &[Vec<f64>], p: usize) -> f64 {
    side.iter().map(|r| r[p]).sum::<f64>() / side.len() as f64
}

/// Each puzzle's time on each side, (baseline, current), from the runs' log times: the
/// geometric mean over the side's runs, the per-puzzle value whose log ratios
/// `ratio_of_sides` averages. Empty when the runs' lengths differ.
pub fn puzzle_times(baseline: &[Vec<f64>], current: &[Vec<f64>]) -> Vec<(f64, f64)> {
    if differences(baseline, current).is_none() {
        return Vec::new();
    }
    (0..baseline[0].len())
        .map(|p| (over_runs(baseline, p).exp(), over_runs(current, p).exp()))
        .collect()
}

/// Current / baseline: the exponential of the mean of per-puzzle log ratios (a geometric
/// mean), each puzzle's log time averaged over its side's runs first; `None` when there is
/// no puzzle or the runs' lengths differ. Untrimmed on purpose: a change that slows only
/// the hardest tenth of a corpus is a regression a gate must see, and `--repeat` (the
/// fastest of K timings) is what keeps a preempted solve out.
pub(crate) fn ratio_of_sides(baseline: &[Vec<f64>], current: &[Vec<f64>]) -> Option<f64> {
    average(&differences(baseline, current)?).map(f64::exp)
}

/// Bootstrap settings: how many resamples, the confidence level and the seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bootstrap {
    /// Resamples drawn per interval.
    pub resamples: usize,
    /// E.g. 0.95 for a 95% interval.
    pub confidence: f64,
    /// Seed of the resampling: the same seed gives the same interval.
    pub seed: u64,
}

impl Default for Bootstrap {
    fn default() -> Self {
        Bootstrap {
            resamples: 2000,
            confidence: 0.95,
            seed: 0x5EED_5D0C_0B0E_0001,
        }
    }
}

/// The block length of a moving-block bootstrap over `n` consecutive puzzles: the usual
/// n^(1/3) rule, so blocks grow with the run but stay a vanishing share of it.
pub(crate) fn block_length(n: usize) -> usize {
    ((n as f64).cbrt().round() as usize).max(1)
}

/// One side's runs with each run's deviation from the per-puzzle mean of the side scaled by
/// sqrt(n / (n - 1)). Resampling n runs from n values has a variance n / (n - 1) times too
/// small (the plug-in variance), which with the 2 or 3 runs a CI can afford would make the
/// interval too narrow exactly where it must be honest; the scaled deviations make the
/// bootstrap variance of the runs' mean the unbiased one, and leave every mean unchanged.
fn widened(side: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = side.len();
    if n < 2 {
        return side.to_vec();
    }
    let scale = (n as f64 / (n - 1) as f64).sqrt();
    let puzzles = side[0].len();
    let means: Vec<f64> = (0..puzzles).map(|p| over_runs(side, p)).collect();
    side.iter()
        .map(|r| {
            r.iter()
                .zip(&means)
                .map(|(x, m)| m + (x - m) * scale)
                .collect()
        })
        .collect()
}

fn below(rng: &mut Rng, n: usize) -> usize {
    rng.below(u32::try_from(n).unwrap_or(u32::MAX)) as usize
}

/// Summed current time / summed baseline time, over one run per side (times, not logs):
/// what a throughput (puzzles per second of solving) compares; `None` when there is no
/// puzzle, the lengths differ or the baseline sums to nothing.
pub(crate) fn ratio_of_sums(baseline: &[f64], current: &[f64]) -> Option<f64> {
    let (b, c): (f64, f64) = (baseline.iter().sum(), current.iter().sum());
    (!baseline.is_empty() && baseline.len() == current.len() && b > 0.0).then(|| c / b)
}

/// `puzzles` indices drawn into `drawn`, in blocks of `block` consecutive ones (the last
/// block cut to fit).
fn draw(rng: &mut Rng, puzzles: usize, block: usize, drawn: &mut Vec<usize>) {
    drawn.clear();
    while drawn.len() < puzzles {
        let start = below(rng, puzzles - block + 1);
        drawn.extend(start..start + block);
    }
    drawn.truncate(puzzles);
}

/// The two-sided percentile interval at `confidence` of the resampled `values` (sorted
/// here; at least one).
fn percentiles(mut values: Vec<f64>, confidence: f64) -> (f64, f64) {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let tail = (1.0 - confidence.clamp(0.0, 1.0)) / 2.0;
    let at = |q: f64| values[((q * (n - 1) as f64).round() as usize).min(n - 1)];
    (at(tail), at(1.0 - tail))
}

impl Bootstrap {
    /// Percentile interval of `ratio_of_sums` over one run per side, recomputed on every
    /// resample of the puzzles, drawn `block` consecutive ones together as in
    /// [`Bootstrap::interval`]. `None` where `ratio_of_sums` is.
    pub fn sum_ratio_interval(
        &self,
        baseline: &[f64],
        current: &[f64],
        block: usize,
    ) -> Option<(f64, f64)> {
        ratio_of_sums(baseline, current)?;
        let puzzles = baseline.len();
        let block = block.clamp(1, puzzles);
        let mut rng = Rng::from_seed(self.seed);
        let mut drawn = Vec::with_capacity(puzzles + block);
        let ratios = (0..self.resamples.max(1))
            .map(|_| {
                draw(&mut rng, puzzles, block, &mut drawn);
                let sum = |side: &[f64]| drawn.iter().map(|&p| side[p]).sum::<f64>();
                // A resample whose baseline sums to nothing (all zero times) has no ratio.
                sum(current) / sum(baseline).max(f64::MIN_POSITIVE)
            })
            .collect();
        Some(percentiles(ratios, self.confidence))
    }

    /// Percentile interval of current / baseline (`ratio_of_sides`, recomputed on every
    /// resample) from runs of log times per puzzle (see the module's documentation); `block` consecutive puzzles are
    /// drawn together (1: independent puzzles). The same input gives the same interval
    /// every time. `None` when a side has no runs, the runs have no puzzles, or their
    /// lengths differ.
    pub fn interval(
        &self,
        baseline: &[Vec<f64>],
        current: &[Vec<f64>],
        block: usize,
    ) -> Option<(f64, f64)> {
        let puzzles = baseline.first()?.len();
        if puzzles == 0
            || current.is_empty()
            || baseline.iter().chain(current).any(|r| r.len() != puzzles)
        {
            return None;
        }
        let (b, c) = (widened(baseline), widened(current));
        let block = block.clamp(1, puzzles);
        let resamples = self.resamples.max(1);
        let mut rng = Rng::from_seed(self.seed);
        let mut drawn = Vec::with_capacity(puzzles + block);
        let mut d = Vec::with_capacity(puzzles);
        let (mut b_runs, mut c_runs) = (Vec::new(), Vec::new());
        let diffs: Vec<f64> = (0..resamples)
            .map(|_| {
                draw(&mut rng, puzzles, block, &mut drawn);
                b_runs.clear();
                b_runs.extend((0..b.len()).map(|_| &b[below(&mut rng, b.len())]));
                c_runs.clear();
                c_runs.extend((0..c.len()).map(|_| &c[below(&mut rng, c.len())]));
                let mean = |runs: &[&Vec<f64>], p: usize| {
                    runs.iter().map(|r| r[p]).sum::<f64>() / runs.len() as f64
                };
                d.clear();
                d.extend(drawn.iter().map(|&p| mean(&c_runs, p) - mean(&b_runs, p)));
                average(&d).unwrap_or(0.0)
            })
            .collect();
        let (lo, hi) = percentiles(diffs, self.confidence);
        Some((lo.exp(), hi.exp()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform in [-0.5, 0.5).
    fn centred(rng: &mut Rng) -> f64 {
        rng.next_u64() as f64 / u64::MAX as f64 - 0.5
    }

    #[test]
    fn geometric_mean_of_known_values() {
        let g = geometric_mean(&[1.0, 4.0, 16.0]).unwrap();
        assert!((g - 4.0).abs() < 1e-12, "{g}");
        let g = geometric_mean(&[2.0, 0.5]).unwrap();
        assert!((g - 1.0).abs() < 1e-12, "{g}");
        assert_eq!(geometric_mean(&[]), None);
        assert_eq!(geometric_mean(&[1.0, 0.0]), None);
        assert_eq!(geometric_mean(&[1.0, f64::NAN]), None);
    }

    /// Noisy ratios around a known true ratio: deterministic, and the interval holds it.
    #[test]
    fn bootstrap_is_deterministic_and_contains_the_true_ratio() {
        let mut rng = Rng::from_seed(42);
        let true_ratio: f64 = 1.3;
        let base: Vec<f64> = (0..300).map(|p| (p % 50) as f64 * 0.1).collect();
        let cur: Vec<f64> = base
            .iter()
            .map(|b| b + true_ratio.ln() + centred(&mut rng) * 0.4)
            .collect();
        let (b, c) = (vec![base], vec![cur]);
        let boot = Bootstrap::default();
        let (lo, hi) = boot.interval(&b, &c, 1).unwrap();
        assert_eq!(boot.interval(&b, &c, 1), Some((lo, hi)), "same seed");
        assert!(lo < true_ratio && true_ratio < hi, "{lo} .. {hi}");
        assert!(
            hi - lo < 0.1,
            "300 puzzles: a narrow interval: {lo} .. {hi}"
        );
        let g = ratio_of_sides(&b, &c).unwrap();
        assert!(lo <= g && g <= hi);
        let other = Bootstrap { seed: 1, ..boot }.interval(&b, &c, 1).unwrap();
        assert_ne!(other, (lo, hi), "the seed is used");
        // Blocks of consecutive puzzles: still around the truth.
        let (lo, hi) = boot.interval(&b, &c, block_length(300)).unwrap();
        assert!(lo < true_ratio && true_ratio < hi, "{lo} .. {hi}");
    }

    /// Runs that move as a whole (a busy neighbour for a whole run): the puzzle-only
    /// interval of one pair of runs misses the truth, the hierarchical one over three runs
    /// per side holds it, and is wider than the spread of puzzles alone would make it.
    #[test]
    fn several_runs_per_side_hold_the_run_to_run_variation() {
        let mut rng = Rng::from_seed(7);
        let true_ratio: f64 = 1.10;
        let puzzles: Vec<f64> = (0..400).map(|p| (p % 37) as f64 * 0.2).collect();
        // Whole-run shifts of a few percent, as a shared machine gives.
        let shifts = [0.06, -0.03, 0.01, -0.05, 0.04, 0.0];
        let mut run = |shift: f64, effect: f64| -> Vec<f64> {
            puzzles
                .iter()
                .map(|p| p + shift + effect + centred(&mut rng) * 0.02)
                .collect()
        };
        let base: Vec<Vec<f64>> = shifts[..3].iter().map(|s| run(*s, 0.0)).collect();
        let cur: Vec<Vec<f64>> = shifts[3..]
            .iter()
            .map(|s| run(*s, true_ratio.ln()))
            .collect();
        let boot = Bootstrap::default();
        let (lo, hi) = boot.interval(&base, &cur, 1).unwrap();
        assert!(lo < true_ratio && true_ratio < hi, "{lo} .. {hi}");
        let (plo, phi) = boot.interval(&base[..1], &cur[..1], 1).unwrap();
        assert!(
            !(plo < true_ratio && true_ratio < phi),
            "one pair of runs, shifted 6% and -5%: {plo} .. {phi}"
        );
        assert!(
            hi - lo > 3.0 * (phi - plo),
            "{lo} .. {hi} vs {plo} .. {phi}"
        );
    }

    #[test]
    fn identical_sides_give_an_interval_around_one() {
        let run: Vec<f64> = (0..100).map(|p| (p % 13) as f64).collect();
        let side = vec![run.clone(), run];
        let (lo, hi) = Bootstrap::default().interval(&side, &side, 1).unwrap();
        assert!(
            (lo - 1.0).abs() < 1e-12 && (hi - 1.0).abs() < 1e-12,
            "{lo} {hi}"
        );
    }

    /// A change that slows only the hardest 8% of puzzles 3x is a regression: the
    /// geometric mean must show it (exp(0.08 ln 3) = 1.092), not trim it away.
    #[test]
    fn a_slowdown_of_the_hardest_few_still_shows() {
        let base: Vec<f64> = (0..300).map(|p| (p % 17) as f64 * 0.3).collect();
        let mut hardest: Vec<usize> = (0..300).collect();
        hardest.sort_by(|&x, &y| base[y].total_cmp(&base[x]));
        let mut cur = base.clone();
        for &p in &hardest[..24] {
            cur[p] += 3f64.ln();
        }
        let (b, c) = (vec![base], vec![cur]);
        let expected = (24.0 / 300.0 * 3f64.ln()).exp();
        assert!((ratio_of_sides(&b, &c).unwrap() - expected).abs() < 1e-9);
        let (lo, _) = Bootstrap::default().interval(&b, &c, 1).unwrap();
        assert!(lo > 1.05, "the interval is above a 5% threshold: {lo}");
    }

    /// Two runs per side: each puzzle's time is its runs' geometric mean, and the ratios of
    /// those average (geometrically) to the ratio the verdict uses.
    #[test]
    fn puzzle_times_are_the_geometric_mean_over_runs() {
        let ln = |v: &[f64]| v.iter().map(|x| x.ln()).collect::<Vec<f64>>();
        let b = vec![ln(&[100.0, 10.0, 7.0]), ln(&[400.0, 40.0, 7.0])];
        let c = vec![ln(&[300.0, 5.0, 7.0]), ln(&[300.0, 20.0, 28.0])];
        let times = puzzle_times(&b, &c);
        let expected = [(200.0, 300.0), (20.0, 10.0), (7.0, 14.0)];
        assert_eq!(times.len(), 3);
        for ((tb, tc), (eb, ec)) in times.iter().zip(expected) {
            assert!(
                (tb - eb).abs() < 1e-9 && (tc - ec).abs() < 1e-9,
                "{times:?}"
            );
        }
        let ratios: Vec<f64> = times.iter().map(|(b, c)| c / b).collect();
        let g = geometric_mean(&ratios).unwrap();
        assert!((g - ratio_of_sides(&b, &c).unwrap()).abs() < 1e-12);
        assert!(puzzle_times(&b, &[vec![0.0]]).is_empty());
    }

    /// A new side twice as slow on the tenth of the puzzles that carry half the time: the
    /// summed ratio is 1.5, the interval holds it, and is the same every time.
    #[test]
    fn the_ratio_of_sums_and_its_interval() {
        let mut rng = Rng::from_seed(3);
        let base: Vec<f64> = (0..500)
            .map(|p| if p % 10 == 0 { 9.0 } else { 1.0 } * (1.0 + centred(&mut rng) * 0.1))
            .collect();
        let cur: Vec<f64> = base
            .iter()
            .enumerate()
            .map(|(p, b)| if p % 10 == 0 { 2.0 * b } else { *b })
            .collect();
        let r = ratio_of_sums(&base, &cur).unwrap();
        assert!((r - 1.5).abs() < 0.02, "{r}");
        let boot = Bootstrap::default();
        let (lo, hi) = boot.sum_ratio_interval(&base, &cur, 8).unwrap();
        assert!(lo < r && r < hi && hi - lo < 0.1, "{lo} .. {hi}");
        assert_eq!(boot.sum_ratio_interval(&base, &cur, 8), Some((lo, hi)));
        assert_eq!(ratio_of_sums(&[], &[]), None);
        assert_eq!(ratio_of_sums(&[0.0], &[1.0]), None);
        assert_eq!(boot.sum_ratio_interval(&[1.0], &[1.0, 2.0], 1), None);
    }

    #[test]
    fn bootstrap_edge_cases() {
        let b = Bootstrap::default();
        assert_eq!(b.interval(&[], &[vec![1.0]], 1), None);
        assert_eq!(b.interval(&[vec![]], &[vec![]], 1), None);
        assert_eq!(b.interval(&[vec![1.0, 2.0]], &[vec![1.0]], 1), None);
        let (lo, hi) = b.interval(&[vec![0.0]], &[vec![2f64.ln()]], 5).unwrap();
        assert!((lo - 2.0).abs() < 1e-12 && (hi - 2.0).abs() < 1e-12);
        assert_eq!(block_length(0), 1);
        assert_eq!(average(&[]), None);
        assert_eq!(average(&[3.0]), Some(3.0));
        assert_eq!(block_length(1000), 10);
    }
}
