//! Every command README.md shows runs as written on a fresh clone: its `sh` blocks and the
//! `$ ` lines of its transcripts, in order, in one scratch directory that sees the clone's
//! `datasets/`, `tests/`, `examples/` and `scripts/`, with `sudoku-bench` on the `PATH`.
//!
//! `cargo run --release -- ARGS` (and `--example NAME`) runs what this test build made,
//! through a `cargo` on the `PATH` that only knows those two forms: a real `cargo run` from a
//! test would rebuild the crate without the test build's features. A block README marks with
//! `<!-- readme-test: skip: WHY -->` on the line before it is not run (installing, the test
//! command itself, a cluster), and says so on stderr; one marked `<!-- readme-test: exit N
//! -->` must end with that status (a transcript of a failure; `exit 0,1` for a verdict that
//! depends on the machine's noise), any other with 0.

use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::say_skipped;

/// One command block of README.md.
#[derive(Debug)]
struct Block {
    /// README's line of the opening fence, for messages.
    line: usize,
    /// The shell text to run.
    script: String,
    /// Why it is not run, when README says so.
    skip: Option<String>,
    /// The exit statuses README says it may end with.
    status: Vec<i32>,
}

const MARK: &str = "<!-- readme-test:";

/// The blocks to run, in README's order. Panics on a block that looks like a command but is
/// neither an `sh` block nor a `$ ` transcript, so a new example cannot slip past this test.
fn blocks(readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let start = i;
        let end = (start + 1..lines.len())
            .find(|&j| lines[j].starts_with("```"))
            .unwrap_or_else(|| panic!("README.md:{}: a fence that never closes", start + 1));
        let body = &lines[start + 1..end];
        let mark = lines[..start]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| l.trim().strip_prefix(MARK))
            .map(|m| m.trim_end_matches("-->").trim());
        let skip = mark
            .and_then(|m| m.strip_prefix("skip:"))
            .map(|why| why.trim().to_string());
        let status: Vec<i32> = match mark.and_then(|m| m.strip_prefix("exit ")) {
            Some(list) => list
                .split(',')
                .map(|n| {
                    n.trim().parse().unwrap_or_else(|_| {
                        panic!(
                            "README.md:{start}: `{}`: not exit statuses",
                            lines[start - 1]
                        )
                    })
                })
                .collect(),
            None => vec![0],
        };
        assert!(
            mark.is_none() || skip.is_some() || status != [0],
            "README.md:{start}: a readme-test mark that is neither `skip: WHY` nor `exit N`"
        );
        let script = match info.trim() {
            "sh" => Some(body.join("\n")),
            "" if body.iter().any(|l| l.starts_with("$ ")) => Some(transcript_commands(body)),
            "" => {
                for l in body {
                    let synopsis = l.contains('[') || l.contains("...") || l.contains("CORPUS");
                    assert!(
                        !l.starts_with("sudoku-bench ") || synopsis,
                        "README.md:{}: `{l}` looks like a command: put it in an sh block (or \
                         a `$ ` transcript) so that this test runs it",
                        start + 1
                    );
                }
                None
            }
            _ => None,
        };
        if let Some(script) = script {
            found.push(Block {
                line: start + 1,
                script,
                skip,
                status,
            });
        }
        i = end + 1;
    }
    found
}

/// The commands of a transcript: its `$ ` lines and the lines that continue them.
fn transcript_commands(body: &[&str]) -> String {
    let mut commands = Vec::new();
    let mut continued = false;
    for l in body {
        if let Some(command) = l.strip_prefix("$ ") {
            commands.push(command.to_string());
        } else if continued {
            commands.push(l.to_string());
        }
        continued = (l.starts_with("$ ") || continued) && l.ends_with('\\');
    }
    commands.join("\n")
}

/// A directory laid out as the clone, with what this test build made where README says.
fn scratch(root: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for shared in ["datasets", "tests", "examples", "scripts"] {
        symlink(root.join(shared), dir.path().join(shared)).unwrap();
    }
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_sudoku-bench"));
    let release = dir.path().join("target/release");
    fs::create_dir_all(release.join("examples")).unwrap();
    symlink(&binary, release.join("sudoku-bench")).unwrap();
    let example = binary.parent().unwrap().join("examples/custom_strategy");
    symlink(&example, release.join("examples/custom_strategy")).unwrap();

    let bin = dir.path().join(".readme-bin");
    fs::create_dir(&bin).unwrap();
    symlink(&binary, bin.join("sudoku-bench")).unwrap();
    let cargo = bin.join("cargo");
    fs::write(
        &cargo,
        format!(
            "#!/bin/sh\n\
             case \"$*\" in\n\
             \"run --release --example \"*) name=$4; shift 5; exec '{}'/\"$name\" \"$@\" ;;\n\
             \"run --release --\"*) shift 3; exec sudoku-bench \"$@\" ;;\n\
             \"build --release\") exit 0 ;;\n\
             *) echo \"README test: 'cargo $*' is not one it runs\" >&2; exit 97 ;;\n\
             esac\n",
            release.join("examples").display()
        ),
    )
    .unwrap();
    fs::set_permissions(&cargo, fs::Permissions::from_mode(0o755)).unwrap();
    (dir, bin)
}

#[test]
fn every_readme_command_runs_on_a_fresh_clone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    let blocks = blocks(&readme);
    assert!(
        blocks.len() >= 20,
        "README.md: only {} blocks",
        blocks.len()
    );
    let (dir, bin) = scratch(root);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for block in &blocks {
        if let Some(why) = &block.skip {
            say_skipped(&format!("README.md:{}: not run here: {why}", block.line));
            continue;
        }
        let out = assert_cmd::Command::new("bash")
            .args(["-euo", "pipefail", "-c", &block.script])
            .current_dir(dir.path())
            .env("PATH", &path)
            .timeout(Duration::from_secs(300))
            .output()
            .unwrap();
        assert!(
            out.status.code().is_some_and(|c| block.status.contains(&c)),
            "README.md:{}: the block ended with {}, not {:?}:\n{}\n--- stderr:\n{}",
            block.line,
            out.status,
            block.status,
            block.script,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn transcripts_and_marks_are_read() {
    let readme = "text\n\
                  ```sh\nsudoku-bench run a.txt\n```\n\
                  ```\n$ sudoku-bench run b.txt \\\n    -q\noutput line\n$ ls\n```\n\
                  <!-- readme-test: skip: installs -->\n```sh\ncargo install --path .\n```\n\
                  <!-- readme-test: exit 1 -->\n```\n$ false\n```\n\
                  <!-- readme-test: exit 0,1 -->\n```sh\ntrue\n```\n\
                  ```\nsudoku-bench run [CORPUS...] [options]\n```\n\
                  ```rust\nfn main() {}\n```\n";
    let found = blocks(readme);
    let scripts: Vec<&str> = found.iter().map(|b| b.script.as_str()).collect();
    assert_eq!(
        scripts,
        [
            "sudoku-bench run a.txt",
            "sudoku-bench run b.txt \\\n    -q\nls",
            "cargo install --path .",
            "false",
            "true"
        ]
    );
    assert_eq!(found[2].skip.as_deref(), Some("installs"));
    assert_eq!(found[0].skip, None);
    let statuses: Vec<(usize, &[i32])> = found.iter().map(|b| (b.line, &b.status[..])).collect();
    assert_eq!(
        statuses,
        [
            (2, &[0][..]),
            (5, &[0]),
            (12, &[0]),
            (16, &[1]),
            (20, &[0, 1])
        ]
    );
}

#[test]
#[should_panic(expected = "looks like a command")]
fn an_unmarked_command_is_refused() {
    blocks("```\nsudoku-bench run big.txt -o run.csv\n```\n");
}
