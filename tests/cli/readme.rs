//! Every command README.md, CHANGELOG.md and the pages under docs/ show runs as written on a
//! fresh clone: their `sh` blocks and the `$ ` lines of their transcripts, in each file's
//! order, in one scratch directory per file that sees the clone's `datasets/`, `tests/`,
//! `examples/` and `scripts/`, with `sudoku-bench` on the `PATH`. docs/reference.md is
//! generated from the code and holds no commands to run. Every link between these files, and
//! every `#anchor` in them, must lead somewhere.
//!
//! `cargo run --release -- ARGS` (and `--example NAME`) runs what this test build made,
//! through a `cargo` on the `PATH` that only knows those two forms: a real `cargo run` from a
//! test would rebuild the crate without the test build's features. A block a file marks with
//! `<!-- readme-test: skip: WHY -->` on the line before it is not run (installing, the test
//! command itself, a cluster, a command another file runs already), and says so on stderr;
//! one marked `<!-- readme-test: exit N -->` must end with that status (a transcript of a
//! failure; `exit 0,1` for a verdict that depends on the machine's noise), any other with 0.

use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::say_skipped;

/// One command block of a page.
#[derive(Debug)]
struct Block {
    /// The page's line of the opening fence, for messages.
    line: usize,
    /// The shell text to run.
    script: String,
    /// Why it is not run, when the page says so.
    skip: Option<String>,
    /// The exit statuses the page says it may end with.
    status: Vec<i32>,
}

const MARK: &str = "<!-- readme-test:";

/// The blocks of `page` (named `name` in messages) to run, in its order. Panics on a block
/// that looks like a command but is neither an `sh` block nor a `$ ` transcript, so a new
/// example cannot slip past this test.
fn blocks(name: &str, page: &str) -> Vec<Block> {
    let lines: Vec<&str> = page.lines().collect();
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
            .unwrap_or_else(|| panic!("{name}:{}: a fence that never closes", start + 1));
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
                        panic!("{name}:{start}: `{}`: not exit statuses", lines[start - 1])
                    })
                })
                .collect(),
            None => vec![0],
        };
        assert!(
            mark.is_none() || skip.is_some() || status != [0],
            "{name}:{start}: a readme-test mark that is neither `skip: WHY` nor `exit N`"
        );
        let script = match info.trim() {
            "sh" => Some(body.join("\n")),
            "" if body.iter().any(|l| l.starts_with("$ ")) => Some(transcript_commands(body)),
            "" => {
                for l in body {
                    let synopsis = l.contains('[') || l.contains("...") || l.contains("CORPUS");
                    assert!(
                        !l.starts_with("sudoku-bench ") || synopsis,
                        "{name}:{}: `{l}` looks like a command: put it in an sh block (or \
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

/// A directory laid out as the clone, with what this test build made where the pages say.
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

/// The generated option reference: no commands, and not this test's to read.
const REFERENCE: &str = "docs/reference.md";

/// The pages whose commands run and whose links lead somewhere, relative to the crate's root:
/// README.md, the Markdown pages under docs/ by name (but the generated reference), and
/// CHANGELOG.md.
fn pages(root: &Path) -> Vec<String> {
    let mut docs: Vec<String> = fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| format!("docs/{}", entry.unwrap().file_name().to_string_lossy()))
        .filter(|name| name.ends_with(".md") && name != REFERENCE)
        .collect();
    docs.sort();
    let mut all = vec!["README.md".to_string()];
    all.extend(docs);
    all.push("CHANGELOG.md".to_string());
    all
}

/// Runs every block of the page `name` in a scratch clone of its own.
fn run_page(name: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = fs::read_to_string(root.join(name)).unwrap();
    let blocks = blocks(name, &page);
    let (dir, bin) = scratch(root);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for block in &blocks {
        if let Some(why) = &block.skip {
            say_skipped(&format!("{name}:{}: not run here: {why}", block.line));
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
            "{name}:{}: the block ended with {}, not {:?}:\n{}\n--- stderr:\n{}",
            block.line,
            out.status,
            block.status,
            block.script,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// One test per page, so that the harness runs them side by side and a failure names its
/// page; `every_page_has_its_test` keeps this list whole.
macro_rules! page_tests {
    ($($test:ident => $page:literal,)*) => {
        $(
            #[test]
            fn $test() {
                run_page($page);
            }
        )*
        const PAGES_TESTED: &[&str] = &[$($page),*];
    };
}

page_tests! {
    readme_commands_run_on_a_fresh_clone => "README.md",
    changelog_commands_run => "CHANGELOG.md",
    docs_index_commands_run => "docs/README.md",
    docs_ci_commands_run => "docs/ci.md",
    docs_clusters_commands_run => "docs/clusters.md",
    docs_development_commands_run => "docs/development.md",
    docs_formats_commands_run => "docs/formats.md",
    docs_guide_commands_run => "docs/guide.md",
    docs_history_commands_run => "docs/history.md",
    docs_measurements_commands_run => "docs/measurements.md",
    docs_solvers_commands_run => "docs/solvers.md",
}

#[test]
fn every_page_has_its_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut tested: Vec<&str> = PAGES_TESTED.to_vec();
    tested.sort();
    let found = pages(root);
    let mut found: Vec<&str> = found.iter().map(String::as_str).collect();
    found.sort();
    assert_eq!(
        found, tested,
        "the pages under docs/ and the page_tests! list in tests/cli/readme.rs differ: give \
         each page its test"
    );
    let commands: usize = PAGES_TESTED
        .iter()
        .map(|page| blocks(page, &fs::read_to_string(root.join(page)).unwrap()).len())
        .sum();
    assert!(
        commands >= 30,
        "only {commands} command blocks in all pages"
    );
}

#[test]
fn readme_fits_a_newcomers_reading() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lines = fs::read_to_string(root.join("README.md"))
        .unwrap()
        .lines()
        .count();
    assert!(
        lines < 400,
        "README.md has {lines} lines: move detail to docs/"
    );
}

/// GitHub's anchor for a heading's text: lower case, letters, digits, `-` and `_` kept,
/// spaces made `-`, everything else dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of `page` outside fenced code blocks, with their line numbers.
fn prose(page: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut fenced = false;
    page.lines().enumerate().filter_map(move |(i, line)| {
        if line.starts_with("```") {
            fenced = !fenced;
            return None;
        }
        (!fenced).then_some((i + 1, line))
    })
}

/// The anchors of `page`'s headings; a repeated heading's are `-1`, `-2`, ... after the first.
fn anchors(page: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (_, line) in prose(page) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        let Some(text) = line.get(hashes..).and_then(|t| t.strip_prefix(' ')) else {
            continue;
        };
        if hashes == 0 || hashes > 6 {
            continue;
        }
        let base = anchor(text);
        let seen = found
            .iter()
            .filter(|a| {
                **a == base
                    || a.strip_prefix(&format!("{base}-"))
                        .is_some_and(|n| n.parse::<u32>().is_ok())
            })
            .count();
        found.push(if seen == 0 {
            base
        } else {
            format!("{base}-{seen}")
        });
    }
    found
}

/// The targets of `page`'s Markdown links (`[text](target)`), with their line numbers.
fn links(page: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in prose(page) {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                let target = &rest[..end];
                if !target.is_empty() && !target.contains(char::is_whitespace) {
                    found.push((number, target.to_string()));
                }
            }
        }
    }
    found
}

/// Where each link of `name` (a page, or any Markdown file of the crate for the unit test
/// below) fails to lead, as `name:line: target: why`.
fn broken_links(root: &Path, name: &str) -> Vec<String> {
    let page = fs::read_to_string(root.join(name)).unwrap();
    let dir = Path::new(name).parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for (line, target) in links(&page) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, fragment) = match target.split_once('#') {
            Some((path, fragment)) => (path, Some(fragment)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            PathBuf::from(name)
        } else {
            let mut joined = PathBuf::new();
            for part in dir.join(path).components() {
                match part {
                    std::path::Component::ParentDir => {
                        joined.pop();
                    }
                    std::path::Component::CurDir => {}
                    other => joined.push(other),
                }
            }
            joined
        };
        if !root.join(&file).exists() {
            // Made by another branch's generator; checked once it is here.
            if file == Path::new(REFERENCE) && fragment.is_none() {
                continue;
            }
            broken.push(format!(
                "{name}:{line}: {target}: no file {}",
                file.display()
            ));
            continue;
        }
        if let Some(fragment) = fragment {
            let text = fs::read_to_string(root.join(&file)).unwrap_or_default();
            if !anchors(&text).iter().any(|a| a == fragment) {
                broken.push(format!(
                    "{name}:{line}: {target}: no heading of {} has the anchor #{fragment}",
                    file.display()
                ));
            }
        }
    }
    broken
}

#[test]
fn every_link_between_the_pages_leads_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let broken: Vec<String> = pages(root)
        .iter()
        .flat_map(|name| broken_links(root, name))
        .collect();
    assert!(
        broken.is_empty(),
        "links that lead nowhere:\n{}",
        broken.join("\n")
    );
}

#[test]
fn anchors_and_links_are_read_as_github_reads_them() {
    let page = "# Top\n\
                ## Equivalent grids (`--permute`)\n\
                ## A shared library (C, C++, Rust `cdylib`, ...)\n\
                ## The `cmd:` line protocol\n\
                ## Notes\n## Notes\n\
                ```sh\n# not a heading\n[x](nowhere.md)\n```\n\
                See [grids](#equivalent-grids---permute) and [the guide](docs/guide.md#corpora).\n";
    assert_eq!(
        anchors(page),
        [
            "top",
            "equivalent-grids---permute",
            "a-shared-library-c-c-rust-cdylib-",
            "the-cmd-line-protocol",
            "notes",
            "notes-1"
        ]
    );
    assert_eq!(
        links(page),
        [
            (11, "#equivalent-grids---permute".to_string()),
            (11, "docs/guide.md#corpora".to_string())
        ]
    );
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("docs")).unwrap();
    fs::write(dir.path().join("docs/guide.md"), "## Corpora\n").unwrap();
    fs::write(
        dir.path().join("docs/a.md"),
        "[ok](guide.md#corpora) [up](../README.md) [gone](guide.md#grids) [none](b.md)\n",
    )
    .unwrap();
    fs::write(dir.path().join("README.md"), page).unwrap();
    assert_eq!(broken_links(dir.path(), "README.md"), Vec::<String>::new());
    assert_eq!(
        broken_links(dir.path(), "docs/a.md"),
        [
            "docs/a.md:1: guide.md#grids: no heading of docs/guide.md has the anchor #grids",
            "docs/a.md:1: b.md: no file docs/b.md"
        ]
    );
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
    let found = blocks("README.md", readme);
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
    blocks(
        "README.md",
        "```\nsudoku-bench run big.txt -o run.csv\n```\n",
    );
}
