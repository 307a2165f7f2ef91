//! `sudoku-bench generate`: writes a corpus of random uniquely-solvable puzzles (minimal by
//! default, or with a number of cells kept at random; or, made from them, puzzles with
//! several solutions or with none), made in parallel and written in index order, so that
//! a seed names the same bytes on any thread count; reports puzzles per second on stderr.
//!
//! [`Plan::new`] checks the arguments once; `run` then builds the engine, creates the
//! output, [`Plan::generate`]s this part's puzzles into it and [`Plan::tell`]s the rate.
//!
//! With `--solver`, that solver makes the uniqueness checks, and the built-in reference
//! makes each one too: the first count they disagree on stops generation (what a wrong
//! count made cannot be trusted), with the puzzles of the batches before it written and
//! exit 1.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::ValueEnum;
use rayon::prelude::*;
use sudoku_bench::classify;
use sudoku_bench::corpus::Shard;
use sudoku_bench::engine::Engine;
use sudoku_bench::generate::{
    self, GenerateError, GenerateSettings, Generated, Method, Solutions, Symmetry,
};
use sudoku_bench::interrupt::Stop;
use sudoku_bench::strategy::Limits;

use super::args::{parse_one_strategy, parse_threads};
use super::exit::Exit;
use super::outputs::{self, CheckedOutputs, CorpusWriter, Output};
use super::progress::Progress;
use super::signals;
use super::solvers::{OneSolver, SolverArgs};

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
    /// Two or more: a unique puzzle with --extra-blanks more givens blanked (with --method
    /// keep: the kept cells as they are).
    Many,
    /// None, with givens that break no rule: one given of a unique puzzle changed, or added
    /// (--by).
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Clues removed in random order while one solution is left (minimal puzzles unless
    /// --clues stops the removal).
    Remove,
    /// A count of cells drawn from --clues kept at random, the puzzle made again unless its
    /// solution count is --solutions' (one, or 2+ with many): puzzles with many clues.
    Keep,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ByArg {
    /// One given of a unique puzzle changed to a digit its row, column and box lack.
    Change,
    /// One given added to a unique puzzle with one clue less than --clues asks for: a digit
    /// its row, column and box lack, not the solution's.
    Add,
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
    #[arg(long, short = 'n', value_name = "N")]
    count: u64,

    /// Seed: the same seed and options give the same bytes on any machine and thread count.
    #[arg(long, default_value_t = 0)]
    seed: u64,

    /// Clue range MIN..MAX (e.g. 22..26). --method remove: stop removing clues at MIN,
    /// retry above MAX (default: minimal puzzles, whatever their count); keep: keep MIN to
    /// MAX cells (required). With --by add, the count once the given is added.
    #[arg(long, value_name = "MIN..MAX", value_parser = parse_clues)]
    clues: Option<(usize, usize)>,

    /// Keep the givens symmetric: cells are removed (or kept) together with their images.
    #[arg(long, value_enum, default_value = "none")]
    symmetry: SymmetryArg,

    /// How the clues of a random complete grid are chosen.
    #[arg(long, value_enum, default_value = "remove")]
    method: MethodArg,

    /// How many solutions each puzzle has: the classes a uniqueness filter meets.
    #[arg(long, value_enum, default_value = "one")]
    solutions: SolutionsArg,

    /// With --solutions none: how the puzzle loses its solution, its givens breaking no
    /// rule (default change).
    #[arg(long, value_enum)]
    by: Option<ByArg>,

    /// Givens (or symmetric groups) blanked beyond the unique puzzle's: with --solutions
    /// many at least 1, and more while it still has one solution (default 3); with none,
    /// blanked before a given is changed (default 0).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=64))]
    extra_blanks: Option<u8>,

    /// The output's format.
    #[arg(long, value_enum, default_value = "text")]
    format: OutFormat,

    /// Output file (`-` for stdout).
    #[arg(long, short = 'o', value_name = "PATH", default_value = "-")]
    out: PathBuf,

    /// Built-in strategy for the uniqueness checks (changes the speed, never the output);
    /// default: the fastest registered. Not with --solver, which makes them instead.
    #[arg(long = "strategies", short = 's', value_name = "NAME", value_parser = parse_one_strategy)]
    strategy: Option<String>,

    #[command(flatten)]
    solvers: SolverArgs,

    /// Worker threads (0: one per core; at most 16 per core).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0, value_parser = parse_threads)]
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

/// `generate`'s arguments, checked once: what each puzzle is made as, which of them this
/// part makes, and where they are written (checked, not yet made).
struct Plan {
    /// The solver of the uniqueness checks.
    solver: OneSolver,
    settings: GenerateSettings,
    format: OutFormat,
    /// --out.
    file: CheckedOutputs,
    /// The whole output's puzzles, and this part of them.
    count: u64,
    shard: Shard,
    /// Indices [first, last) of the whole output's.
    first: u64,
    last: u64,
    threads: usize,
    quiet: bool,
}

impl Plan {
    /// Check `args`: the strategy, the options that go together, the part, the output.
    fn new(args: Args) -> anyhow::Result<Plan> {
        let settings = settings(&args);
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
        check_method(&args)?;
        // Loaded once the other options are known good: a cmd: solver starts processes.
        let solver = args.solvers.one(
            args.strategy.as_deref(),
            "generate",
            // Generation is reproducible: no clock may decide a uniqueness check.
            None,
        )?;
        let shard = args.shard.resolve()?.unwrap_or(Shard::WHOLE);
        let (first, last) = shard.byte_range(args.count);
        Ok(Plan {
            solver,
            settings,
            format: args.format,
            file: outputs::check(&[], vec![Output::named("--out", &args.out)])?,
            count: args.count,
            shard,
            first,
            last,
            threads: args.threads,
            quiet: args.quiet,
        })
    }

    /// Create the output, with the CSV header when this part begins the whole output.
    fn create(&self) -> anyhow::Result<Writer> {
        let mut opened = self.file.create()?;
        let file = opened.pop().context("no output was opened")?;
        let mut writer = Writer {
            path: file.path.display().to_string(),
            out: file.corpus()?,
            format: self.format,
            line: Vec::with_capacity(200),
        };
        if self.format == OutFormat::Csv && self.first == 0 {
            writer.write(b"quizzes,solutions\n")?;
        }
        Ok(writer)
    }

    /// Make this part's puzzles with `engine`, batch by batch, into `out` in index order,
    /// until all are made, `stop` is requested or the solver is found wrong (in `wrong`,
    /// when it is checked: then none of that batch is written); the index of the first
    /// puzzle not made.
    fn generate(
        &self,
        engine: &Engine,
        wrong: Option<&Wrong>,
        out: &mut Writer,
        progress: &mut Progress,
        stop: &Stop,
    ) -> anyhow::Result<u64> {
        // `None`: not made, because a stop was requested first.
        let mut batch: Vec<Option<Result<Generated, GenerateError>>> = Vec::new();
        let mut start = self.first;
        while start < self.last && !stop.requested() {
            let end = (start + BATCH).min(self.last);
            engine.pool().install(|| {
                // u64 ranges are not indexed in rayon; a batch is far below usize::MAX.
                (0..(end - start) as usize)
                    .into_par_iter()
                    .map(|offset| {
                        // After a wrong answer the batch is not written: no use making it.
                        if stop.requested() || found_wrong(wrong).is_some() {
                            return None;
                        }
                        let index = start + offset as u64;
                        Some(engine.with_solver(0, |solver| {
                            generate::generate(&self.settings, index, solver)
                        }))
                    })
                    .collect_into_vec(&mut batch)
            });
            if found_wrong(wrong).is_some() {
                break;
            }
            // Written in index order up to the first puzzle not made: a prefix, no gap.
            let mut made = 0;
            for generated in batch.drain(..).map_while(|g| g) {
                made += 1;
                out.puzzle(&generated?)?;
            }
            progress.advance(made, start - self.first + made);
            start += made;
        }
        Ok(start)
    }

    /// Say the rate of the `made` puzzles, made in `secs` on `threads`; and, when stopped
    /// by `signal` or by the solver's wrong answer (`wrong`), what was not made.
    fn tell(
        &self,
        made: u64,
        (secs, threads): (f64, usize),
        signal: Option<usize>,
        wrong: Option<String>,
    ) -> Exit {
        stderr_line!(
            "generate: {made} puzzles in {secs:.2} s: {:.0} puzzles/s ({threads} threads, \
             uniqueness by {})",
            made as f64 / secs.max(1e-9),
            self.solver.described()
        );
        if let Some(why) = wrong {
            stderr_line!(
                "error: generate: {} answered wrongly on {why}; stopped: the first {made} \
                 puzzles written (made before it), the other {} of {} not made",
                self.solver.info.name,
                self.last - self.first - made,
                self.last - self.first
            );
            return signal.map_or(Exit::Failure, Exit::Stopped);
        }
        let Some(signal) = signal else {
            return Exit::Success;
        };
        stderr_line!(
            "generate: interrupted by {}: the first {made} puzzles written, the other {} of {} \
             not made",
            signals::name(signal),
            self.last - self.first - made,
            self.last - self.first
        );
        Exit::Stopped(signal)
    }
}

/// Refuse the combinations of --method, --by and the other options that make nothing.
fn check_method(args: &Args) -> anyhow::Result<()> {
    if args.method == MethodArg::Keep {
        if args.clues.is_none() {
            bail!("--method keep needs --clues MIN..MAX: how many cells to keep");
        }
        if args.solutions == SolutionsArg::Many && args.extra_blanks.is_some() {
            bail!(
                "--method keep keeps a puzzle that has 2+ solutions as it is: --extra-blanks \
                 goes with --method remove"
            );
        }
    }
    let Some(by) = args.by else {
        return Ok(());
    };
    if args.solutions != SolutionsArg::None {
        bail!("--by goes with --solutions none");
    }
    if by == ByArg::Add {
        if args.extra_blanks.is_some() {
            bail!("--by add adds a given to a unique puzzle: not with --extra-blanks");
        }
        if args.symmetry != SymmetryArg::None {
            bail!("--by add adds one given, which no --symmetry keeps");
        }
        if let Some((_, max)) = args.clues.filter(|&(_, max)| max < 18) {
            bail!(
                "--by add puts a given in a unique puzzle of one clue less (17 at the \
                 fewest): --clues ..{max} leaves none; use a MAX of 18 or more"
            );
        }
    }
    Ok(())
}

/// What the generator makes of each index, as `args` ask.
fn settings(args: &Args) -> GenerateSettings {
    let (min_clues, max_clues) = args.clues.unwrap_or((0, 81));
    GenerateSettings {
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
            SolutionsArg::None if args.by == Some(ByArg::Add) => Solutions::NoneByAdding,
            SolutionsArg::None => Solutions::None {
                extra_blanks: args.extra_blanks.unwrap_or(0).into(),
            },
        },
        method: match args.method {
            MethodArg::Remove => Method::Remove,
            MethodArg::Keep => Method::Keep,
        },
        ..GenerateSettings::default()
    }
}

/// The output, written a puzzle a line in its format.
struct Writer {
    out: CorpusWriter,
    /// Its path, as errors name it.
    path: String,
    format: OutFormat,
    /// The line being written.
    line: Vec<u8>,
}

impl Writer {
    fn write(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.out
            .write_all(bytes)
            .with_context(|| format!("cannot write {}", self.path))
    }

    /// Write `generated` as a line: the puzzle, and in CSV its solution.
    fn puzzle(&mut self, generated: &Generated) -> anyhow::Result<()> {
        let Generated { puzzle, solution } = generated;
        let line = &mut self.line;
        line.clear();
        match self.format {
            OutFormat::Text => line.extend_from_slice(puzzle.to_dotted().as_bytes()),
            OutFormat::Csv => {
                line.extend(puzzle.cells().iter().map(|&d| b'0' + d));
                line.push(b',');
                line.extend(solution.cells().iter().map(|&d| b'0' + d));
            }
        }
        line.push(b'\n');
        self.out
            .write_all(line)
            .with_context(|| format!("cannot write {}", self.path))
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        self.out.finish()
    }
}

/// Where a checked solver's first wrong answer is kept (see [`classify::Refereed`]).
type Wrong = std::sync::Mutex<Option<String>>;

/// The first wrong answer kept in `wrong`, if any.
fn found_wrong(wrong: Option<&Wrong>) -> Option<String> {
    wrong?.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    // Before the solver is loaded (it may signal sudoku-bench as it starts) and before any
    // file is made: a signal from here on ends the command its own way.
    let stop = signals::install(signals::stopping(
        "writing the puzzles made, in order",
        !args.solvers.is_empty(),
        None,
    ))?;
    let plan = Plan::new(args)?;
    let (info, wrong) = match plan.solver.reference {
        Some(reference) => {
            let (info, wrong) = classify::Refereed::info(&plan.solver.info, reference);
            (info, Some(wrong))
        }
        None => (plan.solver.info.clone(), None),
    };
    // Generation sets its own limits for each uniqueness check.
    let engine = Engine::new(
        vec![info],
        Limits::default(),
        plan.solver.threads(plan.threads),
        "generate",
    )?;
    let (first, last) = (plan.first, plan.last);
    if plan.shard != Shard::WHOLE && !plan.quiet {
        stderr_line!(
            "generate: part {}: puzzles {first}..{last} of {}",
            plan.shard,
            plan.count
        );
    }
    let mut out = plan.create()?;
    let started = Instant::now();
    let mut progress = Progress::new(Some(last - first), plan.quiet);
    let end = plan.generate(&engine, wrong.as_deref(), &mut out, &mut progress, &stop)?;
    out.finish()?;
    progress.finish();
    let secs = started.elapsed().as_secs_f64();
    let threads = engine.pool().current_num_threads();
    let wrong = found_wrong(wrong.as_deref());
    Ok(plan.tell(end - first, (secs, threads), stop.cause(), wrong))
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
