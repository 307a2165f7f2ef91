//! What several subcommands take the same way: the corpus format option, strategy names,
//! opening the corpora, and opening an output (`-` for stdout).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

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
        let known: Vec<_> = strategy::STRATEGIES.iter().map(|s| s.name).collect();
        format!("unknown strategy {name:?}; known: {}", known.join(", "))
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

/// A buffered writer on `path` (its directory created if needed), or stdout for `-`.
pub fn open_out(path: &Path) -> anyhow::Result<Box<dyn Write + Send>> {
    Ok(Box::new(BufWriter::with_capacity(
        1 << 16,
        create_out(path)?,
    )))
}

/// Like `open_out`, unbuffered, for a writer that only ever writes big buffers: a buffer
/// would only copy every byte once more.
pub fn create_out(path: &Path) -> anyhow::Result<Box<dyn Write + Send>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(io::stdout()));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create directory {}", dir.display()))?;
    }
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(Box::new(file))
}
