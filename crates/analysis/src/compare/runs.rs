//! Per-puzzle CSVs, one or several runs per side. Corpora are paired between the first
//! baseline and the first current run ([`pair::corpora`]), and every other run of a side is
//! paired with its side's first run the same way, so a puzzle is known by the same corpus
//! and line in every run. A puzzle is compared only when every run holds it; its log time
//! (relative to the reference strategy's, with `--relative-to`) in each run feeds the
//! hierarchical bootstrap of [`super::stats`].

use std::collections::{BTreeMap, BTreeSet};

use super::load::{self, CorpusRows, Sample, Samples};
use super::{
    pair, puzzle_times, stats, verdict, CompareError, CompareOptions, Comparison, ComparisonRow,
    Side, Unpaired, Why,
};

/// Per-puzzle time for `strategy`, divided by the reference strategy's time on the same
/// puzzle when there is one; `None` when either is missing. Times of 0 ns (a clock too
/// coarse for the solve) count as 1 ns so that their logarithm exists. As a logarithm.
fn log_time(sample: &Sample, reference: Option<&BTreeMap<u64, Sample>>, line: u64) -> Option<f64> {
    let t = sample.time_ns?.max(1) as f64;
    let t = match reference {
        None => t,
        Some(r) => t / r.get(&line)?.time_ns?.max(1) as f64,
    };
    Some(t.ln())
}

/// Fails when the reference strategy is in no corpus of a run.
fn check_reference(s: &Samples, side: Side, options: &CompareOptions) -> Result<(), CompareError> {
    match &options.relative_to {
        Some(name) if !s.values().any(|c| c.strategies.contains_key(name)) => {
            Err(CompareError::NoReference {
                strategy: name.clone(),
                side,
            })
        }
        _ => Ok(()),
    }
}

/// For each run after a side's first, its corpus paired with each corpus of the first run.
fn others<'a>(side: &[&'a Samples]) -> Vec<BTreeMap<&'a str, &'a CorpusRows>> {
    side.iter()
        .skip(1)
        .map(|run| {
            pair::corpora(side[0], run)
                .into_iter()
                .filter_map(|p| match p {
                    (Some(first), Some(this)) => Some((first, &run[this])),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// Compare per-puzzle runs into `cmp` (at least one run per side).
pub(crate) fn per_puzzle(
    b: &[&Samples],
    c: &[&Samples],
    options: &CompareOptions,
    cmp: &mut Comparison,
) -> Result<(), CompareError> {
    for (side, runs) in [(Side::Baseline, b), (Side::Current, c)] {
        for run in runs {
            check_reference(run, side, options)?;
        }
    }
    let most = |side: &[&Samples]| {
        side.iter()
            .map(|s| s.values().map(CorpusRows::rows).sum::<u64>())
            .max()
            .unwrap_or(0)
    };
    cmp.coverage.baseline_rows = most(b);
    cmp.coverage.current_rows = most(c);
    let (b_others, c_others) = (others(b), others(c));
    for (bn, cn) in pair::corpora(b[0], c[0]) {
        match (bn, cn) {
            (Some(bn), Some(cn)) => {
                let b_runs = runs_of(&b[0][bn], &b_others, bn);
                let c_runs = runs_of(&c[0][cn], &c_others, cn);
                corpus_pair(&pair::label(bn, cn), &b_runs, &c_runs, options, cmp);
            }
            (Some(name), None) => only_in(Side::Baseline, name, &b[0][name], cmp),
            (None, Some(name)) => only_in(Side::Current, name, &c[0][name], cmp),
            (None, None) => {}
        }
    }
    Ok(())
}

/// A corpus of a side's first run, and the same corpus in each other run of the side.
fn runs_of<'a>(
    first: &'a CorpusRows,
    rest: &[BTreeMap<&str, &'a CorpusRows>],
    name: &str,
) -> Vec<Option<&'a CorpusRows>> {
    let mut all = vec![Some(first)];
    all.extend(rest.iter().map(|m| m.get(name).copied()));
    all
}

fn only_in(side: Side, name: &str, rows: &CorpusRows, cmp: &mut Comparison) {
    for (strategy, lines) in &rows.strategies {
        cmp.unpaired.push(Unpaired {
            why: match side {
                Side::Baseline => Why::OnlyInBaseline,
                Side::Current => Why::OnlyInCurrent,
            },
            corpus: load::normal_name(name),
            strategy: strategy.clone(),
            whole_strategy: true,
            lines: lines.keys().copied().collect(),
        });
    }
}

/// Every run's sample of `strategy` on `line`, when each run holds `puzzle` there.
fn samples_at<'a>(
    runs: &[Option<&'a CorpusRows>],
    strategy: &str,
    line: u64,
    puzzle: Option<&String>,
) -> Option<Vec<&'a Sample>> {
    runs.iter()
        .map(|run| {
            let run = (*run)?;
            if run.puzzles.get(&line) != puzzle {
                return None;
            }
            run.strategies.get(strategy)?.get(&line)
        })
        .collect()
}

/// The reference strategy's rows in every run, or `None` (no reference, or a run without it).
fn refs<'a>(
    runs: &[Option<&'a CorpusRows>],
    reference: Option<&String>,
) -> Option<Vec<&'a BTreeMap<u64, Sample>>> {
    let name = reference?;
    runs.iter()
        .map(|r| r.and_then(|r| r.strategies.get(name)))
        .collect()
}

/// One corpus, its runs on each side (the first of each always there).
fn corpus_pair(
    corpus: &str,
    b_runs: &[Option<&CorpusRows>],
    c_runs: &[Option<&CorpusRows>],
    options: &CompareOptions,
    cmp: &mut Comparison,
) {
    let (b, c) = (
        b_runs[0].expect("a first run"),
        c_runs[0].expect("a first run"),
    );
    let strategies: BTreeSet<&String> = b.strategies.keys().chain(c.strategies.keys()).collect();
    let reference = options.relative_to.as_ref();
    let (b_refs, c_refs) = (refs(b_runs, reference), refs(c_runs, reference));
    let same_puzzle = |line: &u64| b.puzzles.get(line) == c.puzzles.get(line);
    let conclusive = cmp.conclusive();
    for strategy in strategies {
        let unpaired = |why, whole_strategy, lines: Vec<u64>| Unpaired {
            why,
            corpus: corpus.to_string(),
            strategy: strategy.clone(),
            whole_strategy,
            lines,
        };
        let Some((b_rows, c_rows)) = pair::both_sides(
            b.strategies.get(strategy),
            c.strategies.get(strategy),
            unpaired,
            &mut cmp.unpaired,
        ) else {
            continue;
        };
        let lines = |rows: &BTreeMap<u64, Sample>, keep: &dyn Fn(&u64) -> bool| -> Vec<u64> {
            rows.keys().filter(|l| keep(l)).copied().collect()
        };
        let not_in_every_run: Vec<u64> = lines(b_rows, &|l| {
            c_rows.contains_key(l)
                && same_puzzle(l)
                && (samples_at(b_runs, strategy, *l, b.puzzles.get(l)).is_none()
                    || samples_at(c_runs, strategy, *l, b.puzzles.get(l)).is_none())
        });
        let [only_b, only_c] = pair::one_sided(b_rows, c_rows);
        for (why, lines) in [
            only_b,
            only_c,
            (
                Why::DifferentPuzzle,
                lines(b_rows, &|l| c_rows.contains_key(l) && !same_puzzle(l)),
            ),
            (Why::NotInEveryRun, not_in_every_run),
        ] {
            if !lines.is_empty() {
                cmp.unpaired.push(unpaired(why, false, lines));
            }
        }
        let is_reference = reference.map(String::as_str) == Some(strategy.as_str());
        let mut row = ComparisonRow {
            reference: is_reference,
            ..ComparisonRow::new(corpus.to_string(), strategy.clone())
        };
        // Log times per run, puzzles in the same order in every run.
        let mut xb: Vec<Vec<f64>> = vec![Vec::new(); b_runs.len()];
        let mut xc: Vec<Vec<f64>> = vec![Vec::new(); c_runs.len()];
        // Whether each timed puzzle's search changed, in the order of `xb` and `xc`.
        let mut changes = Vec::new();
        let timed =
            !is_reference && (reference.is_none() || (b_refs.is_some() && c_refs.is_some()));
        for line in b_rows.keys() {
            let puzzle = b.puzzles.get(line);
            if !same_puzzle(line) {
                continue;
            }
            let (Some(bs), Some(cs)) = (
                samples_at(b_runs, strategy, *line, puzzle),
                samples_at(c_runs, strategy, *line, puzzle),
            ) else {
                continue;
            };
            row.paired += 1;
            row.baseline_nodes += bs[0].nodes.unwrap_or(0);
            row.current_nodes += cs[0].nodes.unwrap_or(0);
            row.nodes_counted |= bs[0].nodes.is_some() || cs[0].nodes.is_some();
            // Deterministic counts: any run that differs from the first is a change.
            let changed = bs.iter().chain(&cs).any(|s| !s.same_search(bs[0]));
            row.search_changed += u64::from(changed);
            if !timed {
                continue;
            }
            let logs = |samples: &[&Sample], refs: &Option<Vec<&BTreeMap<u64, Sample>>>| {
                samples
                    .iter()
                    .enumerate()
                    .map(|(i, s)| log_time(s, refs.as_ref().map(|r| r[i]), *line))
                    .collect::<Option<Vec<f64>>>()
            };
            if let (Some(lb), Some(lc)) = (logs(&bs, &b_refs), logs(&cs, &c_refs)) {
                xb.iter_mut().zip(lb).for_each(|(run, x)| run.push(x));
                xc.iter_mut().zip(lc).for_each(|(run, x)| run.push(x));
                changes.push(changed);
            }
        }
        if row.paired == 0 {
            // All listed as unpaired; a row would read "no change" about nothing.
            continue;
        }
        cmp.coverage.paired += row.paired;
        row.timed = xb[0].len() as u64;
        if is_reference {
            row.time_ratio = Some(1.0);
        } else {
            row.time_ratio = stats::ratio_of_sides(&xb, &xc);
            row.puzzle_times = puzzle_times(&xb, &xc, &changes);
            if conclusive {
                row.ci = options.bootstrap.interval(&xb, &xc, 1);
            }
        }
        row.verdict = verdict(
            options.threshold,
            row.search_changed > 0,
            conclusive || is_reference,
            row.time_ratio,
            row.ci,
        );
        cmp.rows.push(row);
    }
}
