//! Comparison when a run is a summary JSON: no puzzles to pair, so each run gives one
//! number per (corpus, strategy), its median solve time. The median, not the mean: one
//! preemption of a few milliseconds moves a mean over a thousand fast puzzles by half,
//! and a median not at all. One run per side is inconclusive; with several, the interval
//! comes from resampling the runs' medians (the bootstrap of [`super::stats`] with
//! one "puzzle" per run).

use std::collections::{BTreeMap, BTreeSet};

use super::load::Aggregate;
use super::{stats, verdict, CompareOptions, Comparison, ComparisonRow, Run, Unpaired, Why};

type Key = (String, String);

fn in_every<'a>(side: &'a [BTreeMap<Key, Aggregate>], key: &Key) -> Option<Vec<&'a Aggregate>> {
    side.iter().map(|a| a.get(key)).collect()
}

/// Compare the runs' summaries into `cmp`.
pub fn summary(baseline: &[Run], current: &[Run], options: &CompareOptions, cmp: &mut Comparison) {
    let b: Vec<BTreeMap<Key, Aggregate>> = baseline.iter().map(Run::aggregates).collect();
    let c: Vec<BTreeMap<Key, Aggregate>> = current.iter().map(Run::aggregates).collect();
    let most = |side: &[BTreeMap<Key, Aggregate>]| side.iter().map(|a| a.len() as u64).max();
    cmp.coverage.baseline_rows = most(&b).unwrap_or(0);
    cmp.coverage.current_rows = most(&c).unwrap_or(0);
    let keys: BTreeSet<&Key> = b.iter().chain(&c).flat_map(|a| a.keys()).collect();
    let conclusive = cmp.conclusive();
    for key in keys {
        let (Some(ba), Some(ca)) = (in_every(&b, key), in_every(&c, key)) else {
            let in_all =
                |side: &[BTreeMap<Key, Aggregate>]| side.iter().all(|a| a.contains_key(key));
            cmp.unpaired.push(Unpaired {
                why: match (in_all(&b), in_all(&c)) {
                    (true, false) if c.iter().all(|a| !a.contains_key(key)) => Why::OnlyInBaseline,
                    (false, true) if b.iter().all(|a| !a.contains_key(key)) => Why::OnlyInCurrent,
                    _ => Why::NotInEveryRun,
                },
                corpus: key.0.clone(),
                strategy: key.1.clone(),
                whole_strategy: true,
                lines: Vec::new(),
            });
            continue;
        };
        cmp.coverage.paired += 1;
        let medians = |side: &[&Aggregate]| -> Option<Vec<Vec<f64>>> {
            side.iter()
                .map(|a| (a.median_ns > 0).then(|| vec![(a.median_ns as f64).ln()]))
                .collect()
        };
        let (xb, xc) = (
            medians(&ba).unwrap_or_default(),
            medians(&ca).unwrap_or_default(),
        );
        let time_ratio = stats::ratio_of_sides(&xb, &xc);
        let ci = if conclusive {
            options.bootstrap.interval(&xb, &xc, 1)
        } else {
            None
        };
        // Without per-puzzle data a different puzzle count is also a different search.
        let first = ba[0];
        let changed = ba
            .iter()
            .chain(&ca)
            .any(|a| a.total_nodes != first.total_nodes || a.searched != first.searched);
        let current = ca[0];
        cmp.rows.push(ComparisonRow {
            paired: current.searched,
            timed: current.searched.min(first.searched),
            baseline_nodes: first.total_nodes.unwrap_or(0),
            current_nodes: current.total_nodes.unwrap_or(0),
            nodes_counted: first.total_nodes.is_some() || current.total_nodes.is_some(),
            search_changed: changed as u64,
            time_ratio,
            ci,
            verdict: verdict(options.threshold, changed, conclusive, time_ratio, ci),
            ..ComparisonRow::new(key.0.clone(), key.1.clone())
        });
    }
}
