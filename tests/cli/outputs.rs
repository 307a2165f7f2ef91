//! What `report`, `compare` and `merge` (besides the corpus commands `safety.rs` covers) do
//! with the files they write: a refusal says what the clashing file is to the command, an
//! output whose directory is not there is refused before any work, a page is written whole
//! or not at all, and an output FIFO nobody reads does not keep a signal from ending the
//! command.

use std::path::{Path, PathBuf};

use crate::bench;

/// `run` of `datasets/classic.txt` with `fast` into `dir/NAME.csv` and `dir/NAME.json`.
fn run_into(dir: &Path, name: &str) -> PathBuf {
    let csv = dir.join(format!("{name}.csv"));
    bench()
        .args(["run", "datasets/classic.txt", "-s", "fast", "-q", "-o"])
        .arg(&csv)
        .arg("--summary")
        .arg(csv.with_extension("json"))
        .assert()
        .success();
    csv
}

/// Runs `args`, expecting exit 2; its stderr.
fn refused(args: &[&std::ffi::OsStr]) -> String {
    let out = bench().args(args).assert().code(2).get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn an_output_that_is_an_input_is_named_as_what_the_command_reads() {
    let dir = tempfile::tempdir().unwrap();
    let csv = run_into(dir.path(), "rep");
    let json = csv.with_extension("json");
    let before = std::fs::read(&csv).unwrap();
    let os = |s: &str| std::ffi::OsStr::new(s).to_os_string();
    for (args, input) in [
        (
            vec![
                os("report"),
                csv.clone().into(),
                os("-o"),
                csv.clone().into(),
            ],
            "report's input",
        ),
        (
            vec![
                os("report"),
                csv.clone().into(),
                json.clone().into(),
                os("-o"),
                json.clone().into(),
            ],
            "report's input",
        ),
        (
            vec![
                os("compare"),
                csv.clone().into(),
                csv.clone().into(),
                os("-o"),
                csv.clone().into(),
            ],
            "compare's input",
        ),
        (
            vec![
                os("merge"),
                csv.clone().into(),
                os("-o"),
                json.clone().into(),
            ],
            "merge's input",
        ),
    ] {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let err = refused(&args);
        assert!(err.contains(input), "{args:?}: {err}");
        assert!(
            err.contains("refusing to overwrite an input"),
            "{args:?}: {err}"
        );
        // Not a corpus: these commands read runs.
        assert!(!err.contains("corpus"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(&csv).unwrap(), before);
    // Named twice: said as an input of report, not a corpus.
    let err = refused(&[
        "report".as_ref(),
        csv.as_os_str(),
        csv.as_os_str(),
        "-o".as_ref(),
        dir.path().join("r.html").as_os_str(),
    ]);
    assert!(
        err.contains("is named twice") && !err.contains("corpus"),
        "{err}"
    );
}

#[test]
fn html_pages_show_code_where_their_text_has_backticks() {
    let dir = tempfile::tempdir().unwrap();
    let csv = run_into(dir.path(), "run");
    let json = csv.with_extension("json");
    // Summaries only: the page says to compare the CSVs, naming `run --out`.
    let out = bench()
        .arg("compare")
        .arg(&json)
        .arg(&json)
        .args(["--format", "html"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let page = String::from_utf8(out).unwrap();
    assert!(page.contains("<code>run --out</code>"), "{page}");
    assert!(!page.contains('`'), "{page}");
    // A report without the summary JSON says how to give it.
    let html = dir.path().join("r.html");
    bench()
        .arg("report")
        .arg(&csv)
        .arg("-o")
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<code>sudoku-bench report run.csv run.json -o report.html</code>"),
        "{page}"
    );
    assert!(!page.contains('`'), "{page}");
}
