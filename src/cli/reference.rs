//! `sudoku-bench reference`: the command-line reference, man pages and shell completions,
//! all made from the clap definitions, so that an option's text is written once, where the
//! option is defined.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::{Command, CommandFactory};

use super::exit::Exit;
use super::Cli;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, clap::Subcommand)]
enum What {
    /// Print the command-line reference, every subcommand and option, as Markdown (the
    /// repository keeps it as docs/reference.md: `sudoku-bench reference markdown >
    /// docs/reference.md`).
    Markdown,
    /// Write a man page for every subcommand into DIR: sudoku-bench.1, sudoku-bench-run.1,
    /// sudoku-bench-history-add.1, ... (read one with `man DIR/sudoku-bench-run.1`, or put
    /// them in a directory of MANPATH, e.g. ~/.local/share/man/man1).
    Man {
        /// An existing directory; pages already there are replaced.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Print the completion script for SHELL: for bash, `source <(sudoku-bench reference
    /// completions bash)` in ~/.bashrc; for zsh, save it as `_sudoku-bench` in a directory
    /// of $fpath; for fish, as ~/.config/fish/completions/sudoku-bench.fish.
    Completions {
        /// The shell the script is for.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    match args.what {
        What::Markdown => print(markdown().as_bytes())?,
        What::Man { dir } => man_pages(&dir)?,
        What::Completions { shell } => print(&completions(shell))?,
    }
    Ok(Exit::Success)
}

fn print(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .context("cannot write to stdout")
}

/// The Markdown reference: every subcommand with its usage, what it does, and each argument
/// with its value name, default, possible values and help.
fn markdown() -> String {
    let options = clap_markdown::MarkdownOptions::new()
        .title("sudoku-bench command-line reference".to_string())
        .show_footer(false);
    let body =
        clap_markdown::help_markdown_command_custom(&in_help_order(Cli::command()), &options);
    // A comment, unseen on a rendered page, for whoever opens the file to edit it. The blank
    // lines clap-markdown leaves at the end go: an editor that trims them on saving would
    // make the file differ from the command's output.
    format!(
        "<!-- Made by `sudoku-bench reference markdown` from the options' definitions in \
         src/cli/: edit those and run it again (a test compares this file with its output). -->\n\
         {}\n",
        body.trim_end()
    )
}

/// `cmd` with its arguments, and its subcommands', in the order `--help` shows them.
/// clap-markdown lists arguments in the order they were added, and `Command::mut_arg` (with
/// which each subcommand gives `--solver` its own help) adds its argument again at the end.
fn in_help_order(mut cmd: Command) -> Command {
    let mut ids: Vec<_> = cmd
        .get_arguments()
        .map(|arg| (arg.get_display_order(), arg.get_id().clone()))
        .collect();
    // Stable: positional arguments, which have no display order, keep theirs among themselves.
    ids.sort_by_key(|(order, _)| *order);
    for (_, id) in ids {
        cmd = cmd.mut_arg(id, |arg| arg);
    }
    cmd.mut_subcommands(in_help_order)
}

/// Write a man page for the command and each subcommand into `dir`.
fn man_pages(dir: &Path) -> anyhow::Result<()> {
    // Directories are not made, as for every other output: a mistyped one is said.
    if dir.exists() && !dir.is_dir() {
        bail!("{}: not a directory", dir.display());
    }
    if !dir.is_dir() {
        bail!(
            "{}: no such directory (directories are not made)",
            dir.display()
        );
    }
    clap_mangen::generate_to(Cli::command(), dir)
        .with_context(|| format!("cannot write the man pages into {}", dir.display()))
}

/// The completion script for `shell`.
fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), BIN, &mut script);
    if shell == clap_complete::Shell::Bash {
        script = bash_hyphen_fix(&script);
    }
    script
}

/// The binary's name, as the shells are to complete it.
const BIN: &str = "sudoku-bench";

/// clap_complete's bash script (4.6.11) names the state a subcommand leaves it in, say
/// `run`, `sudoku__bench__subcmd__run`, but labels the branch that completes `run`'s options
/// `sudoku__subcmd__bench__subcmd__run`: with a `-` in the binary's name nothing after a
/// subcommand completes (clap-rs/clap#6421, still open). The labels are spelled as the
/// states are; once clap_complete does so itself, this finds nothing to change.
fn bash_hyphen_fix(script: &[u8]) -> Vec<u8> {
    let wrong = BIN.replace('-', "__subcmd__");
    let right = BIN.replace('-', "__");
    String::from_utf8_lossy(script)
        .replace(&wrong, &right)
        .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command a user can type, as its words after `sudoku-bench` (the top level: none),
    /// with what clap shows of it.
    fn visible_commands() -> Vec<(Vec<String>, Command)> {
        fn walk(path: Vec<String>, cmd: Command, all: &mut Vec<(Vec<String>, Command)>) {
            for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
                let mut words = path.clone();
                words.push(sub.get_name().to_string());
                walk(words, sub.clone(), all);
            }
            all.push((path, cmd));
        }
        let mut all = Vec::new();
        walk(Vec::new(), Cli::command(), &mut all);
        all
    }

    /// The long names of the options `cmd` shows, without `--`.
    fn long_options(cmd: &Command) -> Vec<String> {
        cmd.get_arguments()
            .filter(|arg| !arg.is_hide_set())
            .filter_map(|arg| arg.get_long())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn the_definitions_pass_clap_s_own_checks() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_command_has_a_man_page_with_every_option() {
        let dir = tempfile::tempdir().unwrap();
        man_pages(dir.path()).unwrap();
        let mut written: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        written.sort();
        let mut expected = Vec::new();
        for (path, cmd) in visible_commands() {
            let name = std::iter::once(BIN.to_string())
                .chain(path)
                .collect::<Vec<_>>();
            let page = format!("{}.1", name.join("-"));
            let text = std::fs::read_to_string(dir.path().join(&page))
                .unwrap_or_else(|e| panic!("{page}: {e}"));
            assert!(text.contains("\n.TH "), "{page} is not a man page");
            // What follows the heading: the synopsis names every option too.
            let options = text.split_once(".SH OPTIONS").map_or("", |(_, rest)| rest);
            for long in long_options(&cmd) {
                // roff spells `-` as `\-`.
                let roff = format!("\\fB\\-\\-{}\\fR", long.replace('-', "\\-"));
                assert!(options.contains(&roff), "{page} does not describe --{long}");
            }
            expected.push(page);
        }
        expected.sort();
        assert_eq!(written, expected);
    }

    #[test]
    fn every_shell_s_script_names_every_command_and_option() {
        use clap::ValueEnum;
        for shell in clap_complete::Shell::value_variants() {
            let script = String::from_utf8(completions(*shell)).unwrap();
            for (path, cmd) in visible_commands() {
                if let Some(name) = path.last() {
                    assert!(script.contains(name.as_str()), "{shell}: no {name}");
                }
                for long in long_options(&cmd) {
                    // fish says `-l NAME`, the others `--NAME`.
                    assert!(
                        script.contains(&format!("--{long}"))
                            || script.contains(&format!("-l {long} ")),
                        "{shell}: no --{long} of {}",
                        path.join(" ")
                    );
                }
            }
        }
    }

    /// What bash offers for the words `line` (the last one being completed), with the script
    /// loaded as a user's shell loads it.
    #[cfg(unix)]
    fn bash_offers(script: &std::path::Path, lines: &[Vec<String>]) -> Vec<Vec<String>> {
        let mut program = format!("source '{}'\n", script.display());
        for words in lines {
            let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
            let cword = words.len() - 1;
            let prev = &quoted[cword - 1];
            program += &format!(
                "COMP_WORDS=({words}); COMP_CWORD={cword}; COMPREPLY=()\n\
                 _sudoku__bench {BIN} {cur} {prev}\n\
                 echo \"${{COMPREPLY[*]}}\"\n",
                words = quoted.join(" "),
                cur = quoted[cword],
            );
        }
        let out = std::process::Command::new("bash")
            .args(["--norc", "--noprofile", "-c", &program])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|line| line.split_whitespace().map(str::to_string).collect())
            .collect()
    }

    /// Tab after `sudoku-bench SUBCOMMAND... --` offers that subcommand's options, and after a
    /// command that has subcommands, those: for every command, in bash itself.
    #[cfg(unix)]
    #[test]
    fn bash_completes_every_command_s_options_and_subcommands() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("sudoku-bench.bash");
        std::fs::write(&script, completions(clap_complete::Shell::Bash)).unwrap();
        let commands = visible_commands();
        let mut lines = Vec::new();
        for (path, _) in &commands {
            let words = std::iter::once(BIN.to_string()).chain(path.iter().cloned());
            lines.push(words.clone().chain(["--".to_string()]).collect::<Vec<_>>());
            lines.push(words.chain([String::new()]).collect::<Vec<_>>());
        }
        let offers = bash_offers(&script, &lines);
        for ((path, cmd), offered) in commands.iter().zip(offers.chunks(2)) {
            let typed = path.join(" ");
            for long in long_options(cmd) {
                let option = format!("--{long}");
                assert!(
                    offered[0].contains(&option),
                    "`sudoku-bench {typed} --<TAB>` does not offer {option}: {:?}",
                    offered[0]
                );
            }
            for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
                let name = sub.get_name().to_string();
                assert!(
                    offered[1].contains(&name),
                    "`sudoku-bench {typed} <TAB>` does not offer {name}: {:?}",
                    offered[1]
                );
            }
        }
    }

    /// A help text's `<word>` outside backticks would be taken for an HTML tag on GitHub and
    /// hidden: the reference must say it in backticks.
    #[test]
    fn the_markdown_hides_no_text_as_html() {
        let reference = markdown();
        // The first line is the comment for whoever edits the file.
        for (number, line) in reference.lines().enumerate().skip(1) {
            let outside_code: String = line.split('`').step_by(2).collect();
            let tag = outside_code.match_indices('<').any(|(at, _)| {
                outside_code[at + 1..]
                    .starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!')
            });
            assert!(
                !tag,
                "line {} of the reference has a `<` outside backticks, which GitHub takes \
                 for HTML: put it in backticks in its help text: {line}",
                number + 1
            );
        }
    }
}
