//! In-run A/B: two strategies of one run, compared puzzle by puzzle (`compare RUN.csv
//! --between OLD,NEW`). The runner times the strategies of a chunk one after the other,
//! alternating their order chunk by chunk, so both saw the same machine and most drift
//! cancels in the per-puzzle ratio. What does not cancel is what differs between the
//! processes that solved (a layout that suits one copy of a library better than another)
//! and a burst that lands on one strategy's phase of a chunk. A run with several
//! replicates (`run --replicates`) shows the first: the interval is then over the
//! replicates ([`super::replicates`]). A CSV of one replicate gets an interval over the
//! puzzles only: a moving-block bootstrap over consecutive ones (blocks of about n^(1/3),
//! `stats::block_length`), for the bursts.

use std::collections::BTreeSet;

use super::load::Samples;
use super::{
    counts, load, pair, pair::Rows, puzzle_times, replicates, stats, verdict, CompareError,
    CompareOptions, Comparison, ComparisonRow, Mode, Run, Unpaired,
};

/// Compare each `(old, new)` pair of strategies of `run`, in every corpus where both have
/// rows. Fails when a name is not a strategy of the run, when a pair names one strategy
/// twice, or when the run is a summary JSON.
pub fn between(
    run: &Run,
    pairs: &[(String, String)],
    options: &CompareOptions,
) -> Result<Comparison, CompareError> {
    let Run::PerPuzzle(samples) = run else {
        return Err(CompareError::BetweenNeedsPerPuzzle);
    };
    let known: BTreeSet<&String> = samples.values().flat_map(|c| c.strategies.keys()).collect();
    for (old, new) in pairs {
        if old == new {
            return Err(CompareError::BetweenItself {
                old: old.clone(),
                new: new.clone(),
            });
        }
        for name in [old, new] {
            if !known.contains(name) {
                return Err(CompareError::UnknownStrategy {
                    name: name.clone(),
                    known: known.iter().map(|s| s.to_string()).collect(),
                });
            }
        }
    }
    let metric = counts::metric([samples])?;
    let options = CompareOptions {
        relative_to: None,
        ..counts::options(options, metric)
    };
    let judged = counts::judged(samples, metric);
    let samples = &*judged;
    let mut cmp = Comparison::new(Mode::InRun, &options, (1, 1));
    cmp.metric = metric;
    // A pair named twice is judged once: its rows would count twice in the coverage.
    let mut seen = BTreeSet::new();
    for (old, new) in pairs.iter().filter(|pair| seen.insert(*pair)) {
        pair_of(samples, old, new, &options, &mut cmp);
    }
    Ok(cmp)
}

/// Judge `new` against `old` in every corpus of `samples` that holds both, a row each in
/// `cmp`, with the lines only one side has among its unpaired.
fn pair_of(
    samples: &Samples,
    old: &str,
    new: &str,
    options: &CompareOptions,
    cmp: &mut Comparison,
) {
    for (name, corpus) in samples {
        let corpus_name = load::normal_name(name);
        let unpaired = |why, whole_strategy, lines: Vec<u64>| Unpaired {
            why,
            corpus: corpus_name.clone(),
            strategy: format!("{old} -> {new}"),
            whole_strategy,
            lines,
        };
        let (o, n) = (corpus.strategies.get(old), corpus.strategies.get(new));
        cmp.coverage.baseline_rows += o.map_or(0, |r| r.len() as u64);
        cmp.coverage.current_rows += n.map_or(0, |r| r.len() as u64);
        let Some((o, n)) = pair::both_sides(o, n, unpaired, &mut cmp.unpaired) else {
            continue;
        };
        for (why, lines) in pair::one_sided(o, n) {
            if !lines.is_empty() {
                cmp.unpaired.push(unpaired(why, false, lines));
            }
        }
        let mut row = ComparisonRow {
            baseline_strategy: Some(old.to_string()),
            ..ComparisonRow::new(corpus_name.clone(), new.to_string())
        };
        let times = PairedTimes::of(o, n, &mut row);
        if row.paired == 0 {
            continue;
        }
        cmp.coverage.paired += row.paired;
        times.judge(&mut row, options);
        row.verdict = verdict(
            options.threshold,
            row.search_changed > 0,
            true,
            row.time_ratio,
            row.ci,
        );
        cmp.rows.push(row);
    }
}

/// The timed puzzles of one corpus that both sides of a pair solved, in line order, which
/// is solve order: neighbours in these lists shared a chunk.
#[derive(Default)]
struct PairedTimes {
    /// Each side's times, as logarithms.
    xo: Vec<f64>,
    xn: Vec<f64>,
    /// Each side's times in nanoseconds.
    to_ns: Vec<f64>,
    tn_ns: Vec<f64>,
    /// Per puzzle, whether its search changed between the sides.
    changes: Vec<bool>,
    /// Each timed puzzle's replicate; `None` once a row has none or the sides differ
    /// (not one run's rows).
    groups: Option<Vec<u32>>,
}

impl PairedTimes {
    /// The puzzles both `o` and `n` solved, counted into `row` (paired, nodes, changed
    /// searches), with the times of the timed ones.
    fn of(o: &Rows, n: &Rows, row: &mut ComparisonRow) -> PairedTimes {
        let mut times = PairedTimes {
            groups: Some(Vec::new()),
            ..PairedTimes::default()
        };
        for (line, os) in o {
            let Some(ns) = n.get(line) else { continue };
            row.paired += 1;
            row.baseline_nodes += os.nodes.unwrap_or(0);
            row.current_nodes += ns.nodes.unwrap_or(0);
            row.nodes_counted |= os.nodes.is_some() && ns.nodes.is_some();
            let changed = !os.same_search(ns);
            row.search_changed += u64::from(changed);
            if let (Some(to), Some(tn)) = (os.time_ns, ns.time_ns) {
                times.xo.push((to.max(1) as f64).ln());
                times.xn.push((tn.max(1) as f64).ln());
                times.to_ns.push(to as f64);
                times.tn_ns.push(tn as f64);
                times.changes.push(changed);
                times.groups = times
                    .groups
                    .and_then(|mut g| match (os.replicate, ns.replicate) {
                        (Some(a), Some(b)) if a == b => {
                            g.push(a);
                            Some(g)
                        }
                        _ => None,
                    });
            }
        }
        times
    }

    /// `row`'s ratios and their intervals: over replicates when every timed puzzle names
    /// one on both sides, else a block bootstrap over puzzles in solve order.
    fn judge(self, row: &mut ComparisonRow, options: &CompareOptions) {
        let PairedTimes {
            xo,
            xn,
            to_ns,
            tn_ns,
            changes,
            groups,
        } = self;
        row.timed = xo.len() as u64;
        let (xo, xn) = (vec![xo], vec![xn]);
        row.time_ratio = stats::ratio_of_sides(&xo, &xn);
        row.puzzle_times = puzzle_times(&xo, &xn, &changes);
        row.throughput_ratio = stats::ratio_of_sums(&to_ns, &tn_ns);
        let level = options.bootstrap.confidence;
        let over_replicates = groups.and_then(|g| {
            let diffs: Vec<f64> = xn[0].iter().zip(&xo[0]).map(|(n, o)| n - o).collect();
            let spread = options.run_spread;
            let ci = replicates::log_mean_interval(&diffs, &g, level, spread)?;
            let throughput = replicates::sum_ratio_interval(&to_ns, &tn_ns, &g, level, spread);
            let count = g.iter().collect::<BTreeSet<_>>().len() as u32;
            Some((ci, throughput, count))
        });
        if let Some((ci, throughput, count)) = over_replicates {
            row.ci = Some(ci);
            row.throughput_ci = throughput;
            row.replicates = Some(count);
        } else {
            let block = stats::block_length(row.timed as usize);
            row.ci = options.bootstrap.interval(&xo, &xn, block);
            row.throughput_ci = options.bootstrap.sum_ratio_interval(&to_ns, &tn_ns, block);
        }
    }
}
