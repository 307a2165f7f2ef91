//! What several subcommands take the same way: the corpus format option, strategy names,
//! the thread count, and opening the corpora.

use std::path::PathBuf;

use anyhow::Context;
use clap::ValueEnum;
use sudoku_bench::classify;
use sudoku_bench::corpus::{Corpus, Format};
use sudoku_bench::strategy::{self, StrategyInfo};

/// `--format text|csv`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    Text,
    Csv,
}

/// The forced corpus format, if any.
pub fn format_of(arg: Option<FormatArg>) -> Option<Format> {
    arg.map(|f| match f {
        FormatArg::Text => Format::Text,
        FormatArg::Csv => Format::Csv,
    })
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

/// The strategy named by `--strategy`, or the fastest one.
pub fn choose_strategy(name: Option<&str>) -> anyhow::Result<&'static StrategyInfo> {
    name.map_or_else(|| Ok(classify::fastest()), strategy_named)
}

/// Open every corpus before any work starts, so a typo fails at once rather than after an
/// hour; also their total size in bytes when every one is a regular file.
pub fn open_corpora(
    paths: &[PathBuf],
    format: Option<Format>,
) -> anyhow::Result<(Vec<Corpus>, Option<u64>)> {
    let corpora = paths
        .iter()
        .map(|path| Corpus::open(path, format))
        .collect::<Result<Vec<_>, _>>()?;
    let total_bytes = corpora.iter().map(|c| c.size()).sum::<Option<u64>>();
    Ok((corpora, total_bytes))
}

/// Threads per core above which `--threads` is refused: more only add memory (a stack and
/// buffers each) and switching, never speed, and a typo like 100000 would take minutes to
/// start and hundreds of MB.
const THREADS_PER_CORE: usize = 16;

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
