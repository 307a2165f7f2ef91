//! `--solver NAME=KIND:...`: solvers from outside, made ready before the run.
//!
//! MINIMAL VERSION (task C, branch r13-cmd): only `cmd:` solvers; task L's version, with
//! `lib:`, replaces it.

use std::time::Duration;

use anyhow::bail;
use sudoku_bench::foreign::{ForeignError, SolverKind, SolverSpec};
use sudoku_bench::report::summary::PipeCost;
use sudoku_bench::strategy::{self, StrategyInfo};

/// The strategies of `specs`, each checked to work (a `cmd:` one probed, with `timeout`
/// bounding each exchange), and the protocol cost of each `cmd:` one.
pub fn prepare(
    specs: &[String],
    timeout: Option<Duration>,
) -> anyhow::Result<(Vec<StrategyInfo>, Vec<PipeCost>)> {
    let mut infos: Vec<StrategyInfo> = Vec::new();
    let mut pipes = Vec::new();
    for text in specs {
        let spec = SolverSpec::parse(text)?;
        if strategy::by_name(&spec.name).is_some() || infos.iter().any(|i| i.name == spec.name) {
            bail!("--solver {text:?}: the name {:?} is taken", spec.name);
        }
        match &spec.kind {
            SolverKind::Command(command) => {
                let probe = command
                    .probe(timeout)
                    .map_err(|source| ForeignError::Command {
                        name: spec.name.clone(),
                        source,
                    })?;
                pipes.push(PipeCost {
                    strategy: spec.name.clone(),
                    round_trip_ns: u64::try_from(probe.round_trip.as_nanos()).unwrap_or(u64::MAX),
                });
                infos.push(command.info(&spec.name, &probe, timeout));
            }
        }
    }
    Ok((infos, pipes))
}
