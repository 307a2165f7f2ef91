//! Instruction counts in place of times: when every searched row of every run compared
//! carries the instructions its solve executed (`run --measure instructions`), a
//! comparison judges those. A count does not drift with the machine, so one run per side
//! is evidence enough, and the threshold is [`CompareOptions::count_threshold`]; the
//! pairing, ratios, intervals and verdicts are the times' own.

use super::load::Samples;
use super::{CompareError, CompareOptions};

/// Whether the searched rows of `runs` all have their instructions (`true`) or none has
/// (`false`); refused when some have and some have not: counts and times do not compare.
pub(crate) fn counted<'a>(
    runs: impl IntoIterator<Item = &'a Samples>,
) -> Result<bool, CompareError> {
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
        (0, _) => Ok(false),
        (_, 0) => Ok(true),
        (counted, timed) => Err(CompareError::MixedMetrics { counted, timed }),
    }
}

/// `run` with each row's instructions where its time was, for the times' machinery.
pub(crate) fn counts_as_times(run: &Samples) -> Samples {
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
    run
}

/// `options` for counts: their own threshold.
pub(crate) fn options(options: &CompareOptions) -> CompareOptions {
    CompareOptions {
        threshold: options.count_threshold,
        ..options.clone()
    }
}
