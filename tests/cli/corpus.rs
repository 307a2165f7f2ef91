//! End-to-end tests of the corpus tools: `filter`, `check` and `generate`, and the shipped
//! generated datasets.

use std::path::Path;

use crate::{bench, fixture};
use predicates::prelude::*;
use sudoku_bench::strategy::{self, Limits};
use sudoku_bench::Grid;

const SEVENTEEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/datasets/puzzles2_17_clue"
);
const TOP1465: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/datasets/puzzles3_magictour_top1465"
);

/// Whether a shared corpus is there; a test that needs it says so and passes when not
/// (CI has them beside the repository).
fn shared(path: &str) -> bool {
    let there = Path::new(path).exists();
    if !there {
        crate::say_skipped(&format!("{path} is not there"));
    }
    there
}

fn count(grid: &Grid, name: &str) -> u32 {
    let mut s = strategy::by_name(name).unwrap().make();
    s.solve(grid, &Limits::default()).solutions
}

fn solution(grid: &Grid) -> Grid {
    let mut s = strategy::by_name("dlx").unwrap().make();
    s.solve(grid, &Limits::default()).first.unwrap()
}

/// The first `n` puzzles of the shipped minimal corpus: unique, and any clue taken away
/// leaves several solutions. Shipped, so the tests built on it run on every clone.
fn minimal(n: usize) -> Vec<String> {
    std::fs::read_to_string(format!(
        "{}/datasets/minimal.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .lines()
    .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    .take(n)
    .map(|l| l.trim().to_string())
    .collect()
}

/// A minimal puzzle with one clue taken away: at least two solutions.
fn multiple_from(unique: &str) -> String {
    let at = unique
        .find(|c: char| c.is_ascii_digit() && c != '0')
        .unwrap();
    let mut s = unique.to_string();
    s.replace_range(at..at + 1, ".");
    s
}

/// A wrong digit that clashes with no given, written into a blank: the only completion of
/// the original is ruled out, so there is none.
fn unsolvable_from(unique: &str) -> String {
    let grid = Grid::parse(unique.as_bytes()).unwrap();
    let sol = solution(&grid);
    for cell in (0..81).filter(|&c| grid.get(c) == 0) {
        for d in (1..=9).filter(|&d| d != sol.get(cell)) {
            let mut g = grid;
            g.set(cell, d);
            if g.conflict().is_none() {
                return g.to_dotted();
            }
        }
    }
    unreachable!("a minimal puzzle has a blank that takes a wrong digit")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Keep,
    Reject(&'static str),
    Drop,
}

/// A corpus with unique, multiple and unsolvable puzzles, comments, blanks and bad lines,
/// mixing CRLF and LF: its bytes and, per line, what filter must do with it.
fn derived_corpus() -> (Vec<u8>, Vec<Expect>) {
    let mut bytes = Vec::new();
    let mut expect = Vec::new();
    let mut push = |line: &str, crlf: bool, e: Expect| {
        bytes.extend_from_slice(line.as_bytes());
        bytes.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        expect.push(e);
    };
    push("# derived from the minimal corpus", true, Expect::Keep);
    for (i, p) in minimal(60).iter().enumerate() {
        let crlf = i % 2 == 0;
        match i % 6 {
            0 => push(p, crlf, Expect::Keep),
            1 => push(&multiple_from(p), crlf, Expect::Reject("multiple")),
            2 => push(&unsolvable_from(p), crlf, Expect::Reject("unsolvable")),
            3 => push("", crlf, Expect::Drop),
            4 => push(&format!("# comment {i}"), crlf, Expect::Keep),
            _ => push(&p[..80], crlf, Expect::Reject("malformed")),
        }
    }
    // The last line has no line ending: it must stay that way.
    let last = minimal(61).pop().unwrap();
    bytes.extend_from_slice(last.as_bytes());
    expect.push(Expect::Keep);
    (bytes, expect)
}

fn lines_with_endings(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

#[test]
fn derived_puzzles_have_the_counts_they_claim() {
    for p in minimal(5) {
        let m = Grid::parse(multiple_from(&p).as_bytes()).unwrap();
        let u = Grid::parse(unsolvable_from(&p).as_bytes()).unwrap();
        for s in ["dlx", "bitmask"] {
            assert_eq!(count(&m, s), 2);
            assert_eq!(count(&u, s), 0);
        }
    }
}

#[test]
fn filter_sends_each_line_to_the_right_file_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, expect) = derived_corpus();
    let corpus = dir.path().join("derived.txt");
    std::fs::write(&corpus, &bytes).unwrap();
    let lines = lines_with_endings(&bytes);
    assert_eq!(lines.len(), expect.len());

    let want_out: Vec<u8> = lines
        .iter()
        .zip(&expect)
        .filter(|(_, e)| **e == Expect::Keep)
        .flat_map(|(l, _)| l.to_vec())
        .collect();
    let want_rejects: Vec<(usize, &str)> = expect
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            Expect::Reject(status) => Some((i + 1, *status)),
            _ => None,
        })
        .collect();

    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("kept{threads}.txt"));
        let rejects = dir.path().join(format!("rejects{threads}.txt"));
        bench()
            .arg("filter")
            .arg(&corpus)
            .arg("--out")
            .arg(&out)
            .arg("--rejects")
            .arg(&rejects)
            .args(["-j", threads, "--chunk-size", "7", "-q"])
            .assert()
            .success()
            .stderr(predicate::str::contains(
                "unique 11, multiple 10, unsolvable 10, malformed 10; kept 11, rejected 30",
            ));
        let kept = std::fs::read(&out).unwrap();
        assert!(kept == want_out, "{}", String::from_utf8_lossy(&kept));
        let rejected = std::fs::read_to_string(&rejects).unwrap();
        let got: Vec<(usize, &str)> = rejected
            .lines()
            .map(|l| {
                let mut fields = l.split('\t');
                let place = fields.next().unwrap();
                let (file, line) = place.rsplit_once(':').unwrap();
                assert_eq!(Path::new(file), corpus);
                (line.parse().unwrap(), fields.next().unwrap())
            })
            .collect();
        assert_eq!(got, want_rejects);
        // Each reject carries its original line, ending included.
        for (line, raw) in rejected.split_inclusive('\n').zip(&want_rejects) {
            assert!(line.as_bytes().ends_with(lines[raw.0 - 1]), "{line:?}");
        }
        outputs.push((kept, rejected));
    }
    assert_eq!(outputs[0], outputs[1], "output depends on the thread count");
}

#[test]
fn filter_keeps_other_statuses_on_request_and_dedupes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let rejects = dir.path().join("rejects.txt");
    bench()
        .arg("filter")
        .arg(fixture("mixed.txt"))
        .arg(fixture("mixed_crlf.txt"))
        .args(["--keep", "multiple,invalid", "--dedupe", "-q", "--out"])
        .arg(&out)
        .arg("--rejects")
        .arg(&rejects)
        .assert()
        .success();
    let kept = std::fs::read_to_string(&out).unwrap();
    let mixed = std::fs::read_to_string(fixture("mixed.txt")).unwrap();
    let mixed: Vec<&str> = mixed.split_inclusive('\n').collect();
    let crlf = std::fs::read_to_string(fixture("mixed_crlf.txt")).unwrap();
    let crlf: Vec<&str> = crlf.split_inclusive('\n').collect();
    // Both comments stay; the multiple (line 3) and invalid (line 6) lines are kept from the
    // first file only: the second file's copies are the same grids.
    assert_eq!(kept, [mixed[0], mixed[2], mixed[5], crlf[0]].concat());
    let rejected = std::fs::read_to_string(&rejects).unwrap();
    let second = fixture("mixed_crlf.txt");
    assert!(rejected.contains(&format!(
        "{second}:3\tduplicate\tsame grid as {}:3\t",
        fixture("mixed.txt")
    )));
    assert!(rejected.contains(&format!("{second}:2\tunique\t")));
}

#[test]
fn filter_writes_the_csv_header_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    // A corpus is read once: the second is a copy.
    let copy = dir.path().join("copy.csv");
    std::fs::copy(fixture("kaggle.csv"), &copy).unwrap();
    bench()
        .arg("filter")
        .arg(fixture("kaggle.csv"))
        .arg(&copy)
        .args(["-q", "--out"])
        .arg(&out)
        .assert()
        .success();
    let input = std::fs::read_to_string(fixture("kaggle.csv")).unwrap();
    let body: String = input.split_inclusive('\n').skip(1).collect();
    let kept = std::fs::read_to_string(&out).unwrap();
    assert_eq!(kept, format!("{input}{body}"));
}

#[test]
fn filter_keeps_every_17_clue_puzzle() {
    if !shared(SEVENTEEN) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    bench()
        .args(["filter", SEVENTEEN, "-q", "--dedupe", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "49158 puzzles: unique 49158; kept 49158, rejected 0, duplicates 0",
        ));
    assert!(std::fs::read(&out).unwrap() == std::fs::read(SEVENTEEN).unwrap());
}

#[test]
fn filter_refuses_an_unknown_strategy_and_a_missing_file() {
    bench()
        .args(["filter", &fixture("mixed.txt"), "-s", "magic", "--out", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown strategy \"magic\""));
    bench()
        .args(["filter", "no/such.txt", "--out", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot open no/such.txt"));
}

#[test]
fn check_reports_every_fault_with_line_and_column_and_fails() {
    let mixed = fixture("mixed.txt");
    bench()
        .args(["check", "-q", &mixed])
        .assert()
        .code(1)
        .stdout(format!(
            "{mixed}:6:2: digit 5 appears twice in row 1 (r1c1 and r1c2)\n\
             {mixed}:7:1: expected 81 cells, found 80\n\
             {mixed}:8:81: character 'x' at column 81 is not a digit or a blank ('.' or '0')\n"
        ))
        .stderr(predicate::str::contains("7 puzzle lines, 3 faulty"));
}

#[test]
fn check_passes_clean_corpora() {
    bench()
        .args(["check", "-q", "--solve"])
        .arg(fixture("kaggle.csv"))
        .arg(fixture("kaggle_id.csv"))
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains("5 puzzle lines, no faults"));
}

#[test]
fn check_solutions_finds_a_solution_column_of_a_non_unique_puzzle() {
    let dir = tempfile::tempdir().unwrap();
    let p = &minimal(1)[0];
    let multiple = multiple_from(p);
    let one_of_them = solution(&Grid::parse(multiple.as_bytes()).unwrap());
    let unique_sol = solution(&Grid::parse(p.as_bytes()).unwrap());
    let mut wrong = unique_sol.to_dotted();
    // Swap two digits of the solution: not a solution any more, caught by the loader.
    let (a, b) = (wrong.as_bytes()[0] as char, wrong.as_bytes()[1] as char);
    wrong.replace_range(0..2, &format!("{b}{a}"));
    let csv = dir.path().join("c.csv");
    std::fs::write(
        &csv,
        format!(
            "quizzes,solutions\n{p},{}\n{multiple},{}\n{p},{wrong}\n",
            unique_sol.to_dotted(),
            one_of_them.to_dotted()
        ),
    )
    .unwrap();
    let name = csv.display().to_string();
    // Without --solve the multiple puzzle passes: its column does fit it.
    let plain = bench().args(["check", "-q", &name]).assert().code(1);
    let plain = String::from_utf8(plain.get_output().stdout.clone()).unwrap();
    assert!(plain.starts_with(&format!("{name}:4:")), "{plain}");
    assert_eq!(plain.lines().count(), 1, "{plain}");
    bench()
        .args(["check", "-q", "--solve", &name])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "{name}:3:1: puzzle has more than one solution"
        )))
        .stdout(predicate::str::contains(format!("{name}:4:")))
        .stdout(predicate::str::contains(format!("{name}:2:")).not());
}

fn generate(args: &[&str]) -> Vec<u8> {
    bench()
        .arg("generate")
        .args(args)
        .args(["-q", "--out", "-"])
        .assert()
        .success()
        .stderr(predicate::str::contains("puzzles/s"))
        .get_output()
        .stdout
        .clone()
}

#[test]
fn generate_is_reproducible_across_thread_counts_and_unique_and_minimal() {
    let one = generate(&["--count", "60", "--seed", "11", "-j", "1"]);
    let two = generate(&["--count", "60", "--seed", "11", "-j", "2"]);
    assert!(one == two, "output depends on the thread count");
    let other = generate(&["--count", "60", "--seed", "12", "-j", "2"]);
    assert!(one != other, "the seed is ignored");
    let text = String::from_utf8(one).unwrap();
    assert_eq!(text.lines().count(), 60);
    for line in text.lines() {
        let grid = Grid::parse(line.as_bytes()).unwrap();
        assert_eq!(count(&grid, "dlx"), 1, "{line}");
        assert_eq!(count(&grid, "bitmask"), 1, "{line}");
        for cell in (0..81).filter(|&c| grid.get(c) != 0) {
            let mut fewer = grid;
            fewer.set(cell, 0);
            assert_eq!(count(&fewer, "bitmask"), 2, "not minimal: {line}");
        }
    }
}

#[test]
fn generated_csv_feeds_run_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("g.csv");
    std::fs::write(
        &csv,
        generate(&[
            "--count",
            "30",
            "--seed",
            "3",
            "--format",
            "csv",
            "--symmetry",
            "rot180",
        ]),
    )
    .unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("quizzes,solutions\n"));
    bench()
        .args(["check", "-q", "--solve"])
        .arg(&csv)
        .assert()
        .success();
    let out = bench()
        .args(["run", "-q", "--strict", "-s", "bitmask", "--out", "-"])
        .arg(&csv)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(out.lines().filter(|l| l.contains(",unique,")).count(), 30);
}

#[test]
fn generated_classes_of_many_and_no_solutions_are_what_filter_calls_them() {
    let dir = tempfile::tempdir().unwrap();
    for (class, status, options) in [
        ("many", "multiple", &["--extra-blanks", "12"][..]),
        ("none", "unsolvable", &["--extra-blanks", "4"][..]),
    ] {
        let mut args = vec![
            "--count",
            "40",
            "--seed",
            "5",
            "-j",
            "2",
            "--solutions",
            class,
        ];
        args.extend(options);
        let corpus = generate(&args);
        args[5] = "1";
        assert!(
            generate(&args) == corpus,
            "{class}: output depends on the thread count"
        );
        let path = dir.path().join(class);
        std::fs::write(&path, &corpus).unwrap();
        // Every puzzle is rejected, with the count the class promises, by two strategies.
        for strategy in ["dlx", "fast"] {
            let kept = dir.path().join("kept");
            let rejects = dir.path().join("rejects.csv");
            bench()
                .args(["filter", "-q", "-s", strategy, "--out"])
                .arg(&kept)
                .arg("--rejects")
                .arg(&rejects)
                .arg(&path)
                .assert()
                .success();
            assert_eq!(std::fs::read(&kept).unwrap(), b"", "{class} {strategy}");
            let rejects = std::fs::read_to_string(&rejects).unwrap();
            assert_eq!(
                rejects.lines().filter(|l| l.contains(status)).count(),
                40,
                "{class} {strategy}: {rejects}"
            );
        }
    }
    for (args, message) in [
        (
            &["--solutions", "none", "--format", "csv"][..],
            "--format csv writes each puzzle's one solution",
        ),
        (
            &["--extra-blanks", "2"][..],
            "--extra-blanks goes with --solutions many or none",
        ),
    ] {
        generate_refuses(args, message);
    }
}

/// The map's classes (`scripts/vs-tdoku.sh`): cells kept at random (`--method keep`) and a
/// given added (`--by add`) make puzzles whose clue count lies in `--clues` and whose
/// solution count, counted by `dlx` (not the `fast` that made them), is the class's; the
/// same bytes on one thread and two; and the combinations that make nothing are refused.
#[test]
fn kept_and_added_classes_have_the_clues_and_solutions_asked_for() {
    for (options, clues, solutions) in [
        (
            &["--method", "keep", "--clues", "37..41"][..],
            37..=41,
            1..=1,
        ),
        (&["--method", "keep", "--clues", "30..32"], 30..=32, 1..=1),
        (
            &[
                "--method",
                "keep",
                "--clues",
                "22..26",
                "--solutions",
                "many",
            ],
            22..=26,
            2..=2,
        ),
        (
            &[
                "--method",
                "keep",
                "--clues",
                "42..50",
                "--solutions",
                "many",
            ],
            42..=50,
            2..=2,
        ),
        (
            &[
                "--method",
                "keep",
                "--clues",
                "32..36",
                "--solutions",
                "none",
                "--by",
                "add",
            ],
            32..=36,
            0..=0,
        ),
        (
            &["--clues", "22..26", "--solutions", "none", "--by", "add"],
            22..=26,
            0..=0,
        ),
        (&["--solutions", "none", "--by", "add"], 18..=81, 0..=0),
    ] {
        let mut args = vec!["--count", "30", "--seed", "4", "-j", "2"];
        args.extend(options);
        let corpus = generate(&args);
        args[5] = "1";
        assert!(
            generate(&args) == corpus,
            "{options:?}: depends on the threads"
        );
        let text = String::from_utf8(corpus).unwrap();
        assert_eq!(text.lines().count(), 30, "{options:?}");
        for line in text.lines() {
            let grid = Grid::parse(line.as_bytes()).unwrap();
            assert!(grid.breaks_no_rule(), "{options:?}: {line}");
            assert!(clues.contains(&grid.clues()), "{options:?}: {line}");
            let n = count(&grid, "dlx");
            assert!(solutions.contains(&n), "{options:?}: {n} solutions: {line}");
        }
    }
    // With --by add, one given less than the range is a unique puzzle: one more given
    // taken away (the added one) leaves exactly one solution.
    let added = generate(&[
        "--count",
        "5",
        "--seed",
        "4",
        "--solutions",
        "none",
        "--by",
        "add",
    ]);
    for line in String::from_utf8(added).unwrap().lines() {
        let grid = Grid::parse(line.as_bytes()).unwrap();
        let unique = (0..81).filter(|&c| grid.get(c) != 0).any(|cell| {
            let mut fewer = grid;
            fewer.set(cell, 0);
            count(&fewer, "dlx") == 1
        });
        assert!(unique, "no given was added to a unique puzzle: {line}");
    }
    for (args, message) in [
        (
            &["--method", "keep"][..],
            "--method keep needs --clues MIN..MAX",
        ),
        (
            &[
                "--method",
                "keep",
                "--clues",
                "30..35",
                "--solutions",
                "many",
                "--extra-blanks",
                "2",
            ],
            "--extra-blanks goes with --method remove",
        ),
        (&["--by", "add"], "--by goes with --solutions none"),
        (
            &["--solutions", "many", "--by", "change"],
            "--by goes with --solutions none",
        ),
        (
            &["--solutions", "none", "--by", "add", "--extra-blanks", "3"],
            "--by add adds a given to a unique puzzle: not with --extra-blanks",
        ),
        (
            &["--solutions", "none", "--by", "add", "--symmetry", "rot180"],
            "--by add adds one given, which no --symmetry keeps",
        ),
        (
            &["--solutions", "none", "--by", "add", "--clues", "17..17"],
            "use a MAX of 18 or more",
        ),
    ] {
        generate_refuses(args, message);
    }
    // A class no kept cells reach is an error naming why, not a hang.
    bench()
        .args(["generate", "-q", "--count", "1", "--method", "keep", "--clues", "17..18"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no puzzle with 17..=18 clues and the solution count asked for, from cells kept at random",
        ));
}

/// Every `sudoku-bench generate` command in datasets/README.md regenerates its file byte for
/// byte.
#[test]
fn shipped_datasets_regenerate_byte_for_byte() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/datasets/README.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for command in readme
        .lines()
        // The shipped files; the README's other recipes make corpora on the fly.
        .filter(|l| l.starts_with("sudoku-bench generate ") && l.contains(" --out datasets/"))
    {
        let words: Vec<&str> = command.split_whitespace().skip(1).collect();
        let at = words.iter().position(|w| *w == "--out").unwrap();
        let shipped = words[at + 1];
        let fresh = dir.path().join(Path::new(shipped).file_name().unwrap());
        let mut args: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        args[at + 1] = fresh.display().to_string();
        bench().args(&args).arg("-q").assert().success();
        let want = std::fs::read(format!("{root}/{shipped}")).unwrap();
        assert!(
            std::fs::read(&fresh).unwrap() == want,
            "{shipped} does not match: {command}"
        );
        checked += 1;
    }
    assert!(checked >= 2, "datasets/README.md lists {checked} commands");
}

/// `p` transposed, with digits relabelled d -> 10 - d: the same puzzle up to symmetry.
fn transposed_relabelled(p: &str) -> String {
    let b = p.as_bytes();
    (0..81)
        .map(|i| match b[(i % 9) * 9 + i / 9] {
            d @ b'1'..=b'9' => (b'0' + 10 - (d - b'0')) as char,
            _ => '.',
        })
        .collect()
}

#[test]
fn canonical_dedupe_drops_puzzles_equal_under_the_symmetries() {
    let dir = tempfile::tempdir().unwrap();
    let ps = minimal(3);
    let corpus = dir.path().join("c.txt");
    let twin = transposed_relabelled(&ps[0]);
    assert_ne!(twin, ps[0]);
    std::fs::write(
        &corpus,
        format!("{}\n{}\n{twin}\n{}\n", ps[0], ps[1], ps[2]),
    )
    .unwrap();
    let out = dir.path().join("out.txt");
    let rejects = dir.path().join("rejects.txt");
    let filter = |extra: &[&str]| {
        bench()
            .arg("filter")
            .arg(&corpus)
            .args(["-q", "--dedupe", "--out"])
            .arg(&out)
            .arg("--rejects")
            .arg(&rejects)
            .args(extra)
            .assert()
            .success();
        (
            std::fs::read_to_string(&out).unwrap(),
            std::fs::read_to_string(&rejects).unwrap(),
        )
    };
    let (kept, rejected) = filter(&[]);
    assert_eq!(kept.lines().count(), 4);
    assert_eq!(rejected, "");
    let (kept, rejected) = filter(&["--canonical"]);
    assert_eq!(kept, format!("{}\n{}\n{}\n", ps[0], ps[1], ps[2]));
    assert_eq!(
        rejected,
        format!(
            "{c}:3\tduplicate\tequivalent to {c}:1\t{twin}\n",
            c = corpus.display()
        )
    );
}

#[test]
fn canonical_dedupe_finds_the_band_rotated_repeat_in_top1465() {
    let top = TOP1465;
    if !shared(top) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let rejects = dir.path().join("rejects.txt");
    bench()
        .args(["filter", top, "-q", "--dedupe", "--canonical", "--out", "-"])
        .arg("--rejects")
        .arg(&rejects)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "kept 1464, rejected 0, duplicates 1",
        ));
    // Line 309 is line 302 with its bottom band moved to the top.
    let rejected = std::fs::read_to_string(&rejects).unwrap();
    assert!(
        rejected.starts_with(&format!("{top}:309\tduplicate\tequivalent to {top}:302\t")),
        "{rejected}"
    );
}

#[test]
fn filter_refuses_to_overwrite_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c.txt");
    let text = std::fs::read(fixture("mixed.txt")).unwrap();
    std::fs::write(&corpus, &text).unwrap();
    let same = dir.path().join(".").join("c.txt");
    bench()
        .arg("filter")
        .arg(&corpus)
        .arg("--out")
        .arg(&same)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is both a corpus and an output"));
    assert!(
        std::fs::read(&corpus).unwrap() == text,
        "the corpus was touched"
    );
}

/// `generate --count 3` with `args` exits 2 saying `message`.
fn generate_refuses(args: &[&str], message: &str) {
    bench()
        .args(["generate", "-q", "--count", "3"])
        .args(args)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(message));
}
