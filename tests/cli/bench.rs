//! The library's `Bench`, the few lines a program needs to time strategies over a corpus
//! with the standard outputs. Here rather than as the facade library's own unit tests: a
//! test binary of their own would be compiled and linked for two tests (see main.rs).

use sudoku_bench::results::csv::{RowReader, COLUMNS};
use sudoku_bench::strategy::{by_name, testkit};
use sudoku_bench::{Bench, SummaryReport};

#[test]
fn writes_the_standard_csv_and_summary_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let corpus = [
        testkit::EASY,
        "# a comment",
        testkit::TWO_SOLUTIONS,
        testkit::UNSOLVABLE,
    ];
    std::fs::write(path("c.txt"), corpus.join("\n")).unwrap();
    let strategies = ["dlx", "bitmask"].map(|s| by_name(s).unwrap().clone());
    let report = Bench::new(strategies)
        .threads(2)
        .csv(path("r.csv"))
        .summary(path("s.json"))
        .run(path("c.txt"))
        .unwrap();
    assert_eq!(report.mismatches(), 0);
    let text = std::fs::read_to_string(path("r.csv")).unwrap();
    assert_eq!(text.lines().next(), Some(COLUMNS.join(",").as_str()));
    let rows: Vec<(u64, String, String)> = RowReader::open(&path("r.csv"))
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (r.line, r.strategy, r.status.unwrap().to_string())
        })
        .collect();
    let want = [(1, "unique"), (3, "multiple"), (4, "unsolvable")]
        .iter()
        .flat_map(|&(line, status)| {
            ["dlx", "bitmask"].map(|s| (line, s.to_string(), status.to_string()))
        })
        .collect::<Vec<_>>();
    assert_eq!(rows, want);
    let json: SummaryReport =
        serde_json::from_str(&std::fs::read_to_string(path("s.json")).unwrap()).unwrap();
    // The JSON holds what was returned (floats aside: their last digit may round).
    for rows in [&json.rows, &report.rows] {
        let counts: Vec<(&str, u64, u64, u64, u64)> = rows
            .iter()
            .map(|r| {
                (
                    r.strategy.as_str(),
                    r.puzzles,
                    r.unique,
                    r.multiple,
                    r.unsolvable,
                )
            })
            .collect();
        assert_eq!(counts, [("dlx", 3, 1, 1, 1), ("bitmask", 3, 1, 1, 1)]);
    }
}

#[test]
fn an_output_that_cannot_be_written_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c.txt");
    std::fs::write(&corpus, testkit::EASY).unwrap();
    let csv = dir.path().join("no/such/dir/r.csv");
    let err = Bench::new([by_name("dlx").unwrap().clone()])
        .csv(&csv)
        .run(&corpus)
        .unwrap_err();
    assert!(err.to_string().contains("no/such/dir/r.csv"), "{err}");
}
