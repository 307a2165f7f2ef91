#![warn(missing_docs)]
//! sudoku-bench's solvers from outside, timed by the same harness as the built-in strategies
//! of `sudoku-bench-core`, on whose `Strategy` seam they sit.
//!
//! A solver is named by a spec `NAME=KIND:TARGET` (the value of `run --solver`); the kind
//! says how it is reached:
//!
//! - `lib:PATH[:SYMBOL]`: a function with tdoku's C ABI in a shared library ([`library`]),
//!   by default called in a process of its own per worker thread (the executable again,
//!   in a role: [`child`]), which times each call, so that the library's globals are its
//!   own and a crash, an exit or a hang fails only one puzzle; `--in-process` calls it on
//!   the worker threads themselves.
//! - `cmd:COMMAND ARGS`: any program speaking a line protocol on its stdin and stdout
//!   ([`command`]).
//!
//! [`load`] turns a spec into a [`StrategyInfo`] that runs beside the built-in ones. A
//! foreign solver counts no nodes, so no node budget applies to it; see each kind for
//! what its time budget means.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use sudoku_bench_core::strategy::StrategyInfo;

pub mod child;
pub mod command;
mod isolated;
pub mod library;
mod os;
pub mod role;
pub mod started;
mod usage;

/// Why a solver's process could not be started: sudoku-bench's own resources (memory to
/// share, a pipe, a descriptor, a process, which a limit such as `ulimit -n` or `-u` may
/// deny), or the solver's doing (its library refused, its program is not there, it ended
/// or hung while loading). Only the solver's fails its puzzles; the harness's ends the run
/// ([`sudoku_bench_core::strategy::Abort::Harness`]).
#[derive(Debug, Clone)]
enum StartError {
    Harness(String),
    Solver(String),
}

impl StartError {
    /// `e`, from starting a process or making what it is given, said as `what: e`: the
    /// harness's when the operating system lacked a resource for sudoku-bench (descriptors,
    /// processes, memory; memory only when the solver has no `--memory-limit` of its own,
    /// which may be what it ran out of).
    fn of_start(what: &str, e: &std::io::Error, memory_limit: Option<u64>) -> StartError {
        let why = format!("{what}: {e}");
        match e.raw_os_error() {
            Some(libc::EMFILE | libc::ENFILE | libc::EAGAIN) => StartError::Harness(why),
            Some(libc::ENOMEM) if memory_limit.is_none() => StartError::Harness(why),
            _ => StartError::Solver(why),
        }
    }

    /// The outcome of a search that could not be made for this reason, said as `why`.
    fn outcome(&self, why: String) -> sudoku_bench_core::strategy::Outcome {
        match self {
            StartError::Harness(_) => sudoku_bench_core::strategy::Outcome::harness(format!(
                "{why}; this is sudoku-bench's own failure (a limit of its process or the \
                 machine's, such as ulimit -n or -u), not the solver's"
            )),
            StartError::Solver(_) => sudoku_bench_core::strategy::Outcome::failed(why),
        }
    }
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Harness(why) | StartError::Solver(why) => f.write_str(why),
        }
    }
}

/// Why a foreign solver cannot be used. Found before any puzzle is solved.
#[derive(Debug, Error)]
pub enum ForeignError {
    /// The spec is not `NAME=KIND:TARGET`.
    #[error("{spec:?} is not NAME=KIND:TARGET (e.g. mine=lib:./libmine.so)")]
    Spec {
        /// The spec as given.
        spec: String,
    },
    /// The name cannot be a strategy's name.
    #[error("{name:?} cannot name a solver: use letters, digits, '_', '-' and '.'")]
    Name {
        /// The name as given.
        name: String,
    },
    /// The kind before the first `:` is not one this crate knows.
    #[error("unknown kind {kind:?}; known: {}", KINDS.join(", "))]
    Kind {
        /// The kind as given.
        kind: String,
    },
    /// The shared library's file cannot be found.
    #[error("cannot find {}{}", path.display(), colon_ended(path))]
    Missing {
        /// The library's path as given.
        path: PathBuf,
        /// Why it cannot be found.
        source: std::io::Error,
    },
    /// The file is not a shared library the system can load.
    #[error("cannot load {} as a shared library", path.display())]
    Load {
        /// The library's path.
        path: PathBuf,
        /// The loader's own message.
        source: libloading::Error,
    },
    /// The library has no such symbol.
    #[error("{} exports no symbol {symbol:?}", path.display())]
    Symbol {
        /// The library's path.
        path: PathBuf,
        /// The symbol looked up.
        symbol: String,
        /// The loader's own message.
        source: libloading::Error,
    },
    /// An isolated `lib:` solver's worker could not be started, or could not load it.
    #[error("{reason}")]
    Worker {
        /// What the worker, or starting it, said.
        reason: String,
    },
    /// A `cmd:` solver that cannot be split, started, or does not speak the protocol.
    #[error(transparent)]
    Command(#[from] command::CommandError),
}

/// What to say of a library path given with a `:` at its end (`lib:x.so:`): a symbol was
/// surely meant to follow it, and the file looked for was `x.so:`.
fn colon_ended(path: &std::path::Path) -> &'static str {
    if path.as_os_str().as_encoded_bytes().ends_with(b":") {
        " (the path ends in ':': name the symbol after it, or drop the ':')"
    } else {
        ""
    }
}

/// The kinds of solver a spec may name.
pub(crate) const KINDS: &[&str] = &["lib", "cmd"];

/// A `NAME=KIND:TARGET` spec, split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec<'a> {
    /// The strategy name reports give it.
    pub name: &'a str,
    /// How it is reached: one of `KINDS`.
    pub kind: &'a str,
    /// What the kind makes of it: a library path and symbol, a command line.
    pub target: &'a str,
}

impl<'a> Spec<'a> {
    /// Split `spec`; the name must be a plain word (it is a CSV field and a file-name part
    /// in what users do with reports), the kind is checked by [`load`].
    pub fn parse(spec: &'a str) -> Result<Spec<'a>, ForeignError> {
        let bad = || ForeignError::Spec {
            spec: spec.to_string(),
        };
        let (name, rest) = spec.split_once('=').ok_or_else(bad)?;
        let (kind, target) = rest.split_once(':').ok_or_else(bad)?;
        let name = name.trim();
        if target.is_empty() {
            return Err(bad());
        }
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
        if name.is_empty() || !name.chars().all(plain) {
            return Err(ForeignError::Name {
                name: name.to_string(),
            });
        }
        Ok(Spec { name, kind, target })
    }
}

/// What a foreign solver is given besides its spec.
#[derive(Debug, Clone, Default)]
pub struct ForeignOptions {
    /// The `configuration` argument of a `lib:` solver (0 unless set).
    pub configuration: u32,
    /// How long a solver may take on one puzzle (the run's `--timeout`; `None`: no
    /// bound): a `cmd:` solver or an isolated `lib:` solver's process is killed past it.
    /// Nothing interrupts a `lib:` solver in the tool's own process.
    pub timeout: Option<Duration>,
    /// Run a `lib:` solver in the tool's own process, on the worker threads, rather than
    /// in a process of its own per worker (the default).
    pub in_process: bool,
    /// The bound on each solver process's address space (isolated `lib:` workers, `cmd:`
    /// copies), in bytes (`None`: none).
    pub memory_limit: Option<u64>,
}

/// A foreign solver, ready to run.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The strategy that runs it.
    pub info: StrategyInfo,
    /// For a `cmd:` solver, what a trivial exchange through its pipes costs (the median of
    /// a probe made while loading it): part of every time it is given.
    pub round_trip: Option<Duration>,
}

/// The strategy `spec` names, loaded (a `cmd:` one started and probed) and ready to run.
pub fn load(spec: &Spec<'_>, options: &ForeignOptions) -> Result<Loaded, ForeignError> {
    match spec.kind {
        "lib" if options.in_process => Ok(Loaded {
            info: library::load(spec.name, spec.target, options.configuration)?,
            round_trip: None,
        }),
        "lib" => Ok(Loaded {
            info: isolated::load(
                spec.name,
                spec.target,
                options.configuration,
                options.memory_limit,
            )?,
            round_trip: None,
        }),
        "cmd" => {
            let command = command::CommandLine::parse(spec.target)?
                .memory_limit(options.memory_limit)
                .named(spec.name);
            let probe = command.probe(options.timeout)?;
            Ok(Loaded {
                info: command.info(spec.name, &probe, options.timeout),
                round_trip: Some(probe.round_trip),
            })
        }
        kind => Err(ForeignError::Kind {
            kind: kind.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_splits_at_the_first_equals_and_colon() {
        let spec = Spec::parse("mine=lib:/x/lib.so:sym=1").unwrap();
        assert_eq!(
            spec,
            Spec {
                name: "mine",
                kind: "lib",
                target: "/x/lib.so:sym=1"
            }
        );
    }

    #[test]
    fn a_spec_without_name_kind_or_target_is_refused() {
        for spec in ["lib:x.so", "mine=x.so", "mine=lib:", "=lib:x.so"] {
            let err = Spec::parse(spec).unwrap_err();
            assert!(
                matches!(err, ForeignError::Spec { .. } | ForeignError::Name { .. }),
                "{spec}: {err}"
            );
        }
        let err = Spec::parse("my solver=lib:x.so").unwrap_err().to_string();
        assert!(err.contains("\"my solver\" cannot name a solver"), "{err}");
    }

    #[test]
    fn an_unknown_kind_is_named_with_the_known_ones() {
        let spec = Spec::parse("mine=dll:x.so").unwrap();
        let err = load(&spec, &ForeignOptions::default())
            .unwrap_err()
            .to_string();
        assert_eq!(err, "unknown kind \"dll\"; known: lib, cmd");
    }
}
