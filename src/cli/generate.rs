//! `sudoku-bench generate`: writes a corpus of random uniquely-solvable puzzles (minimal by
//! default; or, made from them, puzzles with several solutions or with none), made in
//! parallel and written in index order, so that a seed names the same bytes on any thread
//! count; reports puzzles per second on stderr.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::ValueEnum;
use rayon::prelude::*;
use sudoku_bench::corpus::Shard;
use sudoku_bench::engine::Engine;
use sudoku_bench::generate::{
    self, GenerateError, GenerateSettings, Generated, Solutions, Symmetry,
};
use sudoku_bench::strategy::Limits;

use super::args::{choose_strategy, parse_one_strategy, parse_threads};
use super::exit::Exit;
use super::outputs::{self, Output};
use super::progress::Progress;
use super::signals;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SymmetryArg {
    None,
    Rot180,
    Rot90,
    Mirror,
    Diagonal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SolutionsArg {
    /// Exactly one (minimal puzzles unless --clues stops the removal).
    One,
    /// Two or more: a unique puzzle with --extra-blanks more givens blanked.
    Many,
    /// None, with givens that break no rule: one given of a unique puzzle changed.
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutFormat {
    /// One puzzle per line, `.` for blanks.
    Text,
    /// Kaggle layout: `quizzes,solutions` header, `0` for blanks.
    Csv,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Puzzles to generate.
    #[arg(long, short = 'n')]
    count: u64,

    /// Seed: the same seed and options give the same bytes on any machine and thread count.
    #[arg(long, default_value_t = 0)]
    seed: u64,

    /// Clue range MIN..MAX (e.g. 22..26): stop removing clues at MIN, retry above MAX.
    /// Default: minimal puzzles (no clue can be removed), whatever their count.
    #[arg(long, value_parser = parse_clues)]
    clues: Option<(usize, usize)>,

    /// Keep the givens symmetric: cells are removed together with their images.
    #[arg(long, value_enum, default_value = "none")]
    symmetry: SymmetryArg,

    /// How many solutions each puzzle has: the classes a uniqueness filter meets.
    #[arg(long, value_enum, default_value = "one")]
    solutions: SolutionsArg,

    /// Givens (or symmetric groups) blanked beyond the unique puzzle's: with --solutions
    /// many at least 1, and more while it still has one solution (default 3); with none,
    /// blanked before a given is changed (default 0).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=64))]
    extra_blanks: Option<u8>,

    /// The output's format.
    #[arg(long, value_enum, default_value = "text")]
    format: OutFormat,

    /// Output file (`-` for stdout).
    #[arg(long, short = 'o', default_value = "-")]
    out: PathBuf,

    /// Strategy for the uniqueness checks (changes the speed, never the output); default:
    /// the fastest registered.
    #[arg(long = "strategies", short = 's', value_name = "NAME", value_parser = parse_one_strategy)]
    strategy: Option<String>,

    /// Worker threads (0: one per core; at most 16 per core).
    #[arg(long, short = 'j', default_value_t = 0, value_parser = parse_threads)]
    threads: usize,

    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,

    // With --shard K/N: only part K of the --count puzzles, by index, so that the N parts'
    // outputs concatenated are the whole output byte for byte (a CSV's header is part 1's).
    #[command(flatten)]
    shard: super::shard::ShardArg,
}

fn parse_clues(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("{s:?} is not a clue range MIN..MAX with 17 <= MIN <= MAX <= 81");
    let (min, max) = s.split_once("..").ok_or_else(bad)?;
    let min: usize = min.trim().parse().map_err(|_| bad())?;
    let max: usize = max
        .trim()
        .trim_start_matches('=')
        .parse()
        .map_err(|_| bad())?;
    // No uniquely solvable puzzle has fewer than 17 clues.
    if !(17..=81).contains(&min) || !(min..=81).contains(&max) {
        return Err(bad());
    }
    Ok((min, max))
}

/// Puzzles made per parallel batch: enough to keep every core busy, few enough that the
/// progress bar moves.
const BATCH: u64 = 256;

pub fn run(args: Args) -> anyhow::Result<Exit> {
    let info = choose_strategy(args.strategy.as_deref())?;
    let (min_clues, max_clues) = args.clues.unwrap_or((0, 81));
    let settings = GenerateSettings {
        seed: args.seed,
        symmetry: match args.symmetry {
            SymmetryArg::None => Symmetry::None,
            SymmetryArg::Rot180 => Symmetry::Rot180,
            SymmetryArg::Rot90 => Symmetry::Rot90,
            SymmetryArg::Mirror => Symmetry::Mirror,
            SymmetryArg::Diagonal => Symmetry::Diagonal,
        },
        min_clues,
        max_clues,
        solutions: match args.solutions {
            SolutionsArg::One => Solutions::One,
            SolutionsArg::Many => Solutions::Many {
                extra_blanks: args.extra_blanks.unwrap_or(3).into(),
            },
            SolutionsArg::None => Solutions::None {
                extra_blanks: args.extra_blanks.unwrap_or(0).into(),
            },
        },
        ..GenerateSettings::default()
    };
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    if args.format == OutFormat::Csv && args.solutions != SolutionsArg::One {
        bail!(
            "--format csv writes each puzzle's one solution: use --format text with \
             --solutions many or none"
        );
    }
    if args.extra_blanks.is_some() && args.solutions == SolutionsArg::One {
        bail!("--extra-blanks goes with --solutions many or none");
    }
    // Generation sets its own limits for each uniqueness check.
    let engine = Engine::new(
        vec![info.clone()],
        Limits::default(),
        args.threads,
        "generate",
    )?;
    let pool = engine.pool();
    let shard = args.shard.resolve()?.unwrap_or(Shard::WHOLE);
    // Indices [first, last) of the whole output's.
    let (first, last) = shard.byte_range(args.count);
    if shard != Shard::WHOLE && !args.quiet {
        eprintln!(
            "generate: part {shard}: puzzles {first}..{last} of {}",
            args.count
        );
    }

    // Before any file is made: a signal from here on ends the command its own way.
    let stop = signals::install()?;
    let mut opened = outputs::check(&[], vec![Output::named("--out", &args.out)])?.create()?;
    let file = opened.pop().context("no output was opened")?;
    let path = file.path.display().to_string();
    let mut out = file.corpus()?;
    if args.format == OutFormat::Csv && first == 0 {
        out.write_all(b"quizzes,solutions\n")
            .with_context(|| format!("cannot write {path}"))?;
    }
    let started = Instant::now();
    let mut progress = Progress::new(Some(last - first), args.quiet);
    // `None`: not made, because a stop was requested first.
    let mut batch: Vec<Option<Result<Generated, GenerateError>>> = Vec::new();
    let mut line = Vec::with_capacity(200);
    let mut start = first;
    while start < last && !stop.requested() {
        let end = (start + BATCH).min(last);
        pool.install(|| {
            // u64 ranges are not indexed in rayon; a batch is far below usize::MAX.
            (0..(end - start) as usize)
                .into_par_iter()
                .map(|offset| {
                    if stop.requested() {
                        return None;
                    }
                    let index = start + offset as u64;
                    Some(
                        engine
                            .with_solver(0, |solver| generate::generate(&settings, index, solver)),
                    )
                })
                .collect_into_vec(&mut batch)
        });
        // Written in index order up to the first puzzle not made: a prefix, no gap.
        let mut made = 0;
        for generated in batch.drain(..).map_while(|g| g) {
            made += 1;
            let Generated { puzzle, solution } = generated?;
            line.clear();
            match args.format {
                OutFormat::Text => line.extend_from_slice(puzzle.to_dotted().as_bytes()),
                OutFormat::Csv => {
                    line.extend(puzzle.cells().iter().map(|&d| b'0' + d));
                    line.push(b',');
                    line.extend(solution.cells().iter().map(|&d| b'0' + d));
                }
            }
            line.push(b'\n');
            out.write_all(&line)
                .with_context(|| format!("cannot write {path}"))?;
        }
        progress.advance(made, start - first + made);
        start += made;
    }
    out.finish()?;
    progress.finish();
    let secs = started.elapsed().as_secs_f64();
    let made = start - first;
    eprintln!(
        "generate: {made} puzzles in {secs:.2} s: {:.0} puzzles/s ({} threads, uniqueness by {})",
        made as f64 / secs.max(1e-9),
        pool.current_num_threads(),
        info.name
    );
    if let Some(signal) = stop.cause() {
        eprintln!(
            "generate: interrupted by {}: the first {made} puzzles written, the other {} of {} \
             not made",
            signals::name(signal),
            last - start,
            last - first
        );
        return Ok(Exit::Stopped(signal));
    }
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests {
    use super::parse_clues;

    #[test]
    fn clue_ranges_parse_and_nonsense_is_refused() {
        assert_eq!(parse_clues("22..26"), Ok((22, 26)));
        assert_eq!(parse_clues("22..=26"), Ok((22, 26)));
        for bad in ["", "22", "26..22", "5..30", "22..90", "a..b"] {
            assert!(parse_clues(bad).is_err(), "{bad}");
        }
    }
}
