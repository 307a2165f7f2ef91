//! Per-puzzle CSVs, one or several runs per side. Corpora are paired between the first
//! baseline and the first current run ([`pair::corpora`]), and every other run of a side is
//! paired with its side's first run the same way, so a puzzle is known by the same corpus
//! and line in every run. A puzzle is compared only when every run holds it; its log time
//! (relative to the reference strategy's, with `--relative-to`) in each run feeds the
//! hierarchical bootstrap of [`super::stats`].

use std::collections::{BTreeMap, BTreeSet};

use super::load::{self, CorpusRows, Sample, Samples};
use super::pair::Rows;
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
fn refs<'a>(runs: &[Option<&'a CorpusRows>], reference: Option<&String>) -> Option<Vec<&'a Rows>> {
    let name = reference?;
    runs.iter()
        .map(|r| r.and_then(|r| r.strategies.get(name)))
        .collect()
}

/// One corpus's runs on both sides (the first of each always there), and the reference
/// strategy's rows in each run when there is one.
struct CorpusRuns<'a> {
    corpus: &'a str,
    baseline: &'a [Option<&'a CorpusRows>],
    current: &'a [Option<&'a CorpusRows>],
    reference: Option<&'a String>,
    baseline_refs: Option<Vec<&'a Rows>>,
    current_refs: Option<Vec<&'a Rows>>,
}

/// One corpus, its runs on each side (the first of each always there).
fn corpus_pair(
    corpus: &str,
    baseline: &[Option<&CorpusRows>],
    current: &[Option<&CorpusRows>],
    options: &CompareOptions,
    cmp: &mut Comparison,
) {
    let reference = options.relative_to.as_ref();
    let runs = CorpusRuns {
        corpus,
        baseline,
        current,
        reference,
        baseline_refs: refs(baseline, reference),
        current_refs: refs(current, reference),
    };
    let (b, c) = runs.first();
    let strategies: BTreeSet<&String> = b.strategies.keys().chain(c.strategies.keys()).collect();
    let conclusive = cmp.conclusive();
    for strategy in strategies {
        let Some((b_rows, c_rows)) = pair::both_sides(
            b.strategies.get(strategy),
            c.strategies.get(strategy),
            |why, whole_strategy, lines| runs.unpaired(strategy, why, whole_strategy, lines),
            &mut cmp.unpaired,
        ) else {
            continue;
        };
        runs.list_unpaired(strategy, b_rows, c_rows, &mut cmp.unpaired);
        if let Some(row) = runs.row(strategy, b_rows, options, conclusive) {
            cmp.coverage.paired += row.paired;
            cmp.rows.push(row);
        }
    }
}

impl<'a> CorpusRuns<'a> {
    /// The first run of each side.
    fn first(&self) -> (&'a CorpusRows, &'a CorpusRows) {
        (
            self.baseline[0].expect("a first run"),
            self.current[0].expect("a first run"),
        )
    }

    /// Whether the first run of each side holds the same puzzle on `line`.
    fn same_puzzle(&self, line: &u64) -> bool {
        let (b, c) = self.first();
        b.puzzles.get(line) == c.puzzles.get(line)
    }

    fn unpaired(
        &self,
        strategy: &str,
        why: Why,
        whole_strategy: bool,
        lines: Vec<u64>,
    ) -> Unpaired {
        Unpaired {
            why,
            corpus: self.corpus.to_string(),
            strategy: strategy.to_string(),
            whole_strategy,
            lines,
        }
    }

    /// Every run's samples of `strategy` on `line`, baseline and current, when every run of
    /// both sides holds the same puzzle there.
    fn samples(&self, strategy: &str, line: u64) -> Option<(Vec<&'a Sample>, Vec<&'a Sample>)> {
        if !self.same_puzzle(&line) {
            return None;
        }
        let puzzle = self.first().0.puzzles.get(&line);
        Some((
            samples_at(self.baseline, strategy, line, puzzle)?,
            samples_at(self.current, strategy, line, puzzle)?,
        ))
    }

    /// Lists the lines of `strategy` that cannot be compared, with why, into `out`.
    fn list_unpaired(&self, strategy: &str, b_rows: &Rows, c_rows: &Rows, out: &mut Vec<Unpaired>) {
        let lines = |keep: &dyn Fn(&u64) -> bool| -> Vec<u64> {
            b_rows.keys().filter(|l| keep(l)).copied().collect()
        };
        let [only_b, only_c] = pair::one_sided(b_rows, c_rows);
        let different = lines(&|l| c_rows.contains_key(l) && !self.same_puzzle(l));
        let not_in_every_run = lines(&|l| {
            c_rows.contains_key(l) && self.same_puzzle(l) && self.samples(strategy, *l).is_none()
        });
        for (why, lines) in [
            only_b,
            only_c,
            (Why::DifferentPuzzle, different),
            (Why::NotInEveryRun, not_in_every_run),
        ] {
            if !lines.is_empty() {
                out.push(self.unpaired(strategy, why, false, lines));
            }
        }
    }

    /// The comparison row of `strategy` over the puzzles every run holds (`b_rows` are its
    /// rows in the baseline's first run), or `None` when there is none.
    fn row(
        &self,
        strategy: &str,
        b_rows: &Rows,
        options: &CompareOptions,
        conclusive: bool,
    ) -> Option<ComparisonRow> {
        let is_reference = self.reference.map(String::as_str) == Some(strategy);
        let mut row = ComparisonRow {
            reference: is_reference,
            ..ComparisonRow::new(self.corpus.to_string(), strategy.to_string())
        };
        let timed = !is_reference
            && (self.reference.is_none()
                || (self.baseline_refs.is_some() && self.current_refs.is_some()));
        let mut logs = Logs::new(self.baseline.len(), self.current.len());
        for &line in b_rows.keys() {
            let Some((before, after)) = self.samples(strategy, line) else {
                continue;
            };
            let changed = count_pair(&mut row, &before, &after);
            if !timed {
                continue;
            }
            if let (Some(b), Some(c)) = (
                log_times(&before, &self.baseline_refs, line),
                log_times(&after, &self.current_refs, line),
            ) {
                logs.push(b, c, changed);
            }
        }
        if row.paired == 0 {
            // All listed as unpaired; a row would read "no change" about nothing.
            return None;
        }
        row.timed = logs.baseline[0].len() as u64;
        if is_reference {
            row.time_ratio = Some(1.0);
        } else {
            row.time_ratio = stats::ratio_of_sides(&logs.baseline, &logs.current);
            row.puzzle_times = puzzle_times(&logs.baseline, &logs.current, &logs.changed);
            if conclusive {
                row.ci = options.bootstrap.interval(&logs.baseline, &logs.current, 1);
            }
        }
        row.verdict = verdict(
            options.threshold,
            row.search_changed > 0,
            conclusive || is_reference,
            row.time_ratio,
            row.ci,
        );
        Some(row)
    }
}

/// Counts one paired puzzle into `row` (its nodes from each side's first run); whether its
/// search changed: nodes and guesses are deterministic, so any run that differs from the
/// first is a change.
fn count_pair(row: &mut ComparisonRow, before: &[&Sample], after: &[&Sample]) -> bool {
    row.paired += 1;
    row.baseline_nodes += before[0].nodes.unwrap_or(0);
    row.current_nodes += after[0].nodes.unwrap_or(0);
    row.nodes_counted |= before[0].nodes.is_some() || after[0].nodes.is_some();
    let changed = before
        .iter()
        .chain(after)
        .any(|s| !s.same_search(before[0]));
    row.search_changed += u64::from(changed);
    changed
}

/// Each run's log time of its sample on `line` (see [`log_time`]), or `None` when a run
/// lacks it.
fn log_times(samples: &[&Sample], refs: &Option<Vec<&Rows>>, line: u64) -> Option<Vec<f64>> {
    samples
        .iter()
        .enumerate()
        .map(|(i, s)| log_time(s, refs.as_ref().map(|r| r[i]), line))
        .collect()
}

/// Per run of each side, the log times of the timed puzzles, in the same order in every
/// run; and whether each puzzle's search changed, in that order.
struct Logs {
    baseline: Vec<Vec<f64>>,
    current: Vec<Vec<f64>>,
    changed: Vec<bool>,
}

impl Logs {
    fn new(baseline_runs: usize, current_runs: usize) -> Logs {
        Logs {
            baseline: vec![Vec::new(); baseline_runs],
            current: vec![Vec::new(); current_runs],
            changed: Vec::new(),
        }
    }

    /// One puzzle: each run's log time on each side, and whether its search changed.
    fn push(&mut self, baseline: Vec<f64>, current: Vec<f64>, changed: bool) {
        self.baseline
            .iter_mut()
            .zip(baseline)
            .for_each(|(run, x)| run.push(x));
        self.current
            .iter_mut()
            .zip(current)
            .for_each(|(run, x)| run.push(x));
        self.changed.push(changed);
    }
}
