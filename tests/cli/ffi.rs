//! The project's own strategies as a shared library (`ffi/`, `libsudoku_bench_ffi.so`),
//! loaded back with `run --solver NAME=lib:...`: each export must answer exactly as the
//! built-in strategy of its name, guesses included.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::{of, run_ok, say_skipped, Row};

/// The library, built beside this test binary because the crate's tests depend on
/// `sudoku-bench-ffi` (Cargo.toml): cargo builds every crate type of a dependency.
pub fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let path = exe.with_file_name(format!(
        "{}sudoku_bench_ffi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    assert!(path.is_file(), "{} was not built", path.display());
    path
}

/// Run `corpus` with the built-in `fast` and the library's, `--strict`: every count is
/// checked against the reference, and any disagreement or failure fails the run. Returns
/// the rows.
fn fast_and_its_export(corpus: &str) -> (BTreeMap<u64, Row>, BTreeMap<u64, Row>) {
    let spec = format!("lib-fast=lib:{}:sudoku_bench_fast", library().display());
    let rows = run_ok(&[corpus, "-s", "fast", "--solver", &spec, "--strict"]);
    (of(&rows, "fast"), of(&rows, "lib-fast"))
}

fn assert_same_answers(ours: &BTreeMap<u64, Row>, theirs: &BTreeMap<u64, Row>) {
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>()
    );
    for (line, row) in theirs {
        for field in ["status", "solutions", "solution", "guesses", "error"] {
            assert_eq!(row[field], ours[line][field], "line {line}: {field}");
        }
    }
}

#[test]
fn the_exported_fast_answers_as_the_built_in_one_on_classic() {
    let (fast, lib) = fast_and_its_export("datasets/classic.txt");
    assert_eq!(lib.len(), 14);
    assert_same_answers(&fast, &lib);
    assert!(
        lib.values()
            .any(|r| r["guesses"].parse::<u64>().unwrap() > 0),
        "some puzzle needs guesses, so their equality says something"
    );
}

#[test]
fn the_exported_fast_answers_as_the_built_in_one_on_a_shared_corpus() {
    const NAME: &str = "puzzles3_magictour_top1465";
    let path = format!("{}/../shared/datasets/{NAME}", env!("CARGO_MANIFEST_DIR"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        say_skipped(&format!("../shared/datasets/{NAME} not found"));
        return;
    };
    // The first 300 puzzles: hard ones, each needing guesses, in well under a second.
    let slice: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(300)
        .flat_map(|l| [l, "\n"])
        .collect();
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), slice).unwrap();
    let (fast, lib) = fast_and_its_export(file.path().to_str().unwrap());
    assert_eq!(lib.len(), 300);
    assert_same_answers(&fast, &lib);
}

#[test]
fn every_export_answers_as_its_built_in_strategy_and_a_budget_fails_alike() {
    let library = library();
    let names = ["naive", "hashset", "bitmask", "stack", "dlx", "fast"];
    let mut args: Vec<String> = ["datasets/classic.txt", "-s", &names.join(",")]
        .map(String::from)
        .to_vec();
    // The same budget on both sides: 50 thousand nodes, 50 units of `configuration`.
    args.extend(["--max-nodes", "50000"].map(String::from));
    for name in names {
        let spec = format!("lib-{name}=lib:{}:sudoku_bench_{name}", library.display());
        let config = format!("lib-{name}=50");
        args.extend(["--solver".into(), spec, "--solver-config".into(), config]);
    }
    let rows = run_ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let mut stopped = 0;
    for name in names {
        let (ours, theirs) = (of(&rows, name), of(&rows, &format!("lib-{name}")));
        assert_eq!(theirs.len(), 14, "{name}");
        for (line, row) in &theirs {
            let built_in = &ours[line];
            if built_in["status"] == "aborted" {
                // The budget ran out in both: the library says so by a count above the
                // limit, which the loader reports as a failure.
                assert_eq!(row["status"], "aborted", "{name} line {line}");
                assert!(row["error"].contains("more than the limit"), "{row:?}");
                stopped += 1;
                continue;
            }
            for field in ["status", "solutions", "solution"] {
                assert_eq!(row[field], built_in[field], "{name} line {line}: {field}");
            }
            // A strategy that counts no guesses leaves `*guesses` alone: the loader's 0.
            let guesses = match &*built_in["guesses"] {
                "" => "0",
                counted => counted,
            };
            assert_eq!(row["guesses"], guesses, "{name} line {line}");
        }
    }
    assert!(
        stopped > 0,
        "the slow strategies stop at the budget on classic's hard puzzles"
    );
}
