//! `--solver`: solvers from outside the crate, with their options, loaded before any
//! output is made so that a typo fails at once. `run` times them beside its `-s`
//! strategies ([`SolverArgs::load`]); `filter`, `check` and `generate`, which solve with
//! one solver, take one in place of `-s` ([`SolverArgs::one`]).

use std::collections::HashMap;
use std::time::Duration;

use anyhow::{bail, Context};
use sudoku_bench::classify;
use sudoku_bench::foreign::{self, ForeignOptions, Spec};
use sudoku_bench::strategy::{self, StrategyInfo};
use sudoku_bench::summary::PipeCost;

#[derive(Debug, clap::Args)]
pub struct SolverArgs {
    /// A solver from outside, named NAME: each command's help says what it does there
    /// (`solver_help`).
    #[arg(long = "solver", value_name = "NAME=KIND:TARGET")]
    solvers: Vec<String>,

    /// The `configuration` argument given to library solver NAME (default 0; repeatable).
    #[arg(long = "solver-config", value_name = "NAME=U32")]
    configs: Vec<String>,

    /// Solve with solver NAME one puzzle at a time, for code that is not reentrant (pinned
    /// workers take turns, each on its own CPU, so that every solver is timed on the same
    /// CPUs; repeatable, or comma-separated).
    #[arg(long = "serial", value_name = "NAME", value_delimiter = ',')]
    serial: Vec<String>,

    /// Run lib: solver NAME inside sudoku-bench's own process, on its worker threads,
    /// rather than in a process of its own per worker (the default). Nothing then fences
    /// it: a crash ends the run, --timeout cannot stop it, and a library that keeps
    /// state in globals needs --serial (repeatable, or comma-separated).
    #[arg(long = "in-process", value_name = "NAME", value_delimiter = ',')]
    in_process: Vec<String>,

    /// Bound the address space of each solver process (isolated lib: workers, cmd:
    /// copies) to SIZE bytes, e.g. 512M or 2G: an allocation past it fails, and so,
    /// usually, the puzzle.
    #[arg(long = "memory-limit", value_name = "SIZE", value_parser = parse_size)]
    memory_limit: Option<u64>,
}

/// `SIZE`: bytes, or a number with K, M, G or T (powers of 1024).
fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, ""),
    };
    let shift = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches(['B', 'I'])
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("{unit:?} is not a unit: use K, M, G or T")),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a size such as 512M or 2G"))?;
    n.checked_mul(1 << shift)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("{text:?} is not a size from 1 byte to 16E"))
}

/// What `--solver` does in each command, put before the help common to all.
const SOLVER_HELP: [(&str, &str); 4] = [
    (
        "run",
        "Also time a solver from outside as strategy NAME, beside the -s ones (repeatable; \
         -s none: only the --solvers). --timeout kills and restarts a cmd: one that does \
         not answer.",
    ),
    (
        "filter",
        "Count solutions with a solver from outside, named NAME, instead of a built-in \
         strategy (one --solver, without -s). A line whose count fast disagrees with is \
         kept nowhere, said on stderr, and makes the exit 1.",
    ),
    (
        "check",
        "With --solve: check the solution columns with a solver from outside, named \
         NAME, instead of a built-in strategy (one --solver, without -s). A count fast \
         disagrees with is said on stderr and makes the exit 1.",
    ),
    (
        "generate",
        "Make the uniqueness checks with a solver from outside, named NAME, instead of a \
         built-in strategy (one --solver, without -s): with a right solver, the same \
         output. The first count fast disagrees with stops generation with exit 1. No \
         time limit applies (a clock would make the output depend on the machine): a \
         second Ctrl-C ends a solver that hangs, losing the puzzles in flight.",
    ),
];

/// The help of `--solver` in `command`: what it does there, then what it takes.
pub fn solver_help(command: &str) -> String {
    let what = SOLVER_HELP
        .iter()
        .find(|(c, _)| *c == command)
        .map_or("", |(_, what)| what);
    format!(
        "{what} NAME=lib:PATH[:SYMBOL] loads a shared library exporting tdoku's C ABI \
         (SYMBOL defaults to sudoku_solve; see docs/formats.md) in a process per thread, where a \
         crash, an exit or a --timeout (where the command has one) fails only the puzzle \
         being solved; no node budget \
         applies to it. 'NAME=cmd:COMMAND ARGS' starts COMMAND once per thread and sends it `PUZZLE \
         LIMIT` lines, reading `COUNT SOLUTION GUESSES` lines back; no node budget applies \
         to it. Every count it gives is checked against the built-in fast's, and every \
         solution it returns against the puzzle."
    )
}

impl SolverArgs {
    /// Whether no `--solver` is given.
    pub fn is_empty(&self) -> bool {
        self.solvers.is_empty()
    }

    /// Every `--solver`, loaded, with its configuration and threading applied (a `cmd:`
    /// one's answers bounded by `timeout`), and what the pipe costs each `cmd:` one.
    pub fn load(
        &self,
        timeout: Option<Duration>,
    ) -> anyhow::Result<(Vec<StrategyInfo>, Vec<PipeCost>)> {
        let specs = self
            .solvers
            .iter()
            .map(|s| Spec::parse(s).with_context(|| format!("--solver {s}")))
            .collect::<anyhow::Result<Vec<_>>>()?;
        for (i, spec) in specs.iter().enumerate() {
            if spec.name == "all" || strategy::by_name(spec.name).is_some() {
                bail!(
                    "--solver {}: {} is a built-in strategy; give the solver another name",
                    self.solvers[i],
                    spec.name
                );
            }
            if specs[..i].iter().any(|s| s.name == spec.name) {
                bail!(
                    "--solver {}: a solver is already named {}",
                    self.solvers[i],
                    spec.name
                );
            }
        }
        let configs = self.configurations(&specs)?;
        for name in &self.serial {
            solver_named(&specs, name.trim()).with_context(|| format!("--serial {name}"))?;
        }
        for name in &self.in_process {
            let spec = solver_named(&specs, name.trim())
                .with_context(|| format!("--in-process {name}"))?;
            if spec.kind != "lib" {
                bail!("--in-process {name}: {} is not a lib: solver", spec.name);
            }
        }
        let mut infos = Vec::new();
        let mut pipes = Vec::new();
        // The paths given (corpora, outputs) are relative to it: an in-process library
        // that moves it while loading would have them read and written elsewhere. (Once
        // solving, they are open: a move then changes nothing.)
        let here = std::env::current_dir().ok();
        for (spec, given) in specs.iter().zip(&self.solvers) {
            let options = ForeignOptions {
                configuration: configs.get(spec.name).copied().unwrap_or(0),
                timeout,
                in_process: self.in_process.iter().any(|n| n.trim() == spec.name),
                memory_limit: self.memory_limit,
            };
            let loaded =
                foreign::load(spec, &options).with_context(|| format!("--solver {given}"))?;
            let now = std::env::current_dir().ok();
            if let (Some(here), true) = (&here, now.as_ref() != here.as_ref()) {
                bail!(
                    "--solver {given}: loading it moved sudoku-bench's current directory from \
                     {} to {}, where the paths given would be taken to lead: run it in a \
                     process of its own (without --in-process {})",
                    here.display(),
                    now.map_or_else(|| "one it cannot tell".into(), |d| d.display().to_string()),
                    spec.name
                );
            }
            if let Some(round_trip) = loaded.round_trip {
                pipes.push(PipeCost {
                    strategy: spec.name.to_string(),
                    round_trip_ns: u64::try_from(round_trip.as_nanos()).unwrap_or(u64::MAX),
                });
            }
            infos.push(if self.serial.iter().any(|n| n.trim() == spec.name) {
                loaded.info.serial()
            } else {
                loaded.info
            });
        }
        Ok((infos, pipes))
    }

    /// The one solver of `command`, which solves with one: the `--solver` when one is
    /// given, else the built-in strategy `-s` names (`strategy`; none: the fastest). A
    /// `--solver` comes with the reference that checks its every count; `-s` beside it, or
    /// a second one, is refused: the command would use only one of them. A `cmd:` one's
    /// answers are bounded by `timeout`.
    pub fn one(
        &self,
        strategy: Option<&str>,
        command: &str,
        timeout: Option<Duration>,
    ) -> anyhow::Result<OneSolver> {
        match (&self.solvers[..], strategy) {
            ([], _) => {
                // Still loaded: a --solver-config or --serial without a --solver is refused.
                self.load(None)?;
                Ok(OneSolver {
                    info: super::args::choose_strategy(strategy)?.clone(),
                    reference: None,
                })
            }
            ([given], Some(name)) => bail!(
                "{command} solves with one solver, and -s {name} and --solver {given} name \
                 two: drop -s to solve with the --solver (fast still checks its every \
                 count), or drop --solver"
            ),
            ([_], None) => {
                let (mut loaded, _) = self.load(timeout)?;
                Ok(OneSolver {
                    info: loaded.pop().context("no --solver was loaded")?,
                    reference: Some(classify::fastest()),
                })
            }
            (several, _) => bail!(
                "{command} solves with one solver, and --solver is given {} times ({}): \
                 give one (`run` compares several)",
                several.len(),
                several
                    .iter()
                    .map(|s| s.split_once('=').map_or(s.as_str(), |(name, _)| name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// The `--in-process` solvers that run on every thread (not `--serial`): what a
    /// library with state in globals gets wrong.
    pub fn shared_in_process(&self) -> Vec<String> {
        self.in_process
            .iter()
            .map(|n| n.trim().to_string())
            .filter(|n| !self.serial.iter().any(|s| s.trim() == n))
            .collect()
    }

    /// `--solver-config NAME=U32` for each library solver that has one.
    fn configurations<'a>(&self, specs: &[Spec<'a>]) -> anyhow::Result<HashMap<&'a str, u32>> {
        let mut configs = HashMap::new();
        for given in &self.configs {
            let context = || format!("--solver-config {given}");
            let (name, value) = given
                .split_once('=')
                .context("expected NAME=U32")
                .with_context(context)?;
            let spec = solver_named(specs, name.trim()).with_context(context)?;
            if spec.kind != "lib" {
                bail!(
                    "--solver-config {given}: {} is not a lib: solver",
                    spec.name
                );
            }
            let value: u32 = value
                .trim()
                .parse()
                .with_context(|| format!("{value:?} is not a number from 0 to {}", u32::MAX))
                .with_context(context)?;
            if configs.insert(spec.name, value).is_some() {
                bail!("--solver-config {given}: {} is configured twice", spec.name);
            }
        }
        Ok(configs)
    }
}

/// The solver of a command that solves with one (see [`SolverArgs::one`]).
pub struct OneSolver {
    /// The solver: a `--solver`, or a built-in strategy.
    pub info: StrategyInfo,
    /// The built-in strategy every count of a `--solver` is checked against; `None` for
    /// a built-in solver, which the agreement tests check instead.
    pub reference: Option<&'static StrategyInfo>,
}

impl OneSolver {
    /// Threads to solve on: one for a solver that is not reentrant (`--serial`), which
    /// the corpus tools' workers would otherwise call at once; else `threads`.
    pub fn threads(&self, threads: usize) -> usize {
        if self.info.parallel {
            threads
        } else {
            1
        }
    }

    /// How the solver is named in a command's last line: with its reference, if any.
    pub fn described(&self) -> String {
        match self.reference {
            Some(r) => format!("{}, every count checked against {}", self.info.name, r.name),
            None => self.info.name.to_string(),
        }
    }
}

/// The `--solver` named `name`, or an error listing them.
fn solver_named<'s, 'a>(specs: &'s [Spec<'a>], name: &str) -> anyhow::Result<&'s Spec<'a>> {
    specs.iter().find(|s| s.name == name).with_context(|| {
        let names: Vec<_> = specs.iter().map(|s| s.name).collect();
        if names.is_empty() {
            format!("no --solver is named {name:?}: there is none")
        } else {
            format!("no --solver is named {name:?}; named: {}", names.join(", "))
        }
    })
}
