//! Instruction counts in place of times: when every searched row of every run compared
//! carries the instructions its solve executed (`run --measure instructions`), a
//! comparison judges those. A count does not drift with the machine, so one run per side
//! is evidence enough, and the threshold is [`CompareOptions::count_threshold`]; the
//! pairing, ratios, intervals and verdicts are the times' own.

use super::load::Samples;
use super::CompareOptions;

/// Whether every searched row of every run in `runs` has its instructions (and there is a
/// searched row): a run that timed and one that counted are compared by time.
pub(crate) fn counted<'a>(runs: impl IntoIterator<Item = &'a Samples>) -> bool {
    let mut any = false;
    for run in runs {
        for corpus in run.values() {
            for sample in corpus.strategies.values().flat_map(|rows| rows.values()) {
                if sample.time_ns.is_some() {
                    if sample.instructions.is_none() {
                        return false;
                    }
                    any = true;
                }
            }
        }
    }
    any
}

/// `run` with each row's instructions where its time was, for the times' machinery.
pub(crate) fn as_times(run: &Samples) -> Samples {
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
