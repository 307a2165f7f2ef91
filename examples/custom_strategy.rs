//! Benchmark your own Rust strategy with the library: implement `Strategy`, register it
//! with a closure that captures its configuration, and run it through the same `Runner`,
//! per-puzzle CSV and summary as the built-in ones.
//!
//! ```text
//! cargo run --release --example custom_strategy -- datasets/minimal.txt results/custom.csv summary.json
//! ```
//!
//! `cargo test --example custom_strategy` runs the conformance battery on it.

use std::error::Error;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Instant;

use sudoku_bench::clock::MonotonicClock;
use sudoku_bench::render::json::JsonExporter;
use sudoku_bench::render::table::{Exporter, TableExporter};
use sudoku_bench::results::CsvSink;
use sudoku_bench::runner::{Runner, Settings};
use sudoku_bench::strategy::{Budget, Limits, Outcome, Strategy, StrategyInfo, Tally};
use sudoku_bench::summary::Summary;
use sudoku_bench::{Corpus, Grid};

/// A plain backtracker over candidate bitmasks; `most_constrained` picks the empty cell
/// with the fewest candidates next, else the first empty cell.
struct Backtracker {
    most_constrained: bool,
}

impl Backtracker {
    fn search(&self, grid: &mut Grid, budget: &mut Budget, tally: &mut Tally, guesses: &mut u64) {
        // The next empty cell and its candidates (bit d set: digit d fits).
        let mut best: Option<(usize, u16)> = None;
        for cell in (0..81).filter(|&c| grid.get(c) == 0) {
            let used = (0..81)
                .filter(|&o| {
                    o / 9 == cell / 9
                        || o % 9 == cell % 9
                        || (o / 27 == cell / 27 && o % 9 / 3 == cell % 9 / 3)
                })
                .fold(0u16, |m, o| m | 1 << grid.get(o));
            let free = !used & 0b11_1111_1110;
            if best.is_none_or(|(_, b)| free.count_ones() < b.count_ones()) {
                best = Some((cell, free));
            }
            if !self.most_constrained || free.count_ones() <= 1 {
                break;
            }
        }
        let Some((cell, free)) = best else {
            tally.found(grid);
            return;
        };
        for digit in (1..=9u8).filter(|d| free & 1 << d != 0) {
            if !budget.spend() {
                return;
            }
            *guesses += (free.count_ones() > 1) as u64;
            grid.set(cell, digit);
            self.search(grid, budget, tally, guesses);
            if tally.done() || budget.aborted().is_some() {
                break;
            }
        }
        grid.set(cell, 0);
    }
}

impl Strategy for Backtracker {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        let (mut budget, mut tally, mut guesses) = (Budget::new(limits), Tally::new(limits), 0);
        self.search(&mut puzzle.clone(), &mut budget, &mut tally, &mut guesses);
        tally.outcome(&budget, guesses)
    }
}

/// The strategy, configured: each worker thread makes its own value from the closure.
fn backtracker(most_constrained: bool) -> StrategyInfo {
    let name = if most_constrained {
        "mine-mrv"
    } else {
        "mine-first"
    };
    StrategyInfo::new(name, move || Box::new(Backtracker { most_constrained }))
        .about("a backtracker over candidate bitmasks")
        .nodes_unit("digits placed")
        .counts_guesses(true)
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [corpus, csv, rest @ ..] = &args[..] else {
        return Err("usage: custom_strategy CORPUS OUT.csv [SUMMARY.json]".into());
    };
    let summary = benchmark(corpus, csv, rest.first().map(PathBuf::as_path))?;
    match summary.mismatches() {
        0 => Ok(()),
        n => Err(format!(
            "{n} wrong answers: see the error column of {}",
            csv.display()
        )
        .into()),
    }
}

/// Run both configurations over `corpus`: rows to `csv`, the summary to stderr as a
/// table and to `json` if given.
fn benchmark(corpus: &Path, csv: &Path, json: Option<&Path>) -> Result<Summary, Box<dyn Error>> {
    let settings = Settings {
        strategies: vec![backtracker(true), backtracker(false)],
        limits: Limits {
            max_nodes: 1_000_000,
            ..Limits::default()
        },
        ..Settings::default()
    };
    let clock = MonotonicClock::default();
    let mut runner = Runner::new(settings, 0, &clock)?;
    let started = Instant::now();
    let mut corpus = Corpus::open(corpus, None)?;
    let mut rows = CsvSink::new(Box::new(BufWriter::new(File::create(csv)?)))?;
    let mut summary = Summary::default();
    // Every count is checked against the built-in `fast` (`Settings::reference`).
    runner.run(&mut corpus, &mut (&mut rows, &mut summary))?;
    rows.finish()?;
    let wall_ns = started.elapsed().as_nanos() as u64;
    let report = runner
        .settings()
        .summary_report(&summary, runner.threads(), wall_ns);
    eprint!("{}", TableExporter.export(&report));
    if let Some(path) = json {
        std::fs::write(path, JsonExporter.export(&report))?;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use sudoku_bench::strategy::testkit;
    use sudoku_bench::summary::SummaryReport;

    #[test]
    fn passes_the_conformance_battery() {
        testkit::conformance(|| super::backtracker(true).make(), false);
        // In cell order it is too slow for the hard puzzles.
        testkit::conformance(|| super::backtracker(false).make(), true);
    }

    #[test]
    fn writes_the_standard_csv_and_summary() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        let corpus = [
            testkit::EASY,
            "# a comment",
            testkit::TWO_SOLUTIONS,
            testkit::UNSOLVABLE,
        ];
        std::fs::write(path("c.txt"), corpus.join("\n")).unwrap();
        let summary =
            super::benchmark(&path("c.txt"), &path("r.csv"), Some(&path("s.json"))).unwrap();
        assert_eq!(summary.mismatches(), 0);
        let mut csv = csv::Reader::from_path(path("r.csv")).unwrap();
        assert_eq!(
            csv.headers().unwrap(),
            &sudoku_bench::results::csv::COLUMNS[..]
        );
        let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
        // One row per puzzle and strategy, in input order.
        let got: Vec<(&str, &str, &str)> = rows.iter().map(|r| (&r[1], &r[2], &r[3])).collect();
        assert_eq!(
            got,
            [
                ("1", "mine-mrv", "unique"),
                ("1", "mine-first", "unique"),
                ("3", "mine-mrv", "multiple"),
                ("3", "mine-first", "multiple"),
                ("4", "mine-mrv", "unsolvable"),
                ("4", "mine-first", "unsolvable"),
            ]
        );
        let json = std::fs::read_to_string(path("s.json")).unwrap();
        let report: SummaryReport = serde_json::from_str(&json).unwrap();
        let puzzles: Vec<(String, u64)> = report
            .rows
            .into_iter()
            .map(|r| (r.strategy, r.puzzles))
            .collect();
        assert_eq!(puzzles, [("mine-mrv".into(), 3), ("mine-first".into(), 3)]);
    }
}
