//! The exit status of every command, in one type: what each number means is said here and
//! nowhere else.

use std::process::ExitCode;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: it did what was asked (a closed stdout, `| head`, included).
    Success,
    /// 1: it did its work, and the verdict is a failure: `compare` found a regression,
    /// `check` faults, `run --strict` bad lines, wrong answers or failed solvers.
    Failure,
    /// 2: a usage or input error (bad arguments, a file that cannot be read or written, a
    /// CSV that cannot be resumed or merged, a corpus that failed while read).
    Error,
    /// 128 + the signal: stopped by SIGINT (130) or SIGTERM (143), as a shell reports a
    /// process the signal killed.
    Stopped(usize),
}

impl Exit {
    /// The status the process exits with.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Error => 2,
            Exit::Stopped(signal) => 128u8.saturating_add(signal.min(127) as u8),
        }
    }

    /// `Failure` when `failed`, else `Success`.
    pub fn failure_if(failed: bool) -> Exit {
        if failed {
            Exit::Failure
        } else {
            Exit::Success
        }
    }
}

/// An error that ends a command as a signal would: `main` says `message` (no "error:",
/// the user asked for it) and exits with [`Exit::Stopped`]. For a signal heard where the
/// command cannot stop its own way, before its work began (waiting to open an output).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Interrupted {
    /// The signal's number.
    pub signal: usize,
    /// What was interrupted, and what was left.
    pub message: String,
}

impl Interrupted {
    /// The `Interrupted` in `err`'s chain, if there is one.
    pub fn of(err: &anyhow::Error) -> Option<&Interrupted> {
        err.chain()
            .find_map(|cause| cause.downcast_ref::<Interrupted>())
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_ending_has_its_status() {
        assert_eq!(Exit::Success.code(), 0);
        assert_eq!(Exit::Failure.code(), 1);
        assert_eq!(Exit::Error.code(), 2);
        assert_eq!(Exit::Stopped(2).code(), 130);
        assert_eq!(Exit::Stopped(15).code(), 143);
    }
}
