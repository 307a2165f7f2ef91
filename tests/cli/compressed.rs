//! Compressed corpora in and out: every format read back row for row as the plain text,
//! from files and stdin; `filter` and `generate` writing by the output's extension, whole
//! even when interrupted; a cut stream reported sanely; memory flat on a large `.zst`.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sudoku_bench::compress::Codec;

use super::{bench, rows, say_skipped, Row};

const SHIPPED: [&str; 3] = ["classic.txt", "minimal.txt", "minimal_solutions.csv"];

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets")
        .join(name)
}

/// `text` compressed by the crate's own encoder.
fn compress(codec: Codec, text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = codec.encoder(&mut out).unwrap();
    encoder.write_all(text).unwrap();
    encoder.finish().unwrap();
    drop(encoder);
    out
}

/// `compressed` decompressed by the crate's decoder.
fn decompress(codec: Codec, compressed: &[u8]) -> Vec<u8> {
    let mut text = Vec::new();
    codec
        .decoder(Box::new(compressed))
        .unwrap()
        .read_to_end(&mut text)
        .unwrap();
    text
}

/// The rows of a CSV, each without what may differ between two runs of the same puzzles
/// under another corpus name: the time and the name.
fn comparable(csv: &[u8]) -> Vec<Row> {
    rows(csv)
        .into_iter()
        .map(|mut row| {
            row.remove("time_ns");
            row.remove("replicate");
            row.remove("corpus");
            row
        })
        .collect()
}

/// `run -s fast` on `corpus` (a path, or `-` with `stdin`): the comparable rows.
fn run_fast(corpus: &str, stdin: Option<Vec<u8>>) -> Vec<Row> {
    let mut cmd = bench();
    cmd.args(["run", "-s", "fast", "-q", "-o", "-", corpus]);
    if let Some(stdin) = stdin {
        cmd.write_stdin(stdin);
    }
    comparable(&cmd.assert().success().get_output().stdout)
}

/// `filter -s fast` of `corpus` to stdout: the bytes kept.
fn filter_out(corpus: &str) -> Vec<u8> {
    bench()
        .args(["filter", "-s", "fast", "-q", "-o", "-", corpus])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone()
}

#[test]
fn every_format_reads_the_shipped_corpora_as_their_text() {
    let dir = tempfile::tempdir().unwrap();
    for name in SHIPPED {
        let plain = shipped(name);
        let text = std::fs::read(&plain).unwrap();
        let expected = run_fast(plain.to_str().unwrap(), None);
        let kept = filter_out(plain.to_str().unwrap());
        assert!(!expected.is_empty() && !kept.is_empty(), "{name}");
        for codec in Codec::ALL {
            let compressed = compress(codec, &text);
            let path = dir.path().join(format!("{name}.{}", codec.extension()));
            std::fs::write(&path, &compressed).unwrap();
            let path = path.to_str().unwrap();
            assert!(run_fast(path, None) == expected, "run {codec} {name}");
            assert!(
                run_fast("-", Some(compressed)) == expected,
                "run - {codec} {name}"
            );
            assert!(filter_out(path) == kept, "filter {codec} {name}");
        }
    }
}

#[test]
fn filter_and_generate_write_every_format_by_extension() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = shipped("minimal_solutions.csv");
    let corpus = corpus.to_str().unwrap();
    let plain = dir.path().join("out.csv");
    bench()
        .args(["filter", "-s", "fast", "-q", corpus, "-o"])
        .arg(&plain)
        .assert()
        .success();
    let plain = std::fs::read(plain).unwrap();
    let generated = bench()
        .args(["generate", "--count", "50", "-q", "-o", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    for codec in Codec::ALL {
        let out = dir.path().join(format!("out.csv.{}", codec.extension()));
        bench()
            .args(["filter", "-s", "fast", "-q", corpus, "-o"])
            .arg(&out)
            .assert()
            .success();
        let stored = std::fs::read(&out).unwrap();
        assert_eq!(Codec::detect(&stored), Some(codec));
        assert!(decompress(codec, &stored) == plain, "filter {codec}");
        // And the tool reads its own output back.
        assert!(filter_out(out.to_str().unwrap()) == plain, "{codec} again");

        let out = dir.path().join(format!("gen.txt.{}", codec.extension()));
        bench()
            .args(["generate", "--count", "50", "-q", "-o"])
            .arg(&out)
            .assert()
            .success();
        let stored = std::fs::read(&out).unwrap();
        assert_eq!(Codec::detect(&stored), Some(codec));
        assert!(decompress(codec, &stored) == generated, "generate {codec}");
    }
}

#[test]
fn filter_rejects_are_compressed_too() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = shipped("classic.txt");
    // A node budget of 1 rejects the puzzles that need a search.
    let args = ["filter", "-s", "naive", "--max-nodes", "1", "-q", "-o"];
    bench()
        .args(args)
        .arg(dir.path().join("kept.txt"))
        .arg("--rejects")
        .arg(dir.path().join("rejects.txt"))
        .arg(&corpus)
        .assert()
        .success();
    bench()
        .args(args)
        .arg(dir.path().join("kept.txt.xz"))
        .arg("--rejects")
        .arg(dir.path().join("rejects.txt.bz2"))
        .arg(&corpus)
        .assert()
        .success();
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    let rejects = read("rejects.txt");
    assert!(
        !rejects.is_empty(),
        "nothing rejected: the test proves nothing"
    );
    assert!(decompress(Codec::Bzip2, &read("rejects.txt.bz2")) == rejects);
    assert!(decompress(Codec::Xz, &read("kept.txt.xz")) == read("kept.txt"));
}

#[test]
fn shared_corpora_check_the_same_compressed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets");
    // One format per corpus, the smallest taking two, so that all four are covered.
    let plan: [(&str, &[Codec]); 3] = [
        ("puzzles2_17_clue", &[Codec::Gzip]),
        ("puzzles5_forum_hardest_1905_11+", &[Codec::Zstd]),
        ("puzzles3_magictour_top1465", &[Codec::Xz, Codec::Bzip2]),
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (name, codecs) in plan {
        let plain = dir.join(name);
        let Ok(text) = std::fs::read(&plain) else {
            say_skipped(&format!("{} is absent", plain.display()));
            continue;
        };
        let check = |path: &Path| {
            let out = bench().args(["check", "-q"]).arg(path).output().unwrap();
            let stderr = String::from_utf8(out.stderr).unwrap();
            (
                out.status.code(),
                stderr.replace(path.to_str().unwrap(), "CORPUS"),
            )
        };
        let expected = check(&plain);
        assert!(expected.1.contains("puzzle lines"), "{}", expected.1);
        for &codec in codecs {
            let path = tmp.path().join(format!("{name}.{}", codec.extension()));
            std::fs::write(&path, compress(codec, &text)).unwrap();
            assert_eq!(check(&path), expected, "{codec} {name}");
        }
    }
}

/// A `.zst` written as `zstd --long=31` writes it (long-distance matching, a 2 GiB window
/// stated in the frame, as for a stream of unknown size), made by the zstd crate: read as
/// its text from a file and stdin, in every command. A frame asking for a larger window is
/// refused with the bound said.
#[test]
fn a_zstd_corpus_with_a_2_gib_window_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let plain = shipped("minimal.txt");
    let text = std::fs::read(&plain).unwrap();
    let expected = run_fast(plain.to_str().unwrap(), None);
    let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    encoder.window_log(31).unwrap();
    encoder.long_distance_matching(true).unwrap();
    encoder.write_all(&text).unwrap();
    let compressed = encoder.finish().unwrap();
    let path = dir.path().join("long31.txt.zst");
    std::fs::write(&path, &compressed).unwrap();
    let path = path.to_str().unwrap();
    assert!(run_fast(path, None) == expected, "run");
    assert!(run_fast("-", Some(compressed)) == expected, "run -");
    assert!(
        filter_out(path) == filter_out(plain.to_str().unwrap()),
        "filter"
    );
    bench().args(["check", "-q", path]).assert().success();

    // A frame header (no content size, no checksum) whose window is 2^32 bytes.
    let huge = dir.path().join("huge.zst");
    std::fs::write(&huge, b"\x28\xb5\x2f\xfd\x00\xb0\x01\x00\x00").unwrap();
    let out = bench()
        .args(["run", "-s", "fast", "-q", "-o", "/dev/null"])
        .arg(&huge)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let said = format!(
        "{}: read error after line 0 (zstd): a zstd frame needs a window larger than 2 GiB",
        huge.display()
    );
    assert!(stderr.contains(&said), "{stderr}");
}

/// A stream cut short of its end: the lines before the cut are reported as the plain file's first
/// ones (as many as the format could decode: bzip2 and zstd decode whole blocks), then an
/// error names the file and the format, and the exit status is 2.
#[test]
fn a_cut_stream_reports_what_came_before_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    // Four copies: more than one zstd block, so that zstd has lines before the cut too.
    let text = std::fs::read(shipped("minimal.txt")).unwrap().repeat(4);
    let plain = dir.path().join("m.txt");
    std::fs::write(&plain, &text).unwrap();
    let expected = run_fast(plain.to_str().unwrap(), None);
    for codec in Codec::ALL {
        let compressed = compress(codec, &text);
        let path = dir.path().join(format!("cut.{}", codec.extension()));
        std::fs::write(&path, &compressed[..compressed.len() - 16]).unwrap();
        let out = bench()
            .args(["run", "-s", "fast", "-q", "-o", "-"])
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{codec}: {stderr}");
        let named = format!("{}: read error after line ", path.display());
        assert!(stderr.contains(&named), "{codec}: {stderr}");
        assert!(stderr.contains(&format!("({codec}")), "{codec}: {stderr}");
        let got = if out.stdout.is_empty() {
            Vec::new()
        } else {
            comparable(&out.stdout)
        };
        // xz's last 16 bytes are its index and footer: every line may come before the cut.
        assert!(got.len() <= expected.len(), "{codec}: more than the whole");
        assert!(got[..] == expected[..got.len()], "{codec}: not a prefix");
        if matches!(codec, Codec::Gzip | Codec::Xz | Codec::Zstd) {
            assert!(!got.is_empty(), "{codec}: nothing before the cut");
        }
    }
}

/// SIGINT while `generate` writes a compressed file: what it wrote is a whole stream of
/// whole lines.
#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_generate_leaves_a_whole_compressed_file() {
    use super::interrupt::Running;
    for codec in [Codec::Gzip, Codec::Zstd] {
        let dir = tempfile::tempdir().unwrap();
        let name = format!("out.txt.{}", codec.extension());
        let out = dir.path().join(&name);
        let args = ["generate", "--count", "100000000", "-o", &name, "-q"];
        let mut child = Running::start(&args, dir.path());
        // Compressed bytes appear once the compressor has a block: the run is well under way.
        let start = Instant::now();
        while std::fs::metadata(&out).map_or(0, |m| m.len()) == 0 {
            assert!(child.0.try_wait().unwrap().is_none(), "{codec}: exited");
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "{codec}: no output"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        child.signal(libc::SIGINT);
        let status = child
            .exit_within(Duration::from_secs(60))
            .expect("exits after the signal");
        assert_eq!(status.code(), Some(130), "{codec}");
        let text = decompress(codec, &std::fs::read(&out).unwrap());
        assert!(!text.is_empty() && text.ends_with(b"\n"), "{codec}");
        assert!(
            text.split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .all(|l| l.len() == 81),
            "{codec}: a cut line"
        );
    }
}

/// A 2,000,000-line `.zst` through `run -s fast`: the child's peak RSS stays under 64 MiB
/// and every puzzle is counted.
#[cfg(target_os = "linux")]
#[test]
fn memory_stays_flat_on_a_two_million_line_zst() {
    const COPIES: usize = 2000;
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("big.txt.zst");
    let minimal = std::fs::read(shipped("minimal.txt")).unwrap();
    assert_eq!(minimal.iter().filter(|&&b| b == b'\n').count(), 1000);
    {
        let file = std::io::BufWriter::new(std::fs::File::create(&corpus).unwrap());
        let mut encoder = Codec::Zstd.encoder(file).unwrap();
        // Streamed: the 2,000,000 lines never exist in memory at once.
        for _ in 0..COPIES {
            encoder.write_all(&minimal).unwrap();
        }
        encoder.finish().unwrap();
    }
    let summary = dir.path().join("s.json");
    let started = Instant::now();
    let (status, usage) = spawn_measured(&[
        OsStr::new("run"),
        OsStr::new("-s"),
        OsStr::new("fast"),
        OsStr::new("-q"),
        OsStr::new("-o"),
        OsStr::new("/dev/null"),
        OsStr::new("--summary"),
        summary.as_os_str(),
        corpus.as_os_str(),
    ]);
    let wall = started.elapsed();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "status {status}"
    );
    // Linux reports ru_maxrss in KiB.
    let rss_mib = usage.ru_maxrss as f64 / 1024.0;
    let _ = writeln!(
        std::io::stderr(),
        "2,000,000-line .zst through run -s fast: max RSS {rss_mib:.1} MiB, wall {wall:.1?}"
    );
    assert!(rss_mib < 64.0, "max RSS {rss_mib:.1} MiB");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    let row = &json["rows"][0];
    assert_eq!(row["puzzles"], 2_000_000, "{json}");
    assert_eq!(row["unique"], 2_000_000, "{json}");
}

/// Run the binary with `args` and wait for it: its wait status and resource usage.
///
/// Not spawned from this process: a process's peak RSS includes the peak of the address
/// space it exec'd from, here the test harness with its other tests' memory. A shell forks
/// it and exits at once; this process, made a subreaper, inherits it and waits for it.
#[cfg(target_os = "linux")]
fn spawn_measured(args: &[&OsStr]) -> (i32, libc::rusage) {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag of this process.
    let rc = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    assert_eq!(rc, 0, "prctl(PR_SET_CHILD_SUBREAPER)");
    let shell = Command::new("sh")
        .arg("-c")
        .arg(r#""$0" "$@" </dev/null >/dev/null & echo $!"#)
        .arg(env!("CARGO_BIN_EXE_sudoku-bench"))
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("sh runs");
    assert!(shell.status.success(), "sh: {:?}", shell.status);
    let pid: libc::pid_t = String::from_utf8(shell.stdout)
        .unwrap()
        .trim()
        .parse()
        .expect("sh prints the pid");
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for a child of this process.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `status` and `usage` are valid for writes for the call.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    (status, usage)
}

/// A stream cut (or corrupt) within its first block, where no decoder gives a line: the
/// corpus reports its read error and the run goes on with the next corpus, as a `.gz` cut
/// later does, whatever the format (a `.zst` or `.bz2` cut so stopped the whole command,
/// the next corpus not run).
#[test]
fn a_stream_cut_in_its_first_block_fails_its_corpus_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(shipped("minimal.txt")).unwrap();
    let plain = shipped("classic.txt");
    let plain_rows = run_fast(plain.to_str().unwrap(), None);
    for codec in Codec::ALL {
        let compressed = compress(codec, &text);
        let path = dir.path().join(format!("first.{}", codec.extension()));
        // Past the header, short of any whole block.
        std::fs::write(&path, &compressed[..40]).unwrap();
        let out = bench()
            .args(["run", "-s", "fast", "-q", "-o", "-"])
            .arg(&path)
            .arg(&plain)
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{codec}: {stderr}");
        let named = format!("{}: read error after line 0 ({codec})", path.display());
        assert!(stderr.contains(&named), "{codec}: {stderr}");
        assert!(comparable(&out.stdout) == plain_rows, "{codec}: {stderr}");
    }
}

/// A gzip stream whose check fails after its text (its CRC, in the member's trailer,
/// flipped): the lines decoded before are kept, and the error says they were decoded
/// unchecked and may be garbage (a corrupt stream's garbage rows were reported as the
/// file's, nothing saying so).
#[test]
fn a_stream_failing_its_check_says_the_lines_before_were_unchecked() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(shipped("minimal.txt")).unwrap();
    let mut compressed = compress(Codec::Gzip, &text);
    let crc = compressed.len() - 8;
    compressed[crc] ^= 0xff;
    let path = dir.path().join("crc.gz");
    std::fs::write(&path, &compressed).unwrap();
    let out = bench()
        .args(["run", "-s", "fast", "-q", "-o", "-"])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let lines = text.iter().filter(|&&b| b == b'\n').count();
    let said = format!(
        "{}: read error after line {lines} (gzip; the lines before it were decoded \
         unchecked: if the stream is corrupt, not only cut, their rows may be garbage, not \
         the file's lines)",
        path.display()
    );
    assert!(stderr.contains(&said), "{stderr}");
    assert_eq!(comparable(&out.stdout).len(), lines);
}
