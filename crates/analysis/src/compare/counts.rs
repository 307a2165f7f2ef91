//! Instruction counts in place of times: when every searched row of every run compared
//! carries the instructions its solve executed (`run --measure instructions`), a
//! comparison judges those. A count does not drift with the machine, so one run per side
//! is evidence enough, and the threshold is [`CompareOptions::count_threshold`]; the
//! pairing, ratios, intervals and verdicts are the times' own.

use std::borrow::Cow;

use super::load::Samples;
use super::{CompareError, CompareOptions};
use sudoku_bench_core::results::Metric;

/// What the searched rows of `runs` measured: instructions when all have their count, time
/// when none has; refused when some have and some have not: counts and times do not compare.
pub(crate) fn metric<'a>(
    runs: impl IntoIterator<Item = &'a Samples>,
) -> Result<Metric, CompareError> {
    let (mut counted, mut timed) = (0u64, 0u64);
    for run in runs {
        for corpus in run.values() {
            for sample in corpus.strategies.values().flat_map(|rows| rows.values()) {
                if sample.time_ns.is_some() {
                    match sample.instructions {
                        Some(_) => counted += 1,
                        None => timed += 1,
                    }
                }
            }
        }
    }
    match (counted, timed) {
        (0, _) => Ok(Metric::Time),
        (_, 0) => Ok(Metric::Instructions),
        (counted, timed) => Err(CompareError::MixedMetrics { counted, timed }),
    }
}

/// `run` as a comparison of `metric` judges it: each row's instructions where its time was
/// when counting (for the times' machinery), else as it is.
pub(crate) fn judged(run: &Samples, metric: Metric) -> Cow<'_, Samples> {
    if metric == Metric::Time {
        return Cow::Borrowed(run);
    }
    let mut run = run.clone();
    for corpus in run.values_mut() {
        for sample in corpus
            .strategies
            .values_mut()
            .flat_map(|rows| rows.values_mut())
        {
            sample.time_ns = sample.instructions;
        }
    }
    Cow::Owned(run)
}

/// `options` for a comparison of `metric`: counts have their own threshold.
pub(crate) fn options(options: &CompareOptions, metric: Metric) -> CompareOptions {
    match metric {
        Metric::Time => options.clone(),
        // Counts do not move between runs as times do.
        Metric::Instructions => CompareOptions {
            threshold: options.count_threshold,
            run_spread: 0.0,
            ..options.clone()
        },
    }
}
