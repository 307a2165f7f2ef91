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

/// `datasets/classic.txt` by its absolute path, for commands run in another directory.
fn classic() -> String {
    format!("{}/datasets/classic.txt", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_named_output_in_a_missing_directory_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv = run_into(d, "run");
    let csv = csv.to_str().unwrap();
    let classic = classic();
    for args in [
        vec!["run", &classic, "-s", "fast", "-q", "-o", "no/such/x.csv"],
        vec![
            "run",
            &classic,
            "-s",
            "fast",
            "-q",
            "-o",
            "/dev/null",
            "--summary",
            "no/such/s.json",
        ],
        vec!["report", csv, "-o", "no/such/r.html"],
        vec!["compare", csv, csv, "-o", "no/such/c.txt"],
        vec!["merge", csv, "-o", "no/such/all.csv"],
    ] {
        let out = bench()
            .current_dir(d)
            .args(&args)
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("directory no/such does not exist"),
            "{args:?}: {err}"
        );
        assert!(!d.join("no").exists(), "{args:?} made the directory");
    }
    // The default CSV's directory is the tool's to make: results/ appears.
    bench()
        .current_dir(d)
        .args(["run", &classic, "-s", "fast", "-q"])
        .assert()
        .success();
    assert!(d.join("results").is_dir());
}

#[test]
fn an_output_that_is_a_directory_is_refused_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv = run_into(d, "run");
    // A part without its summary: merge would refuse it, once it read it.
    let lone = d.join("lone.csv");
    std::fs::copy(&csv, &lone).unwrap();
    let (csv, lone) = (csv.to_str().unwrap(), lone.to_str().unwrap());
    std::fs::create_dir(d.join("sub")).unwrap();
    for (args, named) in [
        (vec!["merge", lone, "-o", "sub"], "-o sub is a directory"),
        (
            vec!["merge", lone, "-o", "new/"],
            "-o new/ names a directory",
        ),
        (
            vec!["merge", csv, "-o", "all.csv", "--summary", "sub"],
            "--summary sub is a directory",
        ),
        (vec!["report", csv, "-o", "sub"], "--out sub is a directory"),
        (
            vec!["compare", csv, csv, "-o", "sub/"],
            "--out sub/ is a directory",
        ),
    ] {
        let out = bench()
            .current_dir(d)
            .args(&args)
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(named), "{args:?}: {err}");
        assert!(
            !err.contains("lone.json"),
            "{args:?} read its input first: {err}"
        );
    }
    assert!(!d.join("new").exists() && !d.join("all.csv").exists());
}

/// The binary with `args` in `dir`, unable to write more than `bytes` bytes into any file
/// (RLIMIT_FSIZE: a write past it fails, as on a full disk): its output.
#[cfg(unix)]
fn with_file_size_limit(dir: &Path, args: &[&std::ffi::OsStr], bytes: u64) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-bench"));
    cmd.current_dir(dir).args(args);
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: between fork and exec only async-signal-safe calls, on values owned here.
    unsafe {
        cmd.pre_exec(move || {
            // The write then fails with EFBIG instead of the signal killing the process.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().unwrap()
}

#[cfg(unix)]
#[test]
fn a_page_that_cannot_be_written_whole_leaves_the_file_that_was_there() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv = run_into(d, "run");
    let old = d.join("old.html");
    let files = |d: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    for args in [
        vec![os("report"), csv.as_os_str(), os("-o"), old.as_os_str()],
        vec![
            os("compare"),
            csv.as_os_str(),
            csv.as_os_str(),
            os("--format"),
            os("html"),
            os("-o"),
            old.as_os_str(),
        ],
    ] {
        std::fs::write(&old, "last week's page").unwrap();
        // Far less than any page: the write fails part of the way.
        let out = with_file_size_limit(d, &args, 1024);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("old.html"), "{args:?}: {err}");
        assert_eq!(
            std::fs::read_to_string(&old).unwrap(),
            "last week's page",
            "{args:?}"
        );
        assert_eq!(
            files(d),
            ["old.html", "run.csv", "run.json"],
            "{args:?} left a file"
        );
    }
    // With room, the page replaces the old one.
    let out = with_file_size_limit(
        d,
        &[os("report"), csv.as_os_str(), os("-o"), old.as_os_str()],
        1 << 30,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read_to_string(&old)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
    assert_eq!(files(d), ["old.html", "run.csv", "run.json"]);
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

/// A child process, killed if the test ends before it exits.
#[cfg(target_os = "linux")]
struct Child(std::process::Child);

#[cfg(target_os = "linux")]
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn the_first_signal_ends_a_wait_for_a_reader_of_an_output_fifo() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    // Longest wait for anything: the machine may be busy with other builds.
    const PATIENCE: Duration = Duration::from_secs(120);
    // A stop that is heard takes a fraction of a second; a deaf one never comes.
    const STOP_WITHIN: Duration = Duration::from_secs(20);
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0, "mkfifo");
    let corpus = std::fs::canonicalize(classic()).unwrap();
    for (signal, name, code) in [
        (libc::SIGINT, "SIGINT", 130),
        (libc::SIGTERM, "SIGTERM", 143),
    ] {
        let mut child = Child(
            std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-bench"))
                .arg("run")
                .arg(&corpus)
                .args(["-s", "fast", "-q", "-o", "f"])
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let pid = child.0.id();
        // Its corpus is opened after the signal handlers are installed and before the
        // outputs: once it is open, the signal finds the handlers.
        let fds = format!("/proc/{pid}/fd");
        let start = Instant::now();
        while !std::fs::read_dir(&fds).is_ok_and(|fds| {
            fds.flatten()
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|p| p == corpus))
        }) {
            assert!(start.elapsed() < PATIENCE, "the corpus was never opened");
            std::thread::sleep(Duration::from_millis(10));
        }
        // SAFETY: kill has no memory effects; the pid is our child's, not reaped yet.
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, signal) }, 0);
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.0.try_wait().unwrap() {
                break status;
            }
            assert!(
                start.elapsed() < STOP_WITHIN,
                "{name} did not end the wait for a reader"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(child.0.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(code), "{name}: {err}");
        assert!(err.contains(name) && err.contains("--out f"), "{err}");
    }
}
