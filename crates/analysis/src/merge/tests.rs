//! Parts made by hand: a whole run's rows split by line, round robin, and its summary
//! split the same way, so that what `merge` puts back can be compared with the whole.

use std::path::{Path, PathBuf};

use super::*;
use sudoku_bench_core::results::csv::{push_field, COLUMNS};
use sudoku_bench_core::results::{Ending, PuzzleResult, Status};
use sudoku_bench_core::runner::Settings;

const CORPORA: [&str; 2] = ["b.txt", "a,1.txt"];
const STRATEGIES: [&str; 2] = ["fast", "naive"];

/// (corpus, line, strategy, result) of a whole run, in input order.
fn whole_run() -> Vec<(&'static str, u64, &'static str, PuzzleResult)> {
    let mut out = Vec::new();
    for (c, corpus) in CORPORA.iter().enumerate() {
        for line in 1..=40u64 {
            for strategy in STRATEGIES {
                let x = line * 7919 + c as u64 * 104_729 + strategy.len() as u64;
                out.push((
                    *corpus,
                    line,
                    strategy,
                    PuzzleResult {
                        status: if x.is_multiple_of(11) {
                            Status::Aborted
                        } else {
                            Status::Unique
                        },
                        solutions: Some(1),
                        nodes: Some(x % 1000),
                        guesses: Some(x % 4),
                        time_ns: Some(1 + x % 100_000),
                        ended: Some(if x.is_multiple_of(11) {
                            Ending::Timeout
                        } else {
                            Ending::Finished
                        }),
                        ..PuzzleResult::default()
                    },
                ));
            }
        }
    }
    out
}

fn csv_text(rows: &[&(&str, u64, &str, PuzzleResult)]) -> Vec<u8> {
    let mut out = COLUMNS.join(",").into_bytes();
    out.push(b'\n');
    for (corpus, line, strategy, r) in rows {
        push_field(&mut out, corpus.as_bytes());
        out.extend_from_slice(
            format!(
                ",{line},{strategy},{},1,{},{},{},25,,,,{},,",
                r.status.as_str(),
                r.nodes.unwrap(),
                r.guesses.unwrap(),
                r.time_ns.unwrap(),
                r.ended.map_or("", Ending::as_str)
            )
            .as_bytes(),
        );
        out.push(b'\n');
    }
    out
}

fn summary_of(rows: &[&(&str, u64, &str, PuzzleResult)]) -> Summary {
    let mut s = Summary::default();
    // As a run's sink does: every group exists from its corpus's start.
    for corpus in CORPORA {
        for strategy in STRATEGIES {
            s.group(corpus, strategy);
        }
    }
    for (corpus, _, strategy, r) in rows {
        let g = s.group(corpus, strategy);
        s.add(g, r);
    }
    s
}

/// The whole run split into `n` parts written into `dir`: part-K.csv and part-K.json.
fn write_parts(dir: &Path, n: u32) -> Vec<PathBuf> {
    let all = whole_run();
    (1..=n)
        .map(|k| {
            let mine: Vec<_> = all
                .iter()
                .filter(|(_, line, _, _)| (line - 1) % n as u64 == (k - 1) as u64)
                .collect();
            let csv = dir.join(format!("part-{k}.csv"));
            std::fs::write(&csv, csv_text(&mine)).unwrap();
            let report = SummaryReport {
                shard: Some(Shard { index: k, count: n }),
                ..Settings::default().summary_report(&summary_of(&mine), 2, 10)
            };
            std::fs::write(summary_path(&csv), serde_json::to_string(&report).unwrap()).unwrap();
            csv
        })
        .collect()
}

fn merged(csvs: &[PathBuf]) -> Result<Vec<u8>, MergeError> {
    let parts = load(csvs)?;
    let mut out = Vec::new();
    merge_rows(csvs, &corpora(&parts), &mut out, Path::new("out.csv"))?;
    Ok(out)
}

#[test]
fn parts_merge_back_into_the_whole_rows_and_summary() {
    let all = whole_run();
    let whole: Vec<_> = all.iter().collect();
    for n in [1, 2, 3, 7] {
        let dir = tempfile::tempdir().unwrap();
        let mut csvs = write_parts(dir.path(), n);
        // The order the parts are given in does not matter.
        csvs.reverse();
        assert_eq!(merged(&csvs).unwrap(), csv_text(&whole), "{n} parts");
        let report = merged_report(&load(&csvs).unwrap()).unwrap();
        assert_eq!(report.rows, summary_of(&whole).rows(), "{n} parts");
        assert_eq!(report.wall_ns, 10 * n as u64);
        assert_eq!((report.shard, report.machines.len()), (None, 0));
    }
}

fn edit(json: &Path, f: impl FnOnce(&mut SummaryReport)) {
    let mut report: SummaryReport = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    f(&mut report);
    std::fs::write(json, serde_json::to_string(&report).unwrap()).unwrap();
}

fn refusal(csvs: &[PathBuf]) -> String {
    load(csvs).unwrap_err().to_string()
}

#[test]
fn parts_of_different_settings_are_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let csvs = write_parts(dir.path(), 3);
    let json = summary_path(&csvs[2]);
    edit(&json, |r| r.max_nodes = Some(5));
    let err = refusal(&csvs);
    assert!(
        err.contains("part-1.json") && err.contains("part-3.json"),
        "{err}"
    );
    assert!(
        err.contains("--max-nodes") && err.contains("none and 5"),
        "{err}"
    );
    edit(&json, |r| {
        r.max_nodes = None;
        r.version = "9.9.9".into();
    });
    let err = refusal(&csvs);
    assert!(err.contains("versions") && err.contains("9.9.9"), "{err}");
    edit(&json, |r| {
        r.version = env!("CARGO_PKG_VERSION").into();
        r.state.as_mut().unwrap().groups.pop();
        // Its row too: a state without the row's group contradicts it (refused sooner).
        r.rows.pop();
    });
    let err = refusal(&csvs);
    assert!(err.contains("corpora and strategies"), "{err}");
    edit(&json, |r| r.state = None);
    let err = refusal(&csvs);
    assert!(
        err.contains("part-3.json") && err.contains("no mergeable state"),
        "{err}"
    );
}

#[test]
fn missing_duplicate_whole_and_interrupted_parts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csvs = write_parts(dir.path(), 4);
    let err = refusal(&[csvs[0].clone(), csvs[3].clone()]);
    assert_eq!(err, "missing part 2/4, part 3/4");
    let err = refusal(&[&csvs[..], &csvs[1..2]].concat());
    assert!(err.starts_with("part 2/4 twice: ") && err.matches("part-2.csv").count() == 2);
    edit(&summary_path(&csvs[1]), |r| r.interrupted = true);
    let err = refusal(&csvs);
    assert!(err.contains("part-2.json: this part was interrupted") && err.contains("--resume"));
    edit(&summary_path(&csvs[1]), |r| {
        r.interrupted = false;
        r.shard = None;
    });
    let err = refusal(&csvs);
    assert!(err.contains("part-2.json: a whole run"), "{err}");
    edit(&summary_path(&csvs[1]), |r| {
        r.shard = Some(Shard { index: 2, count: 5 })
    });
    let err = refusal(&csvs);
    assert!(err.contains("part-1.json is part of 4 shards, ") && err.contains("part-2.json of 5"));
    std::fs::remove_file(summary_path(&csvs[1])).unwrap();
    let err = refusal(&csvs);
    assert!(
        err.contains("part-2.json is missing: the run of")
            && err.contains("part-2.csv did not finish")
            && err.contains("run --resume"),
        "{err}"
    );
    assert!(matches!(load(&[]), Err(MergeError::NoParts)));
}

#[test]
fn a_whole_run_alone_merges_as_itself() {
    let dir = tempfile::tempdir().unwrap();
    let csvs = write_parts(dir.path(), 1);
    edit(&summary_path(&csvs[0]), |r| r.shard = None);
    let all = whole_run();
    assert_eq!(
        merged(&csvs).unwrap(),
        csv_text(&all.iter().collect::<Vec<_>>())
    );
}

#[test]
fn overlapping_or_disordered_rows_are_named_by_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let csvs = write_parts(dir.path(), 2);
    // Part 1 also claims line 2 (part 2's), after its own line 1.
    let one = std::fs::read_to_string(&csvs[0]).unwrap();
    let two = std::fs::read_to_string(&csvs[1]).unwrap();
    let stolen = two.lines().nth(1).unwrap();
    let mut lines: Vec<&str> = one.lines().collect();
    lines.insert(3, stolen);
    std::fs::write(&csvs[0], lines.join("\n") + "\n").unwrap();
    // `load` refuses the extra row by its summary's count: the rows' own check, for parts
    // whose summaries agree with them, is made on the rows alone.
    let names = CORPORA.map(String::from);
    let err = merge_rows(&csvs, &names, &mut Vec::new(), Path::new("out.csv"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("line 2 of b.txt is also in")
            && err.contains("part-1.csv:4")
            && err.contains("part-2.csv:2"),
        "{err}"
    );
    // Line 3 before line 1 in part 1.
    let mut lines: Vec<&str> = one.lines().collect();
    lines.swap(1, 3);
    std::fs::write(&csvs[0], lines.join("\n") + "\n").unwrap();
    let err = merged(&csvs).unwrap_err().to_string();
    assert!(
        err.contains("part-1.csv:3: line 1 of b.txt comes after"),
        "{err}"
    );
    std::fs::write(&csvs[0], one.replacen("corpus,", "korpus,", 1)).unwrap();
    let err = merge_rows(&csvs, &names, &mut Vec::new(), Path::new("out.csv"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("part-2.csv:1: its header differs from"),
        "{err}"
    );
}

#[test]
fn parts_from_several_machines_are_listed_and_noted() {
    let dir = tempfile::tempdir().unwrap();
    let csvs = write_parts(dir.path(), 2);
    edit(&summary_path(&csvs[1]), |r| {
        r.machine.cpu = "Other CPU".into()
    });
    let report = merged_report(&load(&csvs).unwrap()).unwrap();
    assert_eq!(report.machines.len(), 2);
    assert_eq!(report.machines[1].cpu, "Other CPU");
    let note = report.machines_note().unwrap();
    assert!(note.contains("2 machines"), "{note}");
    let one_machine = SummaryReport {
        machines: Vec::new(),
        ..report
    };
    assert_eq!(one_machine.machines_note(), None);
}

/// `fast` and `dlx` run by the runner over part `shard` of the corpus at `corpus` into
/// `dir/NAME.csv` and its summary JSON, as `run --shard` writes them.
fn run_part(corpus: &Path, shard: Option<Shard>, dir: &Path, name: &str) -> PathBuf {
    use sudoku_bench_core::clock::MockClock;
    use sudoku_bench_core::corpus::Corpus;
    use sudoku_bench_core::results::CsvSink;
    use sudoku_bench_core::runner::Runner;
    use sudoku_bench_core::strategy::by_name;

    let settings = Settings {
        strategies: ["fast", "dlx"]
            .iter()
            .map(|n| by_name(n).unwrap().clone())
            .collect(),
        chunk_size: 16,
        ..Settings::default()
    };
    let clock = MockClock::new(1000, 10, 100);
    let mut runner = Runner::new(settings.clone(), 2, &clock).unwrap();
    let mut input = Corpus::open_part(corpus, None, shard.unwrap_or(Shard::WHOLE)).unwrap();
    let csv = dir.join(format!("{name}.csv"));
    let mut rows = CsvSink::new(Box::new(std::fs::File::create(&csv).unwrap())).unwrap();
    let mut summary = Summary::default();
    runner
        .run(&mut input, &mut (&mut rows, &mut summary))
        .unwrap();
    rows.finish().unwrap();
    let report = SummaryReport {
        shard,
        ..settings.summary_report(&summary, 2, 10)
    };
    std::fs::write(summary_path(&csv), serde_json::to_string(&report).unwrap()).unwrap();
    csv
}

#[test]
fn parts_run_over_one_file_add_up_to_its_identity_and_other_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let grids: Vec<&str> = include_str!("../../../../datasets/minimal.txt")
        .lines()
        .take(40)
        .collect();
    let text = format!("# a corpus\n{}\n\n", grids.join("\n"));
    let corpus = d.join("c.txt");
    std::fs::write(&corpus, &text).unwrap();
    let whole = run_part(&corpus, None, d, "whole");
    let part = |k: u32| {
        run_part(
            &corpus,
            Some(Shard { index: k, count: 3 }),
            d,
            &format!("part-{k}"),
        )
    };
    let mut parts: Vec<PathBuf> = (1..=3).map(part).collect();
    let identity = |report: &SummaryReport| report.state.as_ref().unwrap().corpora.clone();
    let whole: SummaryReport =
        serde_json::from_slice(&std::fs::read(summary_path(&whole)).unwrap()).unwrap();
    assert_eq!(identity(&whole)[0].lines, 42);
    assert_eq!(identity(&whole)[0].entries, 40);
    let merged = merged_report(&load(&parts).unwrap()).unwrap();
    assert_eq!(identity(&merged), identity(&whole));
    assert_eq!(merged.rows.len(), 2);
    for (m, w) in merged.rows.iter().zip(&whole.rows) {
        assert_eq!((m.unique, m.searched), (w.unique, w.searched));
    }

    // Part 3 run again over the file with two lines swapped: as long, other puzzles.
    let mut swapped = grids.clone();
    swapped.swap(3, 30);
    std::fs::write(&corpus, format!("# a corpus\n{}\n\n", swapped.join("\n"))).unwrap();
    parts[2] = part(3);
    let err = refusal(&parts);
    assert!(
        err.contains("part-1.json")
            && err.contains("part-3.json")
            && err.contains("first or last 64 KiB differ"),
        "{err}"
    );
    // A part whose summary says nothing of the corpus (an older version's): still merged,
    // the merged summary saying nothing of it either.
    std::fs::write(&corpus, &text).unwrap();
    parts[2] = part(3);
    assert!(load(&parts).is_ok());
    edit(&summary_path(&parts[0]), |r| {
        r.state.as_mut().unwrap().corpora.clear()
    });
    let merged = merged_report(&load(&parts).unwrap()).unwrap();
    assert!(identity(&merged).is_empty());
}

#[test]
fn a_part_whose_rows_name_other_lines_than_it_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let grids: Vec<&str> = include_str!("../../../../datasets/minimal.txt")
        .lines()
        .take(20)
        .collect();
    let corpus = d.join("c.txt");
    std::fs::write(&corpus, grids.join("\n") + "\n").unwrap();
    let parts: Vec<PathBuf> = (1..=2)
        .map(|k| {
            run_part(
                &corpus,
                Some(Shard { index: k, count: 2 }),
                d,
                &format!("part-{k}"),
            )
        })
        .collect();
    assert!(load(&parts).is_ok());
    // Part 1 read lines 1..=10: its rows of line 10 say line 11, which no part read.
    let text = std::fs::read_to_string(&parts[0]).unwrap();
    let moved = text.replace("c.txt,10,", "c.txt,11,");
    assert_ne!(moved, text);
    std::fs::write(&parts[0], moved).unwrap();
    let err = refusal(&parts);
    assert!(
        err.contains("part-1.csv")
            && err.contains("rows are not one for each of the 10 puzzle lines"),
        "{err}"
    );
}

#[test]
fn merged_wall_rates_count_only_the_rows_with_wall_time() {
    let dir = tempfile::tempdir().unwrap();
    let csvs = write_parts(dir.path(), 2);
    // Each part kept its first rows from a killed run: no wall time for them.
    for csv in &csvs {
        edit(&summary_path(csv), |r| {
            for g in &mut r.state.as_mut().unwrap().groups {
                g.unwalled = g.searched / 4;
                g.wall_ns = 1_000_000;
            }
        });
    }
    let report = merged_report(&load(&csvs).unwrap()).unwrap();
    let state = report.state.as_ref().unwrap();
    for (row, group) in report.rows.iter().zip(&state.groups) {
        let walled = row.searched - group.unwalled;
        assert_eq!(
            group.unwalled,
            2 * (row.searched / 2 / 4),
            "{}",
            row.strategy
        );
        assert!(
            (row.wall_puzzles_per_s - walled as f64 / 0.002).abs() < 1e-6,
            "{}: {}",
            row.strategy,
            row.wall_puzzles_per_s
        );
    }
}

#[test]
fn a_directory_given_as_a_part_is_named_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    let err = refusal(std::slice::from_ref(&parts));
    assert!(
        err.contains(&format!("{} is a directory", parts.display()))
            && err.contains("per-puzzle CSV")
            && !err.contains("missing"),
        "{err}"
    );
}

#[test]
fn a_full_disk_is_said_once_naming_the_output() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from_raw_os_error(libc::ENOSPC))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let csvs = write_parts(dir.path(), 2);
    let parts = load(&csvs).unwrap();
    let err = merge_rows(&csvs, &corpora(&parts), &mut Full, Path::new("all.csv")).unwrap_err();
    // As the binary prints it: the error and each cause after it.
    let chain = format!("{:#}", anyhow::Error::from(err));
    assert!(chain.starts_with("cannot write all.csv"), "{chain}");
    assert_eq!(chain.matches("os error 28").count(), 1, "{chain}");
}

#[test]
fn a_part_whose_puzzle_was_edited_with_its_clues_is_refused_against_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let grids: Vec<&str> = include_str!("../../../../datasets/minimal.txt")
        .lines()
        .take(20)
        .collect();
    let corpus = d.join("c.txt");
    std::fs::write(&corpus, grids.join("\n") + "\n").unwrap();
    let parts: Vec<PathBuf> = (1..=2)
        .map(|k| {
            run_part(
                &corpus,
                Some(Shard { index: k, count: 2 }),
                d,
                &format!("part-{k}"),
            )
        })
        .collect();
    assert!(check_puzzles(&load(&parts).unwrap()).unwrap().is_empty());
    // A clue of line 3 removed from its rows, and their clues counted down with it: every
    // row still agrees with itself and with its summary.
    let original = std::fs::read_to_string(&parts[0]).unwrap();
    let line = grids[2];
    let cell = line.find(|c: char| c.is_ascii_digit() && c != '0').unwrap();
    let fewer = format!("{}.{}", &line[..cell], &line[cell + 1..]);
    let clues = line.bytes().filter(|b| (b'1'..=b'9').contains(b)).count();
    let edited: String = original
        .lines()
        .map(|row| {
            let at3 = row.split(',').nth(1) == Some("3");
            if at3 {
                row.replace(
                    &format!(",{clues},{line},"),
                    &format!(",{},{fewer},", clues - 1),
                )
            } else {
                row.to_string()
            }
        })
        .map(|row| row + "\n")
        .collect();
    assert_ne!(edited, original);
    std::fs::write(&parts[0], &edited).unwrap();
    let loaded = load(&parts).unwrap();
    let err = check_puzzles(&loaded).unwrap_err().to_string();
    assert!(
        err.contains(&format!("{}:", parts[0].display()))
            && err.contains(&format!("is of puzzle {fewer}"))
            && err.contains(&format!("{}:3 holds puzzle {line}", corpus.display())),
        "{err}"
    );
    // Without the corpus, the merge goes on and says what was checked instead.
    std::fs::remove_file(&corpus).unwrap();
    let unchecked = check_puzzles(&loaded).unwrap();
    assert_eq!(unchecked.len(), 1, "{unchecked:?}");
    assert!(
        unchecked[0].starts_with(&corpus.display().to_string())
            && unchecked[0].contains("cannot be opened here")
            && unchecked[0].contains("what was checked"),
        "{unchecked:?}"
    );
}

/// A part's rows checked as resume checks the rows it keeps, by the one validator: one
/// row per strategy on each line, in the run's order, and counts its `--max-solutions`
/// can give. Edits that keep every figure of the summary.
#[test]
fn rows_a_run_cannot_have_written_together_are_refused_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let csvs = write_parts(dir.path(), 2);
    let text = std::fs::read_to_string(&csvs[0]).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    // Line 1's naive row before its fast row.
    lines.swap(1, 2);
    std::fs::write(&csvs[0], lines.join("\n") + "\n").unwrap();
    let err = refusal(&csvs);
    assert!(
        err.contains(
            "part-1.csv:2: strategy naive where fast was due: not in this run's order (fast,naive)"
        ),
        "{err}"
    );
    // A count of 3 in a part counting to 2: refused as it is read, before the figures are
    // compared with the summary's.
    let at = text.replacen(",unique,1,", ",multiple,3,", 1);
    std::fs::write(&csvs[0], &at).unwrap();
    let err = refusal(&csvs);
    assert!(
        err.contains(
            "part-1.csv:2: this row is multiple with 3 solutions, which a run counting to 2"
        ) && err.contains("its summary says the part counted to that limit"),
        "{err}"
    );
}
