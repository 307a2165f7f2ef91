//! `--solver` beyond `run`: `filter` counts with it, `check --solve` checks with it,
//! `generate` makes its uniqueness checks with it, and `run -s none` times it alone; in
//! each, every count it gives is checked against `fast`'s. The solvers are tests/solvers/
//! built as shared libraries (see `foreign_lib`) and, where python3 is found, the Python
//! example backtracker.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::foreign_lib::libraries;
use crate::{bench, fixture, of, rows, say_skipped};

const EASY: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const TWO: &str =
    "....3.52.7.1..4....9..........7....82....3....7...9.14.4........1.867.4....3.....";
const UNSOLVABLE: &str =
    "53..7....6..195....98....6.8...64..34..8.3..17...2...6.6....28....419..5....8..79";
const INVALID: &str =
    "55..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

fn lib(name: &str, library: &Path, symbol: Option<&str>) -> String {
    match symbol {
        Some(symbol) => format!("{name}=lib:{}:{symbol}", library.display()),
        None => format!("{name}=lib:{}", library.display()),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A corpus with every kind of line: mixed.txt (unique, multiple, unsolvable, invalid,
/// malformed, a comment, a blank line), then generated puzzles with one, several and no
/// solutions, each class interleaved with a malformed and an invalid line.
fn mixed_corpus(dir: &Path) -> PathBuf {
    let mut corpus = std::fs::read(fixture("mixed.txt")).unwrap();
    for solutions in ["one", "many", "none"] {
        let out = bench()
            .args(["generate", "-n", "40", "--seed", "11", "-q", "--solutions"])
            .arg(solutions)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        corpus.extend_from_slice(&out.stdout);
        corpus.extend_from_slice(format!("{INVALID}\nnot a puzzle\n").as_bytes());
    }
    let path = dir.join("corpus.txt");
    std::fs::write(&path, corpus).unwrap();
    path
}

/// `filter CORPUS` with `extra`, kept lines and rejects to files in `dir` named after
/// `tag`: the output, and the two files' bytes.
fn filter(dir: &Path, corpus: &Path, tag: &str, extra: &[&str]) -> (Output, Vec<u8>, Vec<u8>) {
    let (out, rejects) = (
        dir.join(format!("{tag}.txt")),
        dir.join(format!("{tag}.rejects")),
    );
    let output = bench()
        .arg("filter")
        .arg(corpus)
        .args(extra)
        .args(["-q".as_ref(), "-o".as_ref(), out.as_os_str()])
        .args(["--rejects".as_ref(), rejects.as_os_str()])
        .output()
        .unwrap();
    let read = |p: &Path| std::fs::read(p).unwrap_or_default();
    (output, read(&out), read(&rejects))
}

#[test]
fn filter_with_a_solver_keeps_exactly_what_filter_s_fast_keeps() {
    let Some((backtrack, _, _)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let corpus = mixed_corpus(dir.path());
    let mine = lib("mine", backtrack, None);
    let like = lib("like", backtrack, Some("tdoku_like"));
    for keep in ["unique", "multiple,unsolvable", "invalid,malformed"] {
        let (fast, fast_out, fast_rejects) =
            filter(dir.path(), &corpus, "fast", &["-s", "fast", "--keep", keep]);
        assert!(fast.status.success(), "{}", text(&fast.stderr));
        assert!(fast_out.len() > 100, "--keep {keep} keeps something");
        for spec in [&mine, &like] {
            let (ours, out, rejects) = filter(
                dir.path(),
                &corpus,
                "ours",
                &["--solver", spec, "--keep", keep],
            );
            let stderr = text(&ours.stderr);
            assert_eq!(ours.status.code(), Some(0), "{spec}: {stderr}");
            assert!(out == fast_out, "{spec} --keep {keep}: other lines kept");
            assert!(
                rejects == fast_rejects,
                "{spec} --keep {keep}: other rejects"
            );
            assert!(
                stderr.contains("every count checked against fast"),
                "{stderr}"
            );
        }
    }
}

#[test]
fn filter_with_a_wrong_solver_keeps_no_line_it_miscounts_and_exits_1() {
    let Some((_, wrong, _)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let corpus = PathBuf::from(fixture("mixed.txt"));
    let cases = [
        // Counts nothing: lines 2, 3 and 9 have solutions, line 4 has none indeed.
        (
            lib("none", wrong, Some("none_found")),
            "unsolvable",
            4,
            &[2, 3, 9][..],
        ),
        // Returns a grid that is no solution, whatever the puzzle.
        (lib("bad", wrong, None), "unique", 0, &[2, 3, 4, 9]),
    ];
    for (spec, keep, kept_line, miscounted) in cases {
        let (out, kept, rejects) = filter(
            dir.path(),
            &corpus,
            "w",
            &["--solver", &spec, "--keep", keep],
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{spec}: {stderr}");
        let name = spec.split('=').next().unwrap();
        let rejects = text(&rejects);
        for line in miscounted {
            let at = format!("mixed.txt:{line}");
            assert!(
                stderr.contains(&format!("{at}: {name}: ")),
                "{spec}, line {line}: {stderr}"
            );
            assert!(
                rejects.contains(&format!("{at}\tmismatch\t{name}: ")),
                "{spec}, line {line}: {rejects}"
            );
        }
        let kept = text(&kept);
        let kept: Vec<&str> = kept.lines().filter(|l| !l.starts_with('#')).collect();
        let mixed = std::fs::read_to_string(&corpus).unwrap();
        let lines: Vec<&str> = mixed.lines().collect();
        let expected: Vec<&str> = (kept_line > 0)
            .then(|| lines[kept_line - 1])
            .into_iter()
            .collect();
        assert_eq!(kept, expected, "{spec}: only what it counted right");
        assert!(
            stderr.contains(&format!("{} wrong answers from {name}", miscounted.len())),
            "{stderr}"
        );
    }
    let none = lib("none", wrong, Some("none_found"));
    let (_, _, rejects) = filter(dir.path(), &corpus, "w", &["--solver", &none]);
    assert!(
        text(&rejects).contains(
            "mixed.txt:3\tmismatch\tnone: counted 0 solutions; the reference (fast) counted 2\t"
        ),
        "{}",
        text(&rejects)
    );
}

/// `check --solve` over `corpus` with `extra`: the output.
fn check(corpus: &Path, extra: &[&str]) -> Output {
    bench()
        .args(["check", "--solve", "-q"])
        .arg(corpus)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn check_solutions_with_a_solver_finds_what_fast_finds_and_its_wrong_counts() {
    let Some((backtrack, wrong, _)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // kaggle.csv's columns are right; here the second one is another grid's.
    let kaggle = std::fs::read_to_string(fixture("kaggle.csv")).unwrap();
    let mut lines: Vec<String> = kaggle.lines().map(str::to_string).collect();
    let first_solution = lines[1].split(',').nth(1).unwrap().to_string();
    let (puzzle, _) = lines[2].split_once(',').unwrap();
    lines[2] = format!("{puzzle},{first_solution}");
    let faulty = dir.path().join("faulty.csv");
    std::fs::write(&faulty, lines.join("\n") + "\n").unwrap();
    let mine = lib("mine", backtrack, None);
    let like = lib("like", backtrack, Some("tdoku_like"));
    for corpus in [PathBuf::from(fixture("kaggle.csv")), faulty] {
        let fast = check(&corpus, &["-s", "fast"]);
        for spec in [&mine, &like] {
            let ours = check(&corpus, &["--solver", spec]);
            assert_eq!(ours.status.code(), fast.status.code(), "{spec}");
            assert_eq!(text(&ours.stdout), text(&fast.stdout), "{spec}");
            assert!(
                text(&ours.stderr).contains("every count checked against fast"),
                "{}",
                text(&ours.stderr)
            );
        }
    }
    assert_eq!(
        check(Path::new(&fixture("kaggle.csv")), &[]).status.code(),
        Some(0)
    );

    let none = lib("none", wrong, Some("none_found"));
    let out = check(Path::new(&fixture("kaggle.csv")), &["--solver", &none]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(text(&out.stdout), "", "the corpus is not at fault");
    assert!(
        stderr.contains(
            "kaggle.csv:2: none: counted 0 solutions; the reference (fast) counted 1; its \
             solution column not judged"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("2 wrong answers from none"), "{stderr}");
}

/// `generate` with `extra`: the output.
fn generate(extra: &[&str]) -> Output {
    bench()
        .args(["generate", "-n", "30", "--seed", "7", "-q"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn generate_with_a_solver_makes_the_same_bytes_and_stops_at_a_wrong_count() {
    let Some((backtrack, wrong, _)) = libraries() else {
        return;
    };
    let mine = lib("mine", backtrack, None);
    for solutions in ["one", "many", "none"] {
        let fast = generate(&["--solutions", solutions]);
        assert!(fast.status.success());
        let ours = generate(&["--solutions", solutions, "--solver", &mine]);
        let stderr = text(&ours.stderr);
        assert_eq!(ours.status.code(), Some(0), "{stderr}");
        assert!(ours.stdout == fast.stdout, "--solutions {solutions}");
        assert!(
            stderr.contains("uniqueness by mine, every count checked against fast"),
            "{stderr}"
        );
    }
    for spec in [
        lib("none", wrong, Some("none_found")),
        lib("bad", wrong, None),
    ] {
        let out = generate(&["--solver", &spec]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{spec}: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "{spec}: nothing made with it is written"
        );
        let name = spec.split('=').next().unwrap();
        assert!(
            stderr.contains(&format!("error: generate: {name} answered wrongly on ")),
            "{stderr}"
        );
        assert!(stderr.contains("the other 30 of 30 not made"), "{stderr}");
    }
}

#[test]
fn run_s_none_times_only_the_solvers_and_still_checks_every_count() {
    let Some((backtrack, wrong, _)) = libraries() else {
        return;
    };
    let mixed = fixture("mixed.txt");
    let mine = lib("mine", backtrack, None);
    let out = bench()
        .args(["run", &mixed, "-s", "none", "--solver", &mine, "--strict"])
        .args(["-o", "-", "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "mixed.txt has bad lines");
    let mine_rows = rows(&out.stdout);
    assert_eq!(mine_rows.len(), 7, "one row per entry, for mine alone");
    assert!(mine_rows.iter().all(|r| r["strategy"] == "mine"));
    let fast = of(&crate::run_ok(&[&mixed, "-s", "fast"]), "fast");
    for (line, row) in of(&mine_rows, "mine") {
        for field in ["status", "solutions", "error"] {
            assert_eq!(row[field], fast[&line][field], "line {line}: {field}");
        }
    }

    let none = lib("none", wrong, Some("none_found"));
    let too_many = lib("too_many", wrong, Some("too_many"));
    let out = bench()
        .args(["run", &mixed, "-s", "none", "--solver", &none])
        .args([
            "--solver",
            &too_many,
            "-o",
            "-",
            "-q",
            "--summary",
            "/dev/null",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "without --strict: reported");
    let rows = rows(&out.stdout);
    assert_eq!(rows.len(), 2 * 7);
    let none = of(&rows, "none");
    for (line, fast_count) in [(2, 1), (3, 2), (9, 1)] {
        assert_eq!(none[&line]["ended"], "mismatch", "line {line}");
        assert_eq!(
            none[&line]["error"],
            format!("counted 0 solutions; the reference (fast) counted {fast_count}")
        );
    }
    assert_eq!(none[&4]["ended"], "finished", "no solution indeed");
    assert_eq!(of(&rows, "too_many")[&2]["ended"], "failed");
}

#[test]
fn contradictory_or_useless_solver_options_are_refused_before_any_output() {
    let Some((backtrack, _, _)) = libraries() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let out_arg = out.display().to_string();
    let mixed = fixture("mixed.txt");
    let mine = lib("mine", backtrack, None);
    let other = lib("other", backtrack, None);
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["run", &mixed, "-s", "none", "-o", &out_arg],
            "error: -s none times no built-in strategy, and no --solver is given".into(),
        ),
        (
            vec![
                "run",
                &mixed,
                "-s",
                "none,fast",
                "--solver",
                &mine,
                "-o",
                &out_arg,
            ],
            "error: -s none,fast: none means no built-in strategy, so it goes alone".into(),
        ),
        (
            vec![
                "filter", &mixed, "-s", "fast", "--solver", &mine, "-o", &out_arg,
            ],
            format!(
                "error: filter solves with one solver, and -s fast and --solver {mine} name \
                 two: drop -s"
            ),
        ),
        (
            vec![
                "filter", &mixed, "--solver", &mine, "--solver", &other, "-o", &out_arg,
            ],
            "error: filter solves with one solver, and --solver is given 2 times (mine, \
             other): give one"
                .into(),
        ),
        (
            vec!["filter", &mixed, "-s", "none", "-o", &out_arg],
            "error: invalid value 'none' for '--strategies <NAME>': this command solves with \
             one solver"
                .into(),
        ),
        (
            vec!["filter", &mixed, "--serial", "mine", "-o", &out_arg],
            "error: --serial mine: no --solver is named \"mine\": there is none".into(),
        ),
        (
            vec!["check", &mixed, "--solver", &mine],
            "error: check solves only with --solve".into(),
        ),
        (
            vec!["check", &mixed, "--timeout", "1s"],
            "error: check solves only with --solve: without it --timeout bounds nothing".into(),
        ),
        (
            vec!["check", &mixed, "--solve", "-s", "dlx", "--solver", &mine],
            "error: check solves with one solver, and -s dlx and --solver".into(),
        ),
        (
            vec![
                "generate", "-n", "3", "-s", "dlx", "--solver", &mine, "-o", &out_arg,
            ],
            "error: generate solves with one solver, and -s dlx and --solver".into(),
        ),
    ];
    for (args, expected) in cases {
        let output = bench().args(&args).output().unwrap();
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with(&expected), "{args:?}: {stderr}");
        assert!(!out.exists(), "{args:?}: an output was made");
    }
    // A timeout of 0 is none, as everywhere: nothing to refuse.
    let none = bench()
        .args(["check", &mixed, "--timeout", "0"])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(1), "{}", text(&none.stderr));
}

#[cfg(unix)]
#[test]
fn filter_with_a_python_solver_agrees_and_a_wrong_solution_is_caught() {
    let found = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output();
    let python = match found {
        Ok(out) if out.status.success() => text(&out.stdout).trim().to_string(),
        _ => {
            say_skipped("python3 not found: the cmd: solver tests need it");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.txt");
    let lines = [EASY, TWO, UNSOLVABLE, INVALID, "oops", EASY];
    std::fs::write(&corpus, lines.join("\n") + "\n").unwrap();
    let py = format!("py=cmd:{python} examples/solvers/backtrack.py");
    let all = ["--keep", "unique,multiple,unsolvable"];
    let (fast, fast_out, fast_rejects) = filter(dir.path(), &corpus, "fast", &all);
    assert!(fast.status.success());
    let (ours, out, rejects) = filter(
        dir.path(),
        &corpus,
        "py",
        &[&all[..], &["--solver", &py]].concat(),
    );
    assert_eq!(ours.status.code(), Some(0), "{}", text(&ours.stderr));
    assert!(out == fast_out && rejects == fast_rejects);

    // Answers the two-solution puzzle with the easy one's solution: the count is right,
    // the grid is not a solution of it.
    let faulty = format!("bad=cmd:{python} tests/solvers/faulty.py wrong {TWO}");
    let (bad, out, rejects) = filter(
        dir.path(),
        &corpus,
        "bad",
        &[&all[..], &["--solver", &faulty]].concat(),
    );
    let stderr = text(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{stderr}");
    assert_eq!(text(&out), [EASY, UNSOLVABLE, EASY].join("\n") + "\n");
    assert!(
        text(&rejects).contains(":2\tmismatch\tbad: strategy returned "),
        "{}",
        text(&rejects)
    );
    assert!(stderr.contains("which is not a solution"), "{stderr}");
}

#[test]
fn filter_shows_as_many_wrong_answers_as_run_and_says_how_many_more() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c.txt");
    let puzzles: Vec<&str> = include_str!("../../datasets/minimal.txt")
        .lines()
        .take(150)
        .collect();
    std::fs::write(&corpus, puzzles.join("\n") + "\n").unwrap();
    // Answers the probe (a solved grid, no dot) and the in-step check (the empty grid)
    // as the protocol says, and counts no solution for every puzzle: 150 wrong counts.
    let zero = format!(
        "zero=cmd:sh -c 'while read -r p l rest; do case $p in {}) echo \"$l - 0\";; *.*) \
         echo \"0 - 0\";; *) echo \"1 $p 0\";; esac; done'",
        ".".repeat(81)
    );
    let rejects = dir.path().join("rejects.tsv");
    let out = bench()
        .args(["filter", corpus.to_str().unwrap(), "-q", "-o"])
        .arg(dir.path().join("kept.txt"))
        .arg("--rejects")
        .arg(&rejects)
        .args(["--solver", &zero])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let shown = stderr.lines().filter(|l| l.contains(": zero: ")).count();
    assert_eq!(shown, 100, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "warning: 50 more bad lines not shown; see the mismatch lines of {}",
            rejects.display()
        )),
        "{stderr}"
    );
    assert_eq!(text(&std::fs::read(&rejects).unwrap()).lines().count(), 150);
}
