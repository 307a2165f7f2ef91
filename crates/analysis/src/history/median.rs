//! A confidence interval of a run's median solve time, from the time histogram the history
//! keeps with each row.
//!
//! Why this interval: the median rate `history check` judges is 1 / the median of one run's
//! solve times, and what the store keeps of those times is their histogram, not the times.
//! The order-statistic interval of a median needs nothing else and assumes no distribution
//! (solve times are skewed, with a long tail of preempted solves): whatever the
//! distribution, the true median lies between the `j`-th smallest and the `j`-th largest
//! of `n` times with probability `1 - 2 P(Binomial(n, 1/2) <= j - 1)`, and `j` is chosen as
//! the largest that keeps this at or above the confidence. It is exact for every `n`
//! (no normal approximation), and needs no resampling, so it is the same on every machine.
//! The bootstrap the comparison uses ([`crate::compare`]) needs the per-puzzle times,
//! which a history does not keep.
//!
//! A histogram knows each time to its bucket (3 significant digits): the interval takes
//! the lowest time of the lower order statistic's bucket and the highest of the upper's,
//! so bucketing can only widen it, and the median a summary reports (its bucket's highest
//! time, at most the longest solve) lies inside.

use hdrhistogram::Histogram;

/// The confidence of the intervals drawn and exported: 95%, as `compare`'s bootstrap has
/// it by default.
pub const CONFIDENCE: f64 = 0.95;

/// The rank `j` (1-based) such that the `j`-th smallest and the `j`-th largest of `n`
/// values hold the median with probability at least `confidence`; `None` when even the
/// smallest and the largest do not (fewer than 6 values at 95%).
pub fn rank(n: u64, confidence: f64) -> Option<u64> {
    if n == 0 {
        return None;
    }
    let tail = (1.0 - confidence) / 2.0;
    // P(Binomial(n, 1/2) <= k), summed in logarithms: 2^-n underflows from n = 1075 on.
    let ln_tail = tail.ln();
    let mut ln_pmf = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_cdf = ln_pmf;
    let mut j = 0;
    // j may grow while P(B <= j) stays within the tail: then [x_(j+1), x_(n-j)] holds.
    while ln_cdf <= ln_tail && j < n / 2 {
        j += 1;
        ln_pmf += ((n - j + 1) as f64 / j as f64).ln();
        ln_cdf = ln_add(ln_cdf, ln_pmf);
    }
    (j > 0).then_some(j)
}

/// ln(e^a + e^b).
fn ln_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// The time of the `k`-th smallest recorded value (1-based), to its bucket: its lowest
/// time with `low`, its highest without.
fn order_statistic(times: &Histogram<u64>, k: u64, low: bool) -> Option<u64> {
    let mut seen = 0;
    for bucket in times.iter_recorded() {
        seen += bucket.count_at_value();
        if seen >= k {
            let at = bucket.value_iterated_to();
            return Some(if low {
                times.lowest_equivalent(at)
            } else {
                times.highest_equivalent(at)
            });
        }
    }
    None
}

/// The interval of the median solve time, in nanoseconds, at `confidence` (see the
/// module's comment); `None` with too few times to make one.
pub fn median_interval(times: &Histogram<u64>, confidence: f64) -> Option<(u64, u64)> {
    let n = times.len();
    let j = rank(n, confidence)?;
    Some((
        order_statistic(times, j, true)?,
        order_statistic(times, n + 1 - j, false)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_those_of_the_binomial_tables() {
        // 95%: n = 6 gives the extremes (2 / 64 < 5%), n = 5 nothing (2 / 32 > 5%); n = 10
        // the 2nd and 9th (P(B <= 1) = 11/1024, P(B <= 2) = 56/1024); n = 100 the 40th and
        // 61st, as the tables of the sign test have them.
        assert_eq!(rank(5, 0.95), None);
        assert_eq!(rank(6, 0.95), Some(1));
        assert_eq!(rank(10, 0.95), Some(2));
        assert_eq!(rank(100, 0.95), Some(40));
        assert_eq!(rank(0, 0.95), None);
        // Large n, where 2^-n underflows: close to n/2 - 1.96 sqrt(n) / 2.
        let j = rank(1_000_000, 0.95).unwrap();
        assert!((499_018..=499_021).contains(&j), "{j}");
    }

    #[test]
    fn the_interval_holds_the_median_and_widens_to_whole_buckets() {
        let mut times = Histogram::<u64>::new_with_bounds(1, u64::MAX, 3).unwrap();
        times.auto(true);
        for t in 1..=100u64 {
            times.record(t * 10_000).unwrap();
        }
        // The 40th and 61st of 10, 20, ... 1000 µs, to their buckets of 3 digits.
        let (lo, hi) = median_interval(&times, 0.95).unwrap();
        assert_eq!(lo, times.lowest_equivalent(400_000));
        assert_eq!(hi, times.highest_equivalent(610_000));
        assert!(
            lo <= 400_000 && (610_000..611_000).contains(&hi),
            "{lo} {hi}"
        );
        let median = times.value_at_quantile(0.5);
        assert!(lo <= median && median <= hi);
        let mut few = Histogram::<u64>::new(3).unwrap();
        for t in 1..=5 {
            few.record(t).unwrap();
        }
        assert_eq!(median_interval(&few, 0.95), None);
    }
}
