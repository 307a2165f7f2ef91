//! The statistics `compare` rests on: geometric means of ratios and a seeded,
//! deterministic percentile bootstrap of their confidence interval.
//!
//! Ratios are handled as natural logarithms: a geometric mean is the exponential of the
//! mean log, and "twice as slow" and "twice as fast" sit at the same distance from 1.

use crate::rng::Rng;

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

/// Bootstrap settings: how many resamples, the confidence level and the seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bootstrap {
    pub resamples: usize,
    /// E.g. 0.95 for a 95% interval.
    pub confidence: f64,
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

impl Bootstrap {
    /// Percentile bootstrap interval of the geometric mean of ratios given as logarithms.
    /// The same input gives the same interval every time. `None` when `logs` is empty; a
    /// single value gives a zero-width interval (there is nothing to resample).
    pub fn geometric_mean_ci(&self, logs: &[f64]) -> Option<(f64, f64)> {
        let n = logs.len();
        if n == 0 {
            return None;
        }
        let resamples = self.resamples.max(1);
        let mut rng = Rng::from_seed(self.seed);
        let n32 = u32::try_from(n).unwrap_or(u32::MAX);
        let mut means: Vec<f64> = (0..resamples)
            .map(|_| (0..n).map(|_| logs[rng.below(n32) as usize]).sum::<f64>() / n as f64)
            .collect();
        means.sort_by(f64::total_cmp);
        let tail = (1.0 - self.confidence.clamp(0.0, 1.0)) / 2.0;
        let at = |q: f64| means[((q * (resamples - 1) as f64).round() as usize).min(resamples - 1)];
        Some((at(tail).exp(), at(1.0 - tail).exp()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let logs: Vec<f64> = (0..300)
            .map(|_| {
                let u = rng.next_u64() as f64 / u64::MAX as f64;
                true_ratio.ln() + (u - 0.5) * 0.4 // symmetric noise in log space
            })
            .collect();
        let b = Bootstrap::default();
        let (lo, hi) = b.geometric_mean_ci(&logs).unwrap();
        assert_eq!(
            b.geometric_mean_ci(&logs),
            Some((lo, hi)),
            "same seed, same interval"
        );
        assert!(lo < true_ratio && true_ratio < hi, "{lo} .. {hi}");
        assert!(
            hi - lo < 0.1,
            "300 samples give a narrow interval: {lo} .. {hi}"
        );
        let g = geometric_mean_of_logs(&logs).unwrap();
        assert!(lo <= g && g <= hi);
        let other = Bootstrap { seed: 1, ..b }.geometric_mean_ci(&logs).unwrap();
        assert_ne!(other, (lo, hi), "the seed is used");
    }

    #[test]
    fn bootstrap_edge_cases() {
        let b = Bootstrap::default();
        assert_eq!(b.geometric_mean_ci(&[]), None);
        let (lo, hi) = b.geometric_mean_ci(&[2f64.ln()]).unwrap();
        assert!((lo - 2.0).abs() < 1e-12 && (hi - 2.0).abs() < 1e-12);
    }
}
