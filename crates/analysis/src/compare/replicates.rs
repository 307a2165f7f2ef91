//! The interval of an in-run comparison over the run's replicates (`run --replicates`):
//! each replicate's solvers are processes of their own, laid out in memory anew, so the
//! spread of the replicates' ratios holds what differs from one run to the next, which an
//! interval over the puzzles of one process leaves out (two runs of one library against
//! itself read 0.985 and 1.013, each with an interval half a percent wide).
//!
//! With a handful of replicates a bootstrap over them is too narrow (it resamples a few
//! values); the interval is Student's t over the replicates instead, with the
//! cluster-robust variance of the pooled estimate: each replicate weighs as many puzzles as
//! it solved, so the interval is centred on the ratio over all puzzles.
//!
//! Runs still differ by more than their replicates do: whatever every replicate of a run
//! shares (for in-process solvers the one process and its heap; for all, where the run's
//! files lie in memory, the machine's state over its minutes) moves the whole run. No
//! replicate of one run can show it, so it is taken as measured across runs
//! (`scripts/verdicts.sh`: the run spread, [`super::CompareOptions::run_spread`]) and added
//! to the replicates' standard error in quadrature.

/// The two-sided interval at `confidence` of the mean of `values` (logarithms of per-puzzle
/// ratios), each in replicate `groups[i]`, over the replicates: `exp` of the pooled mean
/// plus and minus Student's t with one degree of freedom less than the replicates, times
/// the cluster-robust standard error and `run_spread` (a log ratio's standard deviation
/// between runs) together. `None` with fewer than two replicates, or lengths that differ.
pub(crate) fn log_mean_interval(
    values: &[f64],
    groups: &[u32],
    confidence: f64,
    run_spread: f64,
) -> Option<(f64, f64)> {
    if values.len() != groups.len() {
        return None;
    }
    let sums = by_group(groups, values.iter().map(|&v| (v, 1.0)));
    let n: f64 = sums.iter().map(|(_, w)| w).sum();
    let mean = sums.iter().map(|(s, _)| s).sum::<f64>() / n;
    // The residual of each replicate: its sum less what the pooled mean gives its size.
    let spread = cluster_se(sums.iter().map(|(s, w)| s - w * mean), n)?.hypot(run_spread);
    let t = t_quantile(confidence, sums.len() - 1);
    Some(((mean - t * spread).exp(), (mean + t * spread).exp()))
}

/// The interval at `confidence` of summed `current` times over summed `baseline` times
/// (per puzzle, each in replicate `groups[i]`), over the replicates, as
/// [`log_mean_interval`] (the ratio's standard error by the delta method, on its log, with
/// `run_spread`). `None` with fewer than two replicates, lengths that differ, or no
/// baseline time.
pub(crate) fn sum_ratio_interval(
    baseline: &[f64],
    current: &[f64],
    groups: &[u32],
    confidence: f64,
    run_spread: f64,
) -> Option<(f64, f64)> {
    if baseline.len() != groups.len() || current.len() != groups.len() {
        return None;
    }
    let sums = by_group(groups, baseline.iter().zip(current).map(|(&b, &c)| (c, b)));
    let (c, b): (f64, f64) = sums
        .iter()
        .fold((0.0, 0.0), |(c, b), (ci, bi)| (c + ci, b + bi));
    if b <= 0.0 || c <= 0.0 {
        return None;
    }
    let ratio = c / b;
    // The log ratio's error: the replicates' residuals against the ratio, over the total.
    let spread =
        (cluster_se(sums.iter().map(|(ci, bi)| ci - ratio * bi), b)? / ratio).hypot(run_spread);
    let t = t_quantile(confidence, sums.len() - 1);
    Some((
        (ratio.ln() - t * spread).exp(),
        (ratio.ln() + t * spread).exp(),
    ))
}

/// Per replicate, in the order first met, the sums of the pairs `(x, w)` of its members.
fn by_group(groups: &[u32], pairs: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    let mut index = std::collections::BTreeMap::new();
    let mut sums: Vec<(f64, f64)> = Vec::new();
    for (&g, (x, w)) in groups.iter().zip(pairs) {
        let at = *index.entry(g).or_insert_with(|| {
            sums.push((0.0, 0.0));
            sums.len() - 1
        });
        sums[at].0 += x;
        sums[at].1 += w;
    }
    sums
}

/// The cluster-robust standard error of a total's estimate from its replicates'
/// `residuals`, over `total` (the weights' sum), with the small-sample factor G / (G - 1)
/// (with equal replicates this is the sample standard deviation of their means over the
/// square root of their number). `None` with fewer than two replicates.
fn cluster_se(residuals: impl Iterator<Item = f64>, total: f64) -> Option<f64> {
    let residuals: Vec<f64> = residuals.collect();
    let g = residuals.len();
    if g < 2 || total <= 0.0 {
        return None;
    }
    let squares: f64 = residuals.iter().map(|r| r * r).sum();
    Some((g as f64 / (g - 1) as f64 * squares).sqrt() / total)
}

/// The t such that Student's t with `df` degrees of freedom lies within (-t, t) with
/// probability `confidence`: bisection on the distribution's exact form for whole degrees
/// of freedom (Abramowitz and Stegun 26.7.3 and 26.7.4).
pub(crate) fn t_quantile(confidence: f64, df: usize) -> f64 {
    let target = confidence.clamp(0.0, 0.999_999);
    let (mut lo, mut hi) = (0.0, 1.0);
    while within(hi, df) < target {
        hi *= 2.0;
    }
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if within(mid, df) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// P(|T| < t) for Student's t with `df` (at least 1) degrees of freedom.
fn within(t: f64, df: usize) -> f64 {
    let df = df.max(1);
    let theta = (t / (df as f64).sqrt()).atan();
    let c2 = theta.cos().powi(2);
    // sum over j from 0 to `last` of a_j c2^j, where a_0 = 1 and a_j = a_{j-1} * ratio(j).
    let series = |last: usize, ratio: fn(f64) -> f64| {
        let (mut term, mut sum) = (1.0, 1.0);
        for j in 1..=last {
            term *= c2 * ratio(j as f64);
            sum += term;
        }
        sum
    };
    if df.is_multiple_of(2) {
        theta.sin() * series((df - 2) / 2, |j| (2.0 * j - 1.0) / (2.0 * j))
    } else if df == 1 {
        2.0 / std::f64::consts::PI * theta
    } else {
        let tail = theta.sin() * theta.cos() * series((df - 3) / 2, |j| 2.0 * j / (2.0 * j + 1.0));
        2.0 / std::f64::consts::PI * (theta + tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn student_t_quantiles_match_the_tables() {
        // Two-sided 95% and 99%, from any table of Student's t.
        for (df, t95, t99) in [
            (1, 12.706, 63.657),
            (2, 4.303, 9.925),
            (3, 3.182, 5.841),
            (7, 2.365, 3.499),
            (10, 2.228, 3.169),
            (30, 2.042, 2.750),
        ] {
            assert!((t_quantile(0.95, df) - t95).abs() < 2e-3, "df {df}");
            assert!((t_quantile(0.99, df) - t99).abs() < 2e-3, "df {df}");
        }
        assert!((t_quantile(0.95, 100_000) - 1.960).abs() < 1e-3);
    }

    #[test]
    fn equal_replicates_give_the_t_interval_of_their_means() {
        // Four replicates of two puzzles each; their means are 0.00, 0.02, -0.02, 0.04.
        let values = [0.01, -0.01, 0.03, 0.01, -0.02, -0.02, 0.05, 0.03];
        let groups = [0, 0, 1, 1, 2, 2, 3, 3];
        let (lo, hi) = log_mean_interval(&values, &groups, 0.95, 0.0).unwrap();
        let means = [0.0f64, 0.02, -0.02, 0.04];
        let m = means.iter().sum::<f64>() / 4.0;
        let sd = (means.iter().map(|x| (x - m).powi(2)).sum::<f64>() / 3.0).sqrt();
        let half = 3.182 * sd / 2.0;
        assert!((lo.ln() - (m - half)).abs() < 1e-4, "{lo}");
        assert!((hi.ln() - (m + half)).abs() < 1e-4, "{hi}");
    }

    #[test]
    fn a_replicate_that_differs_widens_the_interval_where_the_puzzles_would_not() {
        // Every puzzle of a replicate moves alike: a layout's effect on one process. Within
        // a replicate the puzzles agree, so only the replicates' spread can widen it.
        let mut values = Vec::new();
        let mut groups = Vec::new();
        for (g, shift) in [0.0, 0.015, -0.012, 0.004, -0.008, 0.011, -0.003, 0.0]
            .iter()
            .enumerate()
        {
            for p in 0..500 {
                values.push(shift + if p % 2 == 0 { 0.001 } else { -0.001 });
                groups.push(g as u32);
            }
        }
        let (lo, hi) = log_mean_interval(&values, &groups, 0.95, 0.0).unwrap();
        assert!(lo < 0.995 && hi > 1.005, "{lo} .. {hi}");
        assert!(lo < 1.0 && hi > 1.0);
        // One replicate alone has no spread to show.
        assert_eq!(
            log_mean_interval(&values[..500], &groups[..500], 0.95, 0.0),
            None
        );
        assert_eq!(log_mean_interval(&values, &groups[1..], 0.95, 0.0), None);
    }

    #[test]
    fn the_sum_ratio_interval_holds_the_pooled_ratio_and_scales() {
        // Current is 10% slower in every replicate, with replicate-level noise.
        let mut b = Vec::new();
        let mut c = Vec::new();
        let mut groups = Vec::new();
        for (g, noise) in [1.0, 1.02, 0.99, 1.01].iter().enumerate() {
            for p in 1..=50 {
                b.push(p as f64 * 100.0);
                c.push(p as f64 * 110.0 * noise);
                groups.push(g as u32);
            }
        }
        let (lo, hi) = sum_ratio_interval(&b, &c, &groups, 0.95, 0.0).unwrap();
        let ratio = c.iter().sum::<f64>() / b.iter().sum::<f64>();
        assert!(lo < ratio && ratio < hi, "{lo} {ratio} {hi}");
        assert!(lo > 1.05 && hi < 1.16, "{lo} .. {hi}");
        // Without noise between replicates the interval closes on the ratio.
        let exact: Vec<f64> = b.iter().map(|x| x * 1.1).collect();
        let (lo, hi) = sum_ratio_interval(&b, &exact, &groups, 0.95, 0.0).unwrap();
        assert!((lo - 1.1).abs() < 1e-9 && (hi - 1.1).abs() < 1e-9);
        assert_eq!(
            sum_ratio_interval(&b[..50], &c[..50], &groups[..50], 0.95, 0.0),
            None
        );
        assert_eq!(
            sum_ratio_interval(&[0.0; 4], &[1.0; 4], &[0, 0, 1, 1], 0.95, 0.0),
            None
        );
    }

    #[test]
    fn the_run_spread_adds_to_the_replicates_error_in_quadrature() {
        // Four replicates whose means are 0.00, 0.02, -0.02, 0.04 (as above).
        let values = [0.01, -0.01, 0.03, 0.01, -0.02, -0.02, 0.05, 0.03];
        let groups = [0, 0, 1, 1, 2, 2, 3, 3];
        let half = |(lo, hi): (f64, f64)| (hi.ln() - lo.ln()) / 2.0;
        let alone = half(log_mean_interval(&values, &groups, 0.95, 0.0).unwrap());
        let se = alone / t_quantile(0.95, 3);
        let run_spread = 0.02;
        let (lo, hi) = log_mean_interval(&values, &groups, 0.95, run_spread).unwrap();
        let expected = t_quantile(0.95, 3) * (se * se + run_spread * run_spread).sqrt();
        assert!((half((lo, hi)) - expected).abs() < 1e-12, "{lo} .. {hi}");
        // Still centred on the pooled mean, 0.01.
        assert!(((lo.ln() + hi.ln()) / 2.0 - 0.01).abs() < 1e-12);
        // Replicates that agree exactly leave the run spread alone.
        let b = [100.0, 200.0, 100.0, 200.0];
        let c = [110.0, 220.0, 110.0, 220.0];
        let (lo, hi) = sum_ratio_interval(&b, &c, &[0, 0, 1, 1], 0.95, run_spread).unwrap();
        let t = t_quantile(0.95, 1);
        assert!(
            (lo.ln() - (1.1f64.ln() - t * run_spread)).abs() < 1e-12,
            "{lo}"
        );
        assert!(
            (hi.ln() - (1.1f64.ln() + t * run_spread)).abs() < 1e-12,
            "{hi}"
        );
    }
}
