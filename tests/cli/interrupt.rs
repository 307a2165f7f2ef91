//! SIGINT and SIGTERM on the real binary: a stopped command writes every finished result
//! whole, says what it did, and exits 128 + the signal; a second signal exits at once.
//!
//! Each test starts the binary on a corpus that takes it long enough, waits (bounded) for
//! its output to appear, signals it, and checks what it left. A child still running when a
//! test fails is killed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use sudoku_bench::Grid;

/// Solved in microseconds by every strategy: a block of these fills the CSV's first write.
const EASY: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

const EASY_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

/// Made against brute force: `naive` without a node budget spends seconds or more on it.
const ANTI_BRUTE_FORCE: &str =
    "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9";

/// Easy lines before the slow ones: their rows fill the first write of the CSV (256 KiB),
/// so it appears soon, and the signal that follows lands among slow solves.
const EASY_LINES: usize = 1500;

/// How long to let the slow solves run after the first output appears. Where the signal
/// lands changes nothing that is checked; this only makes it land among slow solves.
const INTO_SLOW: Duration = Duration::from_secs(1);

/// A stop waits for the solves in flight (a task of 8 puzzles per worker) and counts
/// what is left: far less than this, even on a busy machine; the whole corpus takes
/// minutes.
const STOP_WITHIN: Duration = Duration::from_secs(20);

/// Longest wait for anything: the machine may be busy with other builds.
const PATIENCE: Duration = Duration::from_secs(120);

/// A running child, killed if the test ends (or fails) before it exits.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Running {
    pub fn start(args: &[&str], dir: &Path) -> Running {
        Running::start_to(args, dir, Stdio::null())
    }

    /// Its standard output to `stdout`.
    fn start_to(args: &[&str], dir: &Path, stdout: Stdio) -> Running {
        let child = Command::new(env!("CARGO_BIN_EXE_sudoku-bench"))
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        Running(child)
    }

    pub fn signal(&self, signal: i32) {
        let pid = self.0.id() as libc::pid_t;
        // SAFETY: kill has no memory effects; the pid is our own child, not reaped yet.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0, "kill failed");
    }

    /// Its exit status, if it exits within `limit`.
    pub fn exit_within(&mut self, limit: Duration) -> Option<ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Some(status) = self.0.try_wait().expect("try_wait") {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// Its standard error, line by line as it is written (read by a thread of its own).
    pub fn stderr_lines(&mut self) -> Lines {
        use std::io::BufRead;
        let stderr = self
            .0
            .stderr
            .take()
            .expect("stderr is piped, and not taken yet");
        let (said, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                let _ = said.send(line);
            }
        });
        Lines {
            lines,
            seen: Vec::new(),
        }
    }

    pub fn stderr(&mut self) -> String {
        use std::io::Read;
        let mut text = String::new();
        if let Some(mut err) = self.0.stderr.take() {
            err.read_to_string(&mut text).unwrap();
        }
        text
    }
}

/// A child's standard error as it comes, and the lines seen so far.
pub struct Lines {
    lines: std::sync::mpsc::Receiver<String>,
    pub seen: Vec<String>,
}

impl Lines {
    /// Wait up to `limit` for a line holding `text`; the line, or `None`.
    pub fn wait_for(&mut self, text: &str, limit: Duration) -> Option<String> {
        let start = Instant::now();
        loop {
            if let Some(line) = self.seen.iter().find(|l| l.contains(text)) {
                return Some(line.clone());
            }
            let left = limit.checked_sub(start.elapsed())?;
            self.seen.push(self.lines.recv_timeout(left).ok()?);
        }
    }

    /// Every line, once the child has closed its standard error.
    pub fn all(mut self) -> Vec<String> {
        self.seen.extend(self.lines.iter());
        self.seen
    }
}

/// Wait until `path` holds at least `bytes`; fails after `PATIENCE`, or when the child
/// ended first (the corpus was too small for this machine).
fn wait_for_output(child: &mut Running, path: &Path, bytes: u64) {
    let start = Instant::now();
    loop {
        let len = std::fs::metadata(path).map_or(0, |m| m.len());
        if len >= bytes {
            return;
        }
        if let Some(status) = child.0.try_wait().unwrap() {
            panic!(
                "exited ({status}) before writing {bytes} bytes to {}: {}",
                path.display(),
                child.stderr()
            );
        }
        assert!(
            start.elapsed() < PATIENCE,
            "{} has {len} bytes after {PATIENCE:?}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A corpus: `easy` quick lines, then the 1,000 minimal puzzles of `datasets/minimal.txt`
/// `slow` times (each takes `naive` tens of milliseconds). Returns its lines.
fn write_corpus(path: &Path, easy: usize, slow: usize) -> Vec<String> {
    let minimal =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/minimal.txt"))
            .unwrap();
    let mut lines: Vec<String> = vec![EASY.to_string(); easy];
    for _ in 0..slow {
        lines.extend(minimal.lines().map(str::to_string));
    }
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
    lines
}

/// The CSV's rows, each checked as a real result of its corpus line (every line of the
/// corpora here is a puzzle with one solution); per strategy, the lines in the order
/// written.
fn checked_rows(csv_path: &Path, corpus: &[String]) -> BTreeMap<String, Vec<u64>> {
    let mut reader = csv::Reader::from_path(csv_path).unwrap();
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (line, strategy, status) = (column("line"), column("strategy"), column("status"));
    let (puzzle, solution) = (column("puzzle"), column("solution"));
    let nodes = column("nodes");
    let mut by_strategy: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for record in reader.records() {
        // A cut last row has too few fields: the csv reader refuses it.
        let record = record.expect("every row is whole");
        let n: u64 = record[line].parse().unwrap();
        // A searched result: unique, or out of nodes; never a row for an unsolved record.
        match &record[status] {
            "unique" => assert!(!record[solution].is_empty(), "{record:?}"),
            "aborted" => {}
            _ => panic!("not a result of a search: {record:?}"),
        }
        assert!(record[nodes].parse::<u64>().unwrap() > 0, "{record:?}");
        let given = Grid::parse(record[puzzle].as_bytes()).unwrap();
        let source = Grid::parse(corpus[n as usize - 1].as_bytes()).unwrap();
        assert_eq!(given, source, "line {n} is the corpus's line {n}");
        if !record[solution].is_empty() {
            let solved = Grid::parse(record[solution].as_bytes()).unwrap();
            assert!(solved.is_solution_of(&given), "line {n}: not a solution");
        }
        let lines = by_strategy.entry(record[strategy].to_string()).or_default();
        if let Some(&last) = lines.last() {
            assert!(
                n > last,
                "line {n} after line {last}: out of order or repeated"
            );
        }
        lines.push(n);
    }
    by_strategy
}

/// `run` stopped by `signal`: exits 128 + signal, and leaves a CSV of whole, real rows
/// and a summary, marked interrupted, that counts exactly those rows.
fn run_is_stopped_by(signal: i32, strategies: &str) {
    let dir = tempfile::tempdir().unwrap();
    let corpus = write_corpus(&dir.path().join("c.txt"), EASY_LINES, 5);
    let csv_path = dir.path().join("out.csv");
    let args = [
        "run",
        "c.txt",
        "-s",
        strategies,
        "-o",
        "out.csv",
        "--summary",
        "summary.json",
        "-q",
    ];
    let mut child = Running::start(&args, dir.path());
    wait_for_output(&mut child, &csv_path, 1);
    std::thread::sleep(INTO_SLOW);
    child.signal(signal);
    let sent = Instant::now();
    let status = child.exit_within(PATIENCE).expect("exits after the signal");
    eprintln!(
        "{strategies}: stopped {:?} after the signal",
        sent.elapsed()
    );
    assert!(sent.elapsed() < STOP_WITHIN, "{:?}", sent.elapsed());
    let stderr = child.stderr();
    assert_eq!(status.code(), Some(128 + signal), "{stderr}");
    assert!(stderr.contains("interrupted by SIG"), "{stderr}");

    let rows = checked_rows(&csv_path, &corpus);
    let names: Vec<&str> = strategies.split(',').collect();
    assert_eq!(rows.len(), names.len(), "a row for each strategy");
    let first = &rows[names[0]];
    assert!(
        !first.is_empty() && first.len() < corpus.len(),
        "stopped part way"
    );
    for lines in rows.values() {
        assert_eq!(lines, first, "a record has every strategy's row or none");
    }

    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["interrupted"], true);
    // A regular file this small is counted to the end.
    assert_eq!(
        summary["not_reached"].as_u64(),
        Some((corpus.len() - first.len()) as u64)
    );
    let summary_rows = summary["rows"].as_array().unwrap();
    assert_eq!(summary_rows.len(), names.len());
    for row in summary_rows {
        let name = row["strategy"].as_str().unwrap();
        assert_eq!(row["puzzles"].as_u64(), Some(rows[name].len() as u64));
    }
    // `compare` takes both as they are (it refuses a cut row).
    for file in ["out.csv", "summary.json"] {
        let compared = Command::new(env!("CARGO_BIN_EXE_sudoku-bench"))
            .args(["compare", file, file])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            compared.status.success(),
            "compare {file}: {}",
            String::from_utf8_lossy(&compared.stderr)
        );
    }
}

#[test]
fn sigint_stops_run_with_every_row_whole_and_counted() {
    run_is_stopped_by(libc::SIGINT, "naive");
}

#[test]
fn sigterm_stops_run_with_status_143() {
    run_is_stopped_by(libc::SIGTERM, "naive");
}

#[test]
fn sighup_stops_run_as_sigterm_does() {
    run_is_stopped_by(libc::SIGHUP, "naive");
}

#[test]
fn a_stopped_run_of_two_strategies_reports_the_same_records_for_both() {
    run_is_stopped_by(libc::SIGINT, "bitmask,naive");
}

/// Wait until the child catches SIGINT (its handlers are installed, just before its work
/// starts): a signal sent before would kill it.
#[cfg(target_os = "linux")]
pub(super) fn wait_for_handlers(child: &mut Running) {
    let path = format!("/proc/{}/status", child.0.id());
    let start = Instant::now();
    loop {
        let status = std::fs::read_to_string(&path).unwrap_or_default();
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .unwrap_or(0);
        if caught & (1 << (libc::SIGINT - 1)) != 0 {
            return;
        }
        if let Some(status) = child.0.try_wait().unwrap() {
            panic!(
                "exited ({status}) before handling signals: {}",
                child.stderr()
            );
        }
        assert!(
            start.elapsed() < PATIENCE,
            "no SIGINT handler after {PATIENCE:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_second_signal_exits_at_once_during_a_slow_solve() {
    let dir = tempfile::tempdir().unwrap();
    // Only slow solves: whenever the signal comes, some are in flight.
    let corpus = format!("{ANTI_BRUTE_FORCE}\n").repeat(64);
    std::fs::write(dir.path().join("c.txt"), corpus).unwrap();
    let args = [
        "run",
        "c.txt",
        "-s",
        "naive",
        "--max-nodes",
        "0",
        "--timeout",
        "0",
        "--no-warmup",
        "-o",
        "out.csv",
        "-q",
    ];
    let mut child = Running::start(&args, dir.path());
    wait_for_handlers(&mut child);
    // Into the first solves, which start at once and run for seconds each.
    std::thread::sleep(Duration::from_millis(500));
    child.signal(libc::SIGINT);
    // The first signal waits for the solves in flight.
    if let Some(status) = child.exit_within(Duration::from_millis(300)) {
        panic!(
            "the first signal stopped it ({status}) before its solve ended: {}",
            child.stderr()
        );
    }
    let sent = Instant::now();
    child.signal(libc::SIGINT);
    let status = child
        .exit_within(Duration::from_secs(5))
        .expect("the second signal exits at once");
    assert!(
        sent.elapsed() < Duration::from_secs(2),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(status.code(), Some(130));
}

/// The lines of `path`, each checked to end in a line break.
fn whole_lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "a cut last line");
    text.lines().map(str::to_string).collect()
}

#[test]
fn sigint_stops_filter_with_whole_lines_and_its_counts() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = write_corpus(&dir.path().join("c.txt"), EASY_LINES, 5);
    let args = [
        "filter",
        "c.txt",
        "-s",
        "naive",
        "--max-nodes",
        "1000000",
        // Small chunks, so the easy lines are written before the slow ones are solved.
        "--chunk-size",
        "256",
        "-o",
        "kept.txt",
        "--rejects",
        "rejects.txt",
        "-q",
    ];
    let mut child = Running::start(&args, dir.path());
    wait_for_output(&mut child, &dir.path().join("kept.txt"), 1);
    std::thread::sleep(INTO_SLOW);
    child.signal(libc::SIGINT);
    let sent = Instant::now();
    let status = child.exit_within(PATIENCE).expect("exits after the signal");
    eprintln!("filter: stopped {:?} after the signal", sent.elapsed());
    assert!(sent.elapsed() < STOP_WITHIN, "{:?}", sent.elapsed());
    let stderr = child.stderr();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted by SIGINT"), "{stderr}");

    let kept = whole_lines(&dir.path().join("kept.txt"));
    let rejects = whole_lines(&dir.path().join("rejects.txt"));
    // Every line written is a corpus line, in order: kept ones as they were, rejected
    // ones after their `file:line` and reasons.
    let mut lines: Vec<u64> = Vec::new();
    for reject in &rejects {
        let (place, rest) = reject.split_once('\t').unwrap();
        let n: u64 = place.rsplit_once(':').unwrap().1.parse().unwrap();
        assert!(rest.ends_with(&corpus[n as usize - 1]), "{reject}");
        lines.push(n);
    }
    let mut next = 0;
    for line in &kept {
        let at = corpus[next..].iter().position(|c| c == line).unwrap();
        next += at + 1;
    }
    let done = kept.len() + rejects.len();
    assert!(done > 0 && done < corpus.len(), "stopped part way");
    assert!(stderr.contains(&format!("{done} puzzles: ")), "{stderr}");
    assert!(
        stderr.contains(&format!("kept {}, rejected {}", kept.len(), rejects.len())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{} puzzles not reached", corpus.len() - done)),
        "{stderr}"
    );
    let distinct: BTreeSet<u64> = lines.iter().copied().collect();
    assert_eq!(distinct.len(), lines.len(), "no line twice");
}

#[test]
fn sigint_stops_generate_at_a_prefix_of_whole_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let out: PathBuf = dir.path().join("out.txt");
    let args = ["generate", "--count", "1000000", "-o", "out.txt", "-q"];
    let mut child = Running::start(&args, dir.path());
    wait_for_output(&mut child, &out, 1);
    child.signal(libc::SIGINT);
    let status = child.exit_within(PATIENCE).expect("exits after the signal");
    let stderr = child.stderr();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted by SIGINT"), "{stderr}");
    let written = whole_lines(&out);
    assert!(!written.is_empty() && written.len() < 1_000_000);
    // No gap: exactly the first puzzles of the same seed.
    let again = Command::new(env!("CARGO_BIN_EXE_sudoku-bench"))
        .args(["generate", "--count", &written.len().to_string(), "-q"])
        .output()
        .unwrap();
    assert!(again.status.success());
    let expected: Vec<String> = String::from_utf8(again.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(written, expected);
    assert!(
        stderr.contains(&format!("the first {} puzzles written", written.len())),
        "{stderr}"
    );
}

/// generate answers the first signal at once, while it is blocked writing to a pipe that
/// nobody reads, saying what it does; it then writes what it made once the pipe is read.
#[cfg(target_os = "linux")]
#[test]
fn generate_answers_the_first_signal_at_once_while_its_output_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["generate", "--count", "1000000", "-j", "1", "-q"];
    let mut child = Running::start_to(&args, dir.path(), Stdio::piped());
    let mut stderr = child.stderr_lines();
    wait_for_handlers(&mut child);
    // Far more than a pipe holds: it soon blocks on writing, until the pipe is read.
    let blocked = || {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", child.0.id())).unwrap();
        tasks.flatten().any(|t| {
            let wchan = std::fs::read_to_string(t.path().join("wchan")).unwrap_or_default();
            wchan.contains("pipe_write")
        })
    };
    let start = Instant::now();
    while !blocked() {
        assert!(start.elapsed() < PATIENCE, "never blocked on its output");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.signal(libc::SIGTERM);
    let said = stderr.wait_for("SIGTERM: ", Duration::from_secs(10));
    assert_eq!(
        said.as_deref(),
        Some(
            "SIGTERM: stopping after the current puzzles, then writing the puzzles made, in \
             order; send SIGTERM again to quit now, losing the work in flight"
        ),
        "{:?}",
        stderr.seen
    );
    assert!(child.exit_within(Duration::ZERO).is_none(), "still writing");
    let mut out = child.0.stdout.take().unwrap();
    let written = std::io::read_to_string(&mut out).unwrap();
    let status = child.exit_within(PATIENCE).expect("exits after the signal");
    assert_eq!(status.code(), Some(143), "{:?}", stderr.all());
    assert!(written.ends_with('\n') && written.lines().count() < 1_000_000);
}

#[test]
fn sigint_stops_check_with_the_faults_found_so_far() {
    let dir = tempfile::tempdir().unwrap();
    // Puzzles with their solution column, each one `naive` searches for a while, after a
    // first chunk (4,096 entries) of a few faulty lines, whose reports show that the check
    // has started, and easy puzzles.
    let made = Command::new(env!("CARGO_BIN_EXE_sudoku-bench"))
        .args(["generate", "--format", "csv", "--count", "2000", "-q"])
        .output()
        .unwrap();
    assert!(made.status.success());
    let text = String::from_utf8(made.stdout).unwrap();
    let (header, puzzles) = text.split_once('\n').unwrap();
    let bad = format!("{},{}\n", &EASY[..80], "1".repeat(81)).repeat(5);
    let easy = format!("{EASY},{EASY_SOLUTION}\n").repeat(4091);
    let corpus = format!("{header}\n{bad}{easy}{puzzles}");
    std::fs::write(dir.path().join("c.csv"), corpus).unwrap();
    let entries = 5 + 4091 + puzzles.lines().count();
    let faults = std::fs::File::create(dir.path().join("faults.txt")).unwrap();
    let args = ["check", "c.csv", "--solve", "-s", "naive", "-q"];
    let mut child = Running::start_to(&args, dir.path(), faults.into());
    wait_for_output(&mut child, &dir.path().join("faults.txt"), 1);
    std::thread::sleep(INTO_SLOW);
    child.signal(libc::SIGINT);
    let status = child.exit_within(PATIENCE).expect("exits after the signal");
    let stderr = child.stderr();
    assert_eq!(status.code(), Some(130), "{stderr}");
    let found = whole_lines(&dir.path().join("faults.txt"));
    assert_eq!(found.len(), 5, "the faulty lines, each once: {found:?}");
    // `check: interrupted by SIGINT: N puzzle lines checked, 5 faulty so far, M not reached`
    let numbers: Vec<usize> = stderr
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    assert!(stderr.contains("interrupted by SIGINT"), "{stderr}");
    assert!(stderr.contains(", 5 faulty so far, "), "{stderr}");
    let (checked, left) = (numbers[0], numbers[2]);
    assert!(checked >= 5 && checked < entries, "{stderr}");
    assert_eq!(checked + left, entries, "{stderr}");
}

/// The names in `dir`.
fn names_in(dir: &Path) -> BTreeSet<String> {
    let entries = std::fs::read_dir(dir).unwrap().flatten();
    entries
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Wait until `dir` holds a staged output's temporary file: the command is under way, its
/// output not yet in place.
fn wait_for_temporary(child: &mut Running, dir: &Path) {
    let start = Instant::now();
    while !names_in(dir).iter().any(|n| n.ends_with(".tmp")) {
        if let Some(status) = child.0.try_wait().unwrap() {
            panic!(
                "exited ({status}) before making a temporary file: {}",
                child.stderr()
            );
        }
        assert!(
            start.elapsed() < PATIENCE,
            "no temporary file: {:?}",
            names_in(dir)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// merge, whose files appear whole or not at all, quits at the first signal and leaves no
/// file behind: here while blocked writing rows to a pipe nobody reads, its summary made
/// under a temporary name; the summary that was there stays as it was.
#[cfg(target_os = "linux")]
#[test]
fn sigint_stops_merge_leaving_no_file() {
    let dir = tempfile::tempdir().unwrap();
    for k in ["1", "2"] {
        let part = format!("{k}/2");
        let ran = Command::new(env!("CARGO_BIN_EXE_sudoku-bench"))
            .args(["run", "-s", "fast,dlx", "--shard", &part, "-q"])
            .args([
                "-o",
                &format!("p{k}.csv"),
                "--summary",
                &format!("p{k}.json"),
            ])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            ran.status.success(),
            "{}",
            String::from_utf8_lossy(&ran.stderr)
        );
    }
    std::fs::write(dir.path().join("m.json"), "old").unwrap();
    // 2,000 rows: far more than a pipe holds.
    let args = [
        "merge",
        "p1.csv",
        "p2.csv",
        "-o",
        "-",
        "--summary",
        "m.json",
        "-q",
    ];
    let mut child = Running::start_to(&args, dir.path(), Stdio::piped());
    wait_for_temporary(&mut child, dir.path());
    child.signal(libc::SIGINT);
    let status = child.exit_within(PATIENCE).expect("exits at the signal");
    let stderr = child.stderr();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(
            "merge: interrupted by SIGINT before its outputs were whole: no file made or \
             replaced"
        ),
        "{stderr}"
    );
    let left: BTreeSet<String> = ["m.json", "p1.csv", "p1.json", "p2.csv", "p2.json"]
        .map(String::from)
        .into();
    assert_eq!(names_in(dir.path()), left, "only what was there is left");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("m.json")).unwrap(),
        "old"
    );
}

/// `command` (with `args`), whose output is all or nothing, is stopped by `signal` while
/// it waits to read its input (a FIFO nobody writes), its output `out.html` under a
/// temporary name: it exits at once with 128 + the signal, and the `out.html` that was
/// there is left as it was, alone.
#[cfg(target_os = "linux")]
fn stopped_while_reading_leaves_the_old_output(command: &str, args: &[&str], signal: i32) {
    let dir = tempfile::tempdir().unwrap();
    let fifo = std::ffi::CString::new(dir.path().join("in.csv").to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0, "mkfifo");
    std::fs::write(dir.path().join("out.html"), "old").unwrap();
    let mut all = vec![command];
    all.extend(args);
    all.extend(["-o", "out.html"]);
    let mut child = Running::start(&all, dir.path());
    wait_for_temporary(&mut child, dir.path());
    child.signal(signal);
    let status = child.exit_within(PATIENCE).expect("exits at the signal");
    let stderr = child.stderr();
    assert_eq!(status.code(), Some(128 + signal), "{stderr}");
    let name = match signal {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGQUIT => "SIGQUIT",
        _ => unreachable!("a signal these tests send"),
    };
    assert!(
        stderr.contains(&format!(
            "{command}: interrupted by {name} before its outputs were whole: no file made \
             or replaced"
        )),
        "{stderr}"
    );
    let left: BTreeSet<String> = ["in.csv", "out.html"].map(String::from).into();
    assert_eq!(names_in(dir.path()), left, "only what was there is left");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.html")).unwrap(),
        "old"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn sigterm_stops_report_leaving_the_old_page() {
    stopped_while_reading_leaves_the_old_output("report", &["in.csv"], libc::SIGTERM);
}

#[cfg(target_os = "linux")]
#[test]
fn sigquit_stops_report_leaving_the_old_page() {
    stopped_while_reading_leaves_the_old_output("report", &["in.csv"], libc::SIGQUIT);
}

#[cfg(target_os = "linux")]
#[test]
fn sigint_stops_compare_leaving_the_old_page() {
    let args = ["in.csv", "in.csv", "--format", "html"];
    stopped_while_reading_leaves_the_old_output("compare", &args, libc::SIGINT);
}

/// The first SIGINT stops a command that is skipping a line longer than the loader keeps:
/// puzzles, then a terabyte of zeros with no line break (a sparse file, read in minutes).
/// The reader looks at the stop while it skips, so `run`, `filter` and `check` stop at
/// once (the stop waited until the line ended: never, on `/dev/zero`), and the chunks
/// solved before it are kept.
#[cfg(target_os = "linux")]
#[test]
fn the_first_signal_stops_a_command_skipping_an_over_long_line() {
    const PUZZLES: usize = 600;
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("long.txt");
    let file = std::fs::File::create(&corpus).unwrap();
    std::io::Write::write_all(&mut &file, format!("{EASY}\n").repeat(PUZZLES).as_bytes()).unwrap();
    file.set_len(1 << 40).unwrap();
    drop(file);
    // Chunks of 256: the first ones are solved while the reader is in the zeros.
    for (command, options) in [
        (
            "run",
            &["-s", "fast", "-o", "out.csv", "--chunk-size", "256"][..],
        ),
        ("filter", &["-o", "kept.txt", "--chunk-size", "256"][..]),
        ("check", &[][..]),
    ] {
        let args = [&[command, "long.txt", "-q"][..], options].concat();
        let mut child = Running::start(&args, dir.path());
        wait_for_handlers(&mut child);
        std::thread::sleep(INTO_SLOW);
        child.signal(libc::SIGINT);
        let status = child.exit_within(STOP_WITHIN);
        let stderr = child.stderr();
        assert_eq!(
            status.and_then(|s| s.code()),
            Some(130),
            "{command}: {stderr}"
        );
        assert!(
            stderr.contains("interrupted by SIGINT"),
            "{command}: {stderr}"
        );
    }
    let rows = crate::rows(&std::fs::read(dir.path().join("out.csv")).unwrap());
    assert!(
        !rows.is_empty() && rows.len() <= PUZZLES,
        "{} rows",
        rows.len()
    );
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["line"], (i + 1).to_string());
        assert_eq!(row["status"], "unique");
    }
    let kept = whole_lines(&dir.path().join("kept.txt"));
    assert!(
        !kept.is_empty() && kept.len() <= PUZZLES,
        "{} kept",
        kept.len()
    );
    assert!(kept.iter().all(|line| line == EASY));
}
