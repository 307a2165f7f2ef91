//! Option names agree across subcommands: `-s/--strategies` names strategies everywhere
//! (one, for the commands that solve with one), `--input-format` is the corpus format, and
//! `--format` only ever an output format.

use crate::{bench, fixture};
use predicates::prelude::*;

/// The commands that solve with one strategy, each with what else it needs to run.
fn one_strategy_commands(dir: &std::path::Path) -> Vec<Vec<String>> {
    let out = dir.join("out.txt").display().to_string();
    let mixed = fixture("mixed.txt");
    vec![
        vec![
            "filter".into(),
            mixed.clone(),
            "-q".into(),
            "-o".into(),
            out.clone(),
        ],
        vec!["check".into(), mixed, "-q".into(), "--solve".into()],
        vec![
            "generate".into(),
            "-n".into(),
            "2".into(),
            "-q".into(),
            "-o".into(),
            out,
        ],
    ]
}

#[test]
fn one_strategy_commands_take_strategies_with_one_name() {
    let dir = tempfile::tempdir().unwrap();
    for args in one_strategy_commands(dir.path()) {
        for flag in ["-s", "--strategies"] {
            let code = bench()
                .args(&args)
                .args([flag, "dlx"])
                .assert()
                .get_output()
                .status
                .code();
            // check exits 1: the fixture has faults.
            assert!(matches!(code, Some(0 | 1)), "{args:?} {flag}: {code:?}");
        }
        bench()
            .args(&args)
            .args(["--strategies", "magic"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("unknown strategy \"magic\""));
    }
}

#[test]
fn a_list_where_one_strategy_is_meant_is_refused_with_why() {
    let dir = tempfile::tempdir().unwrap();
    for args in one_strategy_commands(dir.path()) {
        bench()
            .args(&args)
            .args(["-s", "fast,dlx"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "this command solves with one strategy: name one, not 2 (fast, dlx)",
            ));
        bench()
            .args(&args)
            .args(["--strategies", "all"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("name one, not all"));
    }
}

#[test]
fn the_old_singular_name_points_to_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    for args in one_strategy_commands(dir.path()) {
        bench()
            .args(&args)
            .args(["--strategy", "fast"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("'--strategies'"));
    }
}

#[test]
fn input_format_forces_the_corpus_format_of_every_reading_command() {
    // Read as CSV, a text corpus has no header naming a puzzle column.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kept.txt");
    let commands: [&[&str]; 3] = [
        &["run", "--out", "/dev/null", "-s", "fast"],
        &["filter", "--out", out.to_str().unwrap()],
        &["check"],
    ];
    for command in commands {
        bench()
            .args(command)
            .args([&fixture("mixed.txt"), "-q", "--input-format", "csv"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("CSV header has no puzzle column"));
    }
}

#[test]
fn format_on_a_reading_command_names_the_new_option() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kept.txt");
    let commands: [&[&str]; 3] = [
        &["run", "--out", "/dev/null"],
        &["filter", "--out", out.to_str().unwrap()],
        &["check"],
    ];
    for command in commands {
        bench()
            .args(command)
            .args([&fixture("mixed.txt"), "-q", "--format", "csv"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "the corpus format is `--input-format csv` (`--format` names an output format)",
            ));
        assert!(!out.exists(), "refused before any output was made");
    }
}

/// `--timeout` stops every solver from outside but a `lib:` one called in-process: the
/// help once said that nothing interrupts any `lib:` solver.
#[test]
fn run_help_says_which_solvers_the_timeout_stops() {
    let out = bench().args(["run", "--help"]).assert().success();
    let help = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains(
            "A --solver cmd: copy or lib: worker process past it is killed, charged the \
             limit, and started again; nothing interrupts a lib: solver called --in-process"
        ),
        "{help}"
    );
    assert!(
        !help.contains("Nothing interrupts a --solver lib: solver"),
        "{help}"
    );
}

#[test]
fn help_shows_the_agreed_names() {
    let help = |command: &str| {
        let out = bench().args([command, "--help"]).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let run = help("run");
    for option in [
        "-s, --strategies",
        "--input-format <FORMAT>",
        "--summary-format",
        "--wide",
    ] {
        assert!(run.contains(option), "run --help lacks {option}: {run}");
    }
    for command in ["filter", "check"] {
        let text = help(command);
        assert!(text.contains("-s, --strategies <NAME>"), "{text}");
        assert!(text.contains("--input-format <FORMAT>"), "{text}");
        assert!(!text.contains("--format"), "the old name is hidden: {text}");
    }
    let generate = help("generate");
    assert!(generate.contains("-s, --strategies <NAME>"), "{generate}");
    assert!(
        generate.contains("--format <FORMAT>"),
        "its output's format: {generate}"
    );
}

/// Markdown has one name in both commands that write it, `markdown`, which the help shows;
/// `md` (the file extension) is its short form in both.
#[test]
fn markdown_is_spelt_alike_in_run_and_compare() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("run.csv");
    for word in ["markdown", "md"] {
        let out = bench()
            .args(["run", &fixture("mixed.txt"), "-s", "fast", "-q", "-o"])
            .arg(&csv)
            .args(["--summary", "-", "--summary-format", word])
            .assert()
            .success();
        let md = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(md.contains("\n| corpus | strategy |"), "{word}: {md}");
        let out = bench()
            .arg("compare")
            .args([&csv, &csv])
            .args(["--format", word])
            .assert()
            .success();
        let md = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(md.starts_with("### sudoku-bench compare"), "{word}: {md}");
    }
    let help = |command: &str| {
        let out = bench().args([command, "--help"]).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let run = help("run");
    assert!(
        run.contains("[possible values: json, markdown, csv]"),
        "{run}"
    );
    let compare = help("compare");
    assert!(
        compare.contains("- markdown\n") && !compare.contains("- md"),
        "{compare}"
    );
}

/// `--solutions` means one thing: how many solutions `generate` gives its puzzles. `check`
/// solves its puzzles with `--solve`, and its old `--solutions` is refused with the new name.
#[test]
fn solutions_is_generates_class_and_check_solves_with_solve() {
    let kaggle = fixture("kaggle.csv");
    bench()
        .args(["check", &kaggle, "--solve", "-q"])
        .assert()
        .success()
        .stderr(predicate::str::contains("solutions checked with"));
    bench()
        .args(["check", &kaggle, "--solutions", "-q"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "check's --solutions is now --solve",
        ));
    let help = bench().args(["check", "--help"]).assert().success();
    let help = String::from_utf8(help.get_output().stdout.clone()).unwrap();
    assert!(
        help.contains("--solve") && !help.contains("--solutions"),
        "{help}"
    );
    bench()
        .args(["generate", "-n", "2", "-q", "--solutions", "many"])
        .assert()
        .success();
}

/// One set of output format names for the summary, the comparison and the history's
/// export: each option takes the formats its output has and refuses another output's,
/// naming the option, the format given and the ones it takes.
#[test]
fn each_output_option_refuses_another_outputs_format_by_name() {
    let mixed = fixture("mixed.txt");
    let cases: [(Vec<&str>, &str, &str, &str); 3] = [
        (
            vec![
                "run",
                &mixed,
                "--summary",
                "s.json",
                "--summary-format",
                "html",
            ],
            "--summary-format <SUMMARY_FORMAT>",
            "html",
            "json, markdown, csv",
        ),
        (
            vec!["compare", "a.csv", "b.csv", "--format", "csv"],
            "--format <FORMAT>",
            "csv",
            "table, markdown, json, html",
        ),
        (
            vec!["history", "export", "--format", "table"],
            "--format <FORMAT>",
            "table",
            "bmf",
        ),
    ];
    for (args, option, given, taken) in cases {
        bench().args(&args).assert().code(2).stderr(
            predicate::str::contains(format!("invalid value '{given}' for '{option}'")).and(
                predicate::str::contains(format!("[possible values: {taken}]")),
            ),
        );
    }
}
