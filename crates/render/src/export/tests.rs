//! The summary's formats, each checked on reports made here (no run timed).

use super::csv::CsvExporter;
use super::json::CompareJsonExporter;
use super::json::JsonExporter;
use super::markdown::CompareMarkdownExporter;
use super::markdown::MarkdownExporter;
use super::table::CompareTableExporter;
use super::table::{counted, fit_path, statuses, wrap, TableExporter, WideTableExporter};
use super::{CompareExporter, Exporter};
use sudoku_bench_analysis::compare::{compare, CompareOptions, Comparison, Run};
use sudoku_bench_core::machine::Machine;
use sudoku_bench_core::summary::{PipeCost, SolverResources, SummaryReport, SummaryRow};

/// A row of `strategy` on `corpus` with the given statuses (in `Status::ALL`'s order)
/// and figures.
fn row(corpus: &str, strategy: &str, counts: [u64; 7]) -> SummaryRow {
    SummaryRow {
        corpus: corpus.into(),
        strategy: strategy.into(),
        puzzles: counts.iter().sum(),
        unique: counts[0],
        multiple: counts[1],
        unsolvable: counts[2],
        solved: counts[3],
        invalid: counts[4],
        malformed: counts[5],
        aborted: counts[6],
        mismatches: 0,
        failures: 0,
        unreturned: 0,
        searched: counts.iter().sum::<u64>() - counts[4] - counts[5],
        puzzles_per_s_per_core: 106_636.4,
        wall_puzzles_per_s: 149_398.0,
        median_puzzles_per_s_per_core: 126_470.0,
        slowest_1pct_share: 0.057,
        preemptions: Some(4),
        total_time_ns: 13_738_000,
        wall_ns: 9_806_000,
        mean_ns: 9_378.0,
        median_ns: 7_907,
        p90_ns: 16_055,
        p99_ns: 34_495,
        max_ns: 125_687,
        mean_nodes: Some(426_864.2),
        mean_guesses: None,
        no_guess_share: None,
        total_instructions: None,
        mean_instructions: None,
    }
}

fn report(rows: Vec<SummaryRow>) -> SummaryReport {
    let settings = sudoku_bench_core::runner::Settings::default();
    SummaryReport {
        rows,
        ..settings.summary_report(&sudoku_bench_core::summary::Summary::default(), 2, 1)
    }
}

#[test]
fn statuses_fold_into_the_non_zero_counts_and_keep_faults_in_sight() {
    let folded = |r: &SummaryRow| counted(&statuses(r));
    let mut r = row("c", "s", [1200, 3, 0, 0, 0, 0, 2]);
    assert_eq!(folded(&r).unwrap(), "1200 unique, 3 multiple, 2 aborted");
    r.mismatches = 4;
    r.failures = 1;
    r.unreturned = 7;
    assert_eq!(
        folded(&r).unwrap(),
        "1200 unique, 3 multiple, 2 aborted, 4 mismatch, 1 failed, 7 unreturned"
    );
    assert_eq!(folded(&row("c", "s", [0; 7])), None);
}

#[test]
fn the_default_table_names_each_corpus_once_above_its_rows() {
    let long = "../shared/datasets/puzzles3_magictour_top1465_with_a_much_longer_name";
    let rows = vec![
        row(long, "naive", [1146, 0, 0, 0, 0, 0, 319]),
        row(long, "fast", [1465, 0, 0, 0, 0, 0, 0]),
        row("b.txt", "naive", [5, 0, 0, 0, 1, 2, 0]),
        row("b.txt", "fast", [5, 0, 0, 0, 1, 2, 0]),
    ];
    let text = TableExporter.export(&report(rows));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], format!("{long}: 1,465 puzzles"), "{text}");
    assert!(lines[1].starts_with("strategy  statuses"), "{text}");
    assert!(
        lines[2].starts_with("naive     1146 unique, 319 aborted"),
        "{text}"
    );
    assert!(lines[3].starts_with("fast      1465 unique "), "{text}");
    assert_eq!(lines[4], "", "{text}");
    assert_eq!(lines[5], "b.txt: 8 puzzles", "{text}");
    assert_eq!(lines[6], "not searched: 1 invalid, 2 malformed", "{text}");
    assert!(lines[7].starts_with("strategy"), "{text}");
    assert!(lines[8].starts_with("naive     5 unique   "), "{text}");
    // Last, the CPU the times hold for.
    let cpu = &report(Vec::new()).machine.cpu;
    assert_eq!(lines[10], format!("timed on {cpu}"), "{text}");
    assert_eq!(lines.len(), 11, "{text}");
    // The path is said once per block, never in the rows.
    assert_eq!(text.matches(long).count(), 1, "{text}");
    // Columns line up across blocks: every heading line is the same.
    assert_eq!(lines[1], lines[7]);
    let cells: Vec<&str> = lines[3].split("  ").filter(|c| !c.is_empty()).collect();
    assert_eq!(
        cells.iter().map(|c| c.trim()).collect::<Vec<_>>(),
        [
            "fast",
            "1465 unique",
            "106,636",
            "7.91 µs",
            "34.5 µs",
            "126 µs",
            "427k",
            "-"
        ],
        "{text}"
    );
}

#[test]
fn a_corpus_path_too_long_for_the_line_is_cut_at_its_start_and_the_count_moves_down() {
    let long = format!("/data/{}/puzzles.txt", "d".repeat(120));
    let mut summary = sudoku_bench_core::summary::Summary::default();
    summary.group(&long, "fast");
    let settings = sudoku_bench_core::runner::Settings::default();
    let text = TableExporter.export(&settings.summary_report(&summary, 1, 1));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().all(|l| l.chars().count() <= 100), "{text}");
    assert!(
        lines[0].starts_with('…') && lines[0].ends_with("/puzzles.txt:"),
        "{text}"
    );
    assert_eq!(lines[1], "0 puzzles", "{text}");
    assert_eq!(fit_path("short.txt", 99), "short.txt");
}

#[test]
fn the_default_table_fits_100_columns_where_the_wide_one_does_not() {
    let rows: Vec<SummaryRow> = sudoku_bench_core::strategy::STRATEGIES
        .iter()
        .map(|s| {
            let mut r = row(
                "../shared/datasets/puzzles3_magictour_top1465",
                &s.name,
                [1146, 0, 0, 0, 0, 0, 319],
            );
            r.mean_guesses = Some(2908.84);
            r.max_ns = 1_535_000_000;
            r
        })
        .collect();
    let report = report(rows);
    let widest = |text: &str| text.lines().map(|l| l.chars().count()).max().unwrap();
    let narrow = TableExporter.export(&report);
    assert!(widest(&narrow) <= 100, "{narrow}");
    let wide = WideTableExporter.export(&report);
    assert!(widest(&wide) > 100, "{wide}");
    for heading in [
        "corpus",
        "wall puzzles/s",
        "p90",
        "time in slowest 1%",
        "no guess",
    ] {
        assert!(wide.lines().next().unwrap().contains(heading), "{wide}");
    }
}

#[test]
fn statuses_wrap_rather_than_widen_the_table() {
    let mut many = row("c", "a-solver-with-a-long-name", [1200, 3, 17, 0, 0, 0, 2]);
    many.mismatches = 4;
    many.failures = 1;
    let rows = vec![many, row("c", "fast", [1222, 0, 0, 0, 0, 0, 0])];
    let text = TableExporter.export(&report(rows));
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[2].starts_with("a-solver-with-a-long-name  1200 unique, "),
        "{text}"
    );
    // The rest of the row's statuses on lines of their own, in their column.
    let rest: Vec<&str> = lines[3..lines.len() - 2].iter().map(|l| l.trim()).collect();
    assert!(
        lines[3].starts_with("                           "),
        "{text}"
    );
    let all = format!(
        "{} {}",
        lines[2].split("  ").nth(1).unwrap(),
        rest.join(" ")
    );
    assert_eq!(
        all, "1200 unique, 3 multiple, 17 unsolvable, 2 aborted, 4 mismatch, 1 failed",
        "{text}"
    );
    assert!(lines[lines.len() - 2].starts_with("fast "), "{text}");
    assert_eq!(wrap("-", 3), ["-"]);
    assert_eq!(wrap("1 a, 2 b, 3 c", 9), ["1 a, 2 b,", "3 c"]);
    assert_eq!(wrap("1 a, 2 b, 3 c", 100), ["1 a, 2 b, 3 c"]);
    // No room at all: one count a line, never split.
    assert_eq!(wrap("10 a, 2 b", 0), ["10 a,", "2 b"]);
}

#[test]
fn nothing_timed_shows_no_figures() {
    let mut r = row("c", "s", [0, 0, 0, 0, 2, 1, 0]);
    r.mean_nodes = None;
    let text = TableExporter.export(&report(vec![r]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..2],
        ["c: 3 puzzles", "not searched: 2 invalid, 1 malformed"]
    );
    let cells: Vec<&str> = lines[3].split_whitespace().collect();
    assert_eq!(cells, ["s", "-", "-", "-", "-", "-", "-", "-"], "{text}");
}

#[test]
fn unsearched_lines_stay_in_the_rows_when_the_strategies_disagree_on_them() {
    // Not from a run (every strategy sees the same lines), but from a summary put
    // together by hand: nothing is hidden then.
    let rows = vec![
        row("c", "a", [5, 0, 0, 0, 1, 0, 0]),
        row("c", "b", [4, 0, 0, 0, 2, 0, 0]),
    ];
    let text = TableExporter.export(&report(rows));
    assert!(text.starts_with("c: 6 puzzles\n"), "{text}");
    assert!(text.contains("a         5 unique, 1 invalid  "), "{text}");
    assert!(text.contains("b         4 unique, 2 invalid  "), "{text}");
}

#[test]
fn unreturned_shows_only_when_some_row_has_any() {
    use sudoku_bench_core::results::{PuzzleResult, Status};
    use sudoku_bench_core::summary::Summary;
    let mut summary = Summary::default();
    let g = summary.group("c", "lib");
    let result = PuzzleResult {
        status: Status::Unique,
        solutions: Some(1),
        time_ns: Some(10),
        solution: Some(sudoku_bench_core::strategy::testkit::grid(
            sudoku_bench_core::strategy::testkit::EASY_SOLUTION,
        )),
        ..PuzzleResult::default()
    };
    summary.add(g, &result);
    let settings = sudoku_bench_core::runner::Settings::default();
    let table = |s: &Summary| WideTableExporter.export(&settings.summary_report(s, 1, 1));
    assert!(!table(&summary).contains("unreturned"));
    summary.add(
        g,
        &PuzzleResult {
            solution: None,
            ..result
        },
    );
    let shown = table(&summary);
    let heading = shown.lines().next().unwrap();
    assert!(heading.contains("unreturned"), "{shown}");
    let row: Vec<&str> = shown.lines().nth(1).unwrap().split_whitespace().collect();
    let column = heading
        .split_whitespace()
        .position(|h| h == "unreturned")
        .unwrap();
    // Headings with a space ("puzzles/s/core" has none before it) would shift this.
    assert_eq!(row[column], "1", "{shown}");
}

#[test]
fn aborted_searches_are_explained_in_one_line_with_the_limits_that_lift_them() {
    let line = |r: &SummaryReport| {
        let table = TableExporter.export(r);
        let notes: Vec<String> = table
            .lines()
            .filter(|l| l.starts_with("aborted:"))
            .map(String::from)
            .collect();
        assert!(notes.len() <= 1, "{table}");
        assert!(notes.iter().all(|n| n.chars().count() <= 100), "{table}");
        if let Some(note) = notes.first() {
            assert!(WideTableExporter.export(r).contains(note.as_str()));
        }
        notes.into_iter().next()
    };
    let mut r = report(vec![
        row("c", "naive", [958, 0, 0, 0, 0, 0, 42]),
        row("c", "fast", [1000, 0, 0, 0, 0, 0, 0]),
    ]);
    r.max_nodes = Some(1_000_000);
    r.timeout_ns = Some(10_000_000_000);
    assert_eq!(
        line(&r).as_deref(),
        Some("aborted: out of node budget (--max-nodes 1000000) or time (--timeout 10s); 0 lifts either limit")
    );
    r.timeout_ns = None;
    assert_eq!(
        line(&r).as_deref(),
        Some("aborted: out of node budget (--max-nodes 1000000); 0 lifts it")
    );
    // A solver from outside counts no nodes: no node budget bounds it.
    r.rows[0].mean_nodes = None;
    r.timeout_ns = Some(2_500_000_000);
    assert_eq!(
        line(&r).as_deref(),
        Some("aborted: out of time (--timeout 2s 500ms); 0 lifts it")
    );
    // Its failures are aborted too, and say why in their rows and warnings.
    r.rows[0].failures = 42;
    assert_eq!(line(&r), None);
    let done = report(vec![row("c", "fast", [1000, 0, 0, 0, 0, 0, 0])]);
    assert_eq!(line(&done), None);
    assert!(MarkdownExporter
        .export(&r)
        .lines()
        .all(|l| !l.starts_with("aborted:")));
    r.rows[0].failures = 0;
    assert!(MarkdownExporter
        .export(&r)
        .lines()
        .any(|l| l == "aborted: out of time (--timeout 2s 500ms); 0 lifts it"));
}

/// `report` with what changes from machine to machine and release to release (the CPU, the
/// version, the date) fixed, so that its snapshots hold anywhere.
fn fixed(rows: Vec<SummaryRow>) -> SummaryReport {
    SummaryReport {
        version: "0.0.0".into(),
        date: "2026-01-01T00:00:00Z".into(),
        machine: Machine {
            cpu: "Test CPU".into(),
            cores: 8,
            os: "linux".into(),
            arch: "x86_64".into(),
        },
        ..report(rows)
    }
}

/// Every note a summary can carry at once: a user's names that Markdown must escape (in a
/// corpus path, a strategy, the CPU model), a piped solver's round trip and resources,
/// searches aborted under a node budget and a timeout, and an interrupted run.
fn eventful() -> SummaryReport {
    let name = "x|<i>&`y`";
    let mut piped = row("a|<b>.txt", name, [3, 0, 0, 0, 0, 0, 0]);
    piped.mean_nodes = None;
    let mut guessing = row(
        "datasets/minimal.txt",
        "backtrack",
        [958, 1, 0, 0, 1, 0, 40],
    );
    guessing.mean_guesses = Some(12.5);
    let mut r = fixed(vec![
        piped,
        guessing,
        row("datasets/minimal.txt", "dlx", [1000, 0, 0, 0, 0, 0, 0]),
    ]);
    r.machine.cpu = "cpu <fast> | 2".into();
    r.pipes.push(PipeCost {
        strategy: name.into(),
        round_trip_ns: 52_449,
    });
    r.resources.push(SolverResources {
        strategy: name.into(),
        processes: 2,
        max_rss_kib: 10_240,
        cpu_ns: 1_500_000_000,
    });
    r.max_nodes = Some(1_000_000);
    r.timeout_ns = Some(10_000_000_000);
    r.interrupted = true;
    r.not_reached = Some(12);
    r
}

/// One format's whole output of the plain report (one corpus, two strategies, no note),
/// of the eventful one, and of a run stopped before its first row, not knowing how much
/// was left.
fn snapshots(format: &str, exporter: &dyn Exporter) {
    let plain = fixed(vec![
        row(
            "datasets/minimal.txt",
            "backtrack",
            [1000, 0, 0, 0, 0, 0, 0],
        ),
        row("datasets/minimal.txt", "dlx", [1000, 0, 0, 0, 0, 0, 0]),
    ]);
    insta::assert_snapshot!(format!("summary_{format}_plain"), exporter.export(&plain));
    insta::assert_snapshot!(
        format!("summary_{format}_eventful"),
        exporter.export(&eventful())
    );
    let stopped = SummaryReport {
        interrupted: true,
        not_reached: None,
        ..fixed(Vec::new())
    };
    insta::assert_snapshot!(
        format!("summary_{format}_stopped"),
        exporter.export(&stopped)
    );
}

#[test]
fn the_summary_table_shows_every_note_under_its_rows() {
    snapshots("table", &TableExporter);
}

#[test]
fn the_wide_summary_table_shows_every_field() {
    snapshots("wide", &WideTableExporter);
}

/// Names are the user's (a corpus path, a strategy from the library, a CPU model): in
/// Markdown none may split a cell or become HTML, in the table or in a note quoting it.
#[test]
fn the_markdown_summary_escapes_the_names_in_its_cells_and_notes() {
    snapshots("markdown", &MarkdownExporter);
    let md = MarkdownExporter.export(&eventful());
    assert!(!md.contains('<'), "{md}");
    assert_eq!(md.matches('`').count(), md.matches("\\`").count(), "{md}");
}

/// A timed run of solvers in both kinds of process says which ran where, once; a run of
/// one kind, or a counted one, says nothing about it.
#[test]
fn the_summary_says_when_solvers_ran_in_different_kinds_of_process() {
    let says = |r: &SummaryReport| {
        let text = TableExporter.export(r);
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("where they ran"))
            .collect();
        assert!(lines.len() <= 1, "{text}");
        lines.first().map(|l| l.to_string())
    };
    let ran = |strategies: &[&str], own: &[&str]| {
        let mut r = fixed(
            strategies
                .iter()
                .map(|s| row("datasets/minimal.txt", s, [10, 0, 0, 0, 0, 0, 0]))
                .collect(),
        );
        for s in own {
            r.resources.push(SolverResources {
                strategy: s.to_string(),
                processes: 2,
                max_rss_kib: 1024,
                cpu_ns: 1_000_000,
            });
        }
        r
    };
    assert_eq!(
        says(&ran(
            &["fast", "dlx", "mine", "theirs"],
            &["mine", "theirs"]
        ))
        .as_deref(),
        Some(
            "fast and dlx ran in sudoku-bench's threads, mine and theirs in processes of \
             their own: their times differ by where they ran as well as by their code; to \
             compare two builds of one solver, run both the same way \
             (docs/ci.md#like-with-like)"
        )
    );
    let one = says(&ran(&["fast", "mine"], &["mine"])).unwrap();
    assert!(
        one.starts_with("fast ran in sudoku-bench's threads, mine in processes of its own:"),
        "{one}"
    );
    assert_eq!(says(&ran(&["fast", "dlx"], &[])), None);
    assert_eq!(says(&ran(&["mine", "theirs"], &["mine", "theirs"])), None);
    let mut counted = ran(&["fast", "mine"], &["mine"]);
    counted.metric = sudoku_bench_core::results::Metric::Instructions;
    assert_eq!(says(&counted), None);
}

#[test]
fn the_json_summary_keeps_every_field_and_reads_back_the_same() {
    snapshots("json", &JsonExporter);
    let report = eventful();
    let back: SummaryReport = serde_json::from_str(&JsonExporter.export(&report)).unwrap();
    assert_eq!(back, report);
}

#[test]
fn the_csv_summary_has_one_row_per_corpus_and_strategy() {
    snapshots("csv", &CsvExporter);
}

/// A per-puzzle CSV as `run` writes it, of (strategy, line, time in ns) rows on one corpus.
fn per_puzzle_run(dir: &std::path::Path, name: &str, rows: &[(&str, u64, u64)]) -> Run {
    let mut text = String::from("corpus,line,strategy,status,nodes,time_ns,puzzle\n");
    for (strategy, line, time) in rows {
        text.push_str(&format!(
            "minimal.txt,{line},{strategy},unique,10,{time},{line:.>81}\n"
        ));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    Run::load(&path).unwrap()
}

/// A comparison of fixed times (its bootstrap is seeded), two runs a side: `dlx` as fast on
/// both, `backtrack` half again slower, a puzzle only in the baseline and a strategy only
/// in the current runs.
fn comparison() -> Comparison {
    let dir = tempfile::TempDir::new().unwrap();
    let runs = |side: &str, slowdown: u64, extra: bool| -> Vec<Run> {
        (0..2u64)
            .map(|run| {
                let mut rows = Vec::new();
                for line in 1..=8 {
                    let wobble = line * 7 + run * 13;
                    rows.push(("dlx", line, 1_000 + wobble));
                    rows.push(("backtrack", line, 20_000 * slowdown / 2 + wobble));
                    if extra {
                        rows.push(("naive", line, 90_000 + wobble));
                    }
                }
                if !extra {
                    rows.push(("dlx", 9, 1_000));
                }
                per_puzzle_run(dir.path(), &format!("{side}-{run}.csv"), &rows)
            })
            .collect()
    };
    let baseline = runs("baseline", 2, false);
    let current = runs("current", 3, true);
    compare(&baseline, &current, &CompareOptions::default()).unwrap()
}

#[test]
fn a_comparison_reads_the_same_in_each_format() {
    let cmp = comparison();
    insta::assert_snapshot!("compare_table", CompareTableExporter.export(&cmp));
    insta::assert_snapshot!("compare_markdown", CompareMarkdownExporter.export(&cmp));
    insta::assert_snapshot!("compare_json", CompareJsonExporter.export(&cmp));
}
