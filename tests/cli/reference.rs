//! `sudoku-bench reference`: the committed Markdown reference is what the code makes, and the
//! man pages and completion scripts are made on demand.

use crate::bench;
use predicates::prelude::*;

/// The command that makes docs/reference.md, as the failure says it.
const REGENERATE: &str = "cargo run --release -- reference markdown > docs/reference.md";

#[test]
fn the_committed_reference_is_what_the_code_makes() {
    let made = bench()
        .args(["reference", "markdown"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reference.md");
    let committed = std::fs::read(path).unwrap_or_else(|e| {
        panic!("docs/reference.md: {e}: make it with `{REGENERATE}` and commit it")
    });
    if made != committed {
        let made = String::from_utf8_lossy(&made);
        let committed = String::from_utf8_lossy(&committed);
        let (line, (now, kept)) = made
            .lines()
            .map(Some)
            .chain(std::iter::repeat(None))
            .zip(committed.lines().map(Some).chain(std::iter::repeat(None)))
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .expect("texts that differ differ in a line");
        panic!(
            "docs/reference.md is not what the options' definitions make: run `{REGENERATE}` \
             and commit it.\nFirst difference, line {}:\n  the code:      {}\n  the file:      {}",
            line + 1,
            now.unwrap_or("(ends)"),
            kept.unwrap_or("(ends)"),
        );
    }
}

#[test]
fn man_pages_are_written_into_the_directory_given() {
    let dir = tempfile::tempdir().unwrap();
    bench()
        .args(["reference", "man"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout("");
    for page in [
        "sudoku-bench.1",
        "sudoku-bench-run.1",
        "sudoku-bench-history-add.1",
    ] {
        let text = std::fs::read_to_string(dir.path().join(page)).unwrap();
        assert!(text.contains("\n.SH OPTIONS"), "{page}: {text}");
    }
}

#[test]
fn man_pages_refuse_a_directory_that_is_not_there() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("man1");
    // A file where the directory should be: said as that, and left alone.
    let file = dir.path().join("one.txt");
    std::fs::write(&file, "mine").unwrap();
    for (path, why) in [(&missing, "no such directory"), (&file, "not a directory")] {
        bench()
            .args(["reference", "man"])
            .arg(path)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "{}: {why}",
                path.display()
            )));
    }
    assert!(!missing.exists());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

#[test]
fn completions_are_printed_for_each_shell() {
    for (shell, start) in [
        ("bash", "_sudoku__bench() {"),
        ("zsh", "#compdef sudoku-bench"),
        ("fish", "# Print an optspec for argparse"),
        ("elvish", "use builtin;"),
        ("powershell", "using namespace System.Management.Automation"),
    ] {
        bench()
            .args(["reference", "completions", shell])
            .assert()
            .success()
            .stdout(predicate::str::contains(start));
    }
    bench()
        .args(["reference", "completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("possible values: bash"));
}
