//! What several subcommands take the same way: the corpus format option, strategy names,
//! the thread count, and opening the corpora.
//!
//! Option names agree across subcommands: `-s/--strategies` names the strategies (one, for
//! the commands that solve with one), `--input-format` the corpus format, and `--format`
//! is only ever an output format.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::ValueEnum;
use sudoku_bench::classify;
use sudoku_bench::corpus::{Corpus, Format, ReadAs, Shard};
use sudoku_bench::strategy::{self, StrategyInfo};

/// A corpus format.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    Text,
    Csv,
    Grid,
}

/// `--input-format text|csv|grid` and the CSV columns' names, for the commands that read
/// corpora.
#[derive(Debug, clap::Args)]
pub struct InputFormat {
    /// Force the corpus format instead of detecting it from the first line.
    #[arg(long = "input-format", value_enum, value_name = "FORMAT")]
    forced: Option<FormatArg>,

    /// The puzzle column of a CSV corpus (any case), when it is not one of the names known
    /// (quizzes, puzzle, puzzles, quiz, sudoku): the corpus is read as CSV.
    #[arg(long = "column", value_name = "NAME")]
    puzzle_column: Option<String>,

    /// The solution column of a CSV corpus (any case), when it is not one of the names
    /// known (solutions, solution): the corpus is read as CSV.
    #[arg(long = "solution-column", value_name = "NAME")]
    solution_column: Option<String>,

    /// The option's old name, refused with its new one: `--format` is an output format.
    #[arg(long = "format", hide = true, value_name = "FORMAT", value_parser = renamed_format)]
    renamed: Option<String>,
}

impl InputFormat {
    /// The first of these options given, by its name; `None` when none is.
    pub fn first_given(&self) -> Option<&'static str> {
        [
            ("--input-format", self.forced.is_some()),
            ("--column", self.puzzle_column.is_some()),
            ("--solution-column", self.solution_column.is_some()),
        ]
        .into_iter()
        .find_map(|(option, given)| given.then_some(option))
    }

    /// How to read the corpora; refused when the options contradict each other.
    pub fn read_as(&self) -> anyhow::Result<ReadAs> {
        let format = self.forced.map(|f| match f {
            FormatArg::Text => Format::Text,
            FormatArg::Csv => Format::Csv,
            FormatArg::Grid => Format::Grid,
        });
        let named = [
            ("--column", &self.puzzle_column),
            ("--solution-column", &self.solution_column),
        ];
        if let (Some(forced), Some((option, _))) = (
            self.forced.filter(|f| !matches!(f, FormatArg::Csv)),
            named.iter().find(|(_, name)| name.is_some()),
        ) {
            let forced = forced.to_possible_value().map(|v| v.get_name().to_string());
            bail!(
                "{option} names a CSV column: not with --input-format {}",
                forced.unwrap_or_default()
            );
        }
        Ok(ReadAs {
            format,
            puzzle_column: self.puzzle_column.clone(),
            solution_column: self.solution_column.clone(),
        })
    }
}

fn renamed_format(s: &str) -> Result<String, String> {
    Err(format!(
        "the corpus format is `--input-format {s}` (`--format` names an output format)"
    ))
}

/// The strategy registered as `name`, or an error listing the known ones.
pub fn strategy_named(name: &str) -> anyhow::Result<&'static StrategyInfo> {
    let name = name.trim();
    strategy::by_name(name).with_context(|| {
        let known: Vec<_> = strategy::STRATEGIES
            .iter()
            .map(|s| s.name.as_ref())
            .collect();
        format!(
            "unknown strategy {name:?}; known: {} (a --solver runs without being named in -s)",
            known.join(", ")
        )
    })
}

/// The strategy named by `--strategies`, or the fastest one.
pub fn choose_strategy(name: Option<&str>) -> anyhow::Result<&'static StrategyInfo> {
    name.map_or_else(|| Ok(classify::fastest()), strategy_named)
}

/// `-s/--strategies NAME` of a command that solves with one strategy: the same option as
/// `run`'s, refusing a list (or `all`) at once, with why, rather than as an unknown name.
pub fn parse_one_strategy(s: &str) -> Result<String, String> {
    let names: Vec<&str> = s
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    match names[..] {
        [] => Err("no strategy named".into()),
        ["all"] => Err("this command solves with one strategy: name one, not all".into()),
        ["none"] => Err(
            "this command solves with one solver: name a built-in strategy, or give a \
             --solver (without -s) to solve with it"
                .into(),
        ),
        [one] => Ok(one.to_string()),
        _ => Err(format!(
            "this command solves with one strategy: name one, not {} ({})",
            names.len(),
            names.join(", ")
        )),
    }
}

/// Open every corpus before any work starts, so a typo fails at once rather than after an
/// hour; also their total size in bytes when every one is a regular file. With `shard`,
/// part K of N of each, and (unless `quiet`) a note on stderr of how each was split.
pub fn open_corpora(
    paths: &[PathBuf],
    read_as: &ReadAs,
    shard: Option<Shard>,
    quiet: bool,
) -> anyhow::Result<(Vec<Corpus>, Option<u64>)> {
    let corpora = paths
        .iter()
        .map(|path| Corpus::open_part(path, read_as.clone(), shard.unwrap_or(Shard::WHOLE)))
        .collect::<Result<Vec<_>, _>>()?;
    for corpus in corpora.iter().filter(|_| !quiet) {
        if let Some(part) = corpus.part() {
            stderr_line!("corpus {}: {part}", corpus.name());
        }
    }
    let total_bytes = corpora.iter().map(|c| c.size()).sum::<Option<u64>>();
    Ok((corpora, total_bytes))
}

/// Threads per core above which `--threads` is refused: more only add memory (a stack and
/// buffers each) and switching, never speed, and a typo like 100000 would take minutes to
/// start and hundreds of MB.
const THREADS_PER_CORE: usize = 16;

/// `--timeout DURATION`: `0`, or what humantime reads (500ms, 10s, 2m), at most what the
/// summary's 64-bit nanoseconds hold.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    if s.trim() == "0" {
        return Ok(Duration::ZERO);
    }
    let timeout =
        humantime::parse_duration(s).map_err(|e| format!("{e} (try 500ms, 10s or 2m)"))?;
    // The summary records it in u64 nanoseconds: a longer one would wrap there.
    if u64::try_from(timeout.as_nanos()).is_err() {
        return Err(format!(
            "{s} is longer than the longest timeout, about 584 years (2^64 - 1 nanoseconds)"
        ));
    }
    Ok(timeout)
}

/// `--timeout` of the commands that classify with one solver (`filter`, `check`): no
/// default, so that what they keep or judge depends on the machine's speed only when asked.
#[derive(Debug, clap::Args)]
pub struct SearchTimeout {
    /// Time budget per search (e.g. 500ms, 10s); a search that runs out is `aborted`.
    /// Default and 0: none, so that the result does not depend on the machine's speed. A
    /// --solver cmd: copy or lib: worker process past it is killed and started again: what
    /// ends a solver that hangs (nothing interrupts one called --in-process).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    timeout: Option<Duration>,
}

impl SearchTimeout {
    /// The budget, `None` when none was given or 0 was.
    pub fn get(&self) -> Option<Duration> {
        self.timeout.filter(|t| !t.is_zero())
    }
}

/// `--threads N`: 0 (one per core) up to `THREADS_PER_CORE` per core.
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a thread count"))?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bound = THREADS_PER_CORE * cores;
    if n > bound {
        return Err(format!(
            "{n} is more than {THREADS_PER_CORE} threads for each of the {cores} cores here \
             ({bound}): more threads than that only add memory and switching, not speed"
        ));
    }
    Ok(n)
}

/// `A,B`: two different strategies (`--scatter`, `--between`); a strategy against itself
/// says nothing, so it is refused here rather than drawn or compared.
pub fn parse_pair(s: &str) -> Result<(String, String), String> {
    match s.split_once(',') {
        Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => {
            let (a, b) = (a.trim(), b.trim());
            if a == b {
                return Err(format!(
                    "{s:?} names {a} twice: give two different strategies (try fast,dlx)"
                ));
            }
            Ok((a.to_string(), b.to_string()))
        }
        _ => Err(format!("{s:?} is not two strategies A,B (try fast,dlx)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_is_two_different_names() {
        assert_eq!(parse_pair(" fast , dlx"), Ok(("fast".into(), "dlx".into())));
        for bad in ["fast", "fast,", ",dlx", "fast,fast", "fast, fast "] {
            assert!(parse_pair(bad).is_err(), "{bad} was taken");
        }
        assert!(parse_pair("fast,fast").unwrap_err().contains("twice"));
    }
}
