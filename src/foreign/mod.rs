//! Solvers from outside the crate, run beside the built-in strategies:
//! `--solver NAME=KIND:...`.
//!
//! MINIMAL VERSION (task C, branch r13-cmd): only the `cmd:` kind, enough to run command
//! solvers through the CLI; the full module (spec syntax, `lib:`) comes from task L.

#[cfg(unix)]
pub mod command;

/// Why a `--solver` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ForeignError {
    /// Not `NAME=KIND:...`.
    #[error("--solver {0:?}: expected NAME=KIND:..., e.g. 'mine=cmd:./my-solver --fast'")]
    Syntax(String),
    /// A kind this build does not know.
    #[error("--solver {spec:?}: unknown kind {kind:?} (known: cmd)")]
    UnknownKind {
        /// The whole `--solver` value.
        spec: String,
        /// The word before the first `:`.
        kind: String,
    },
    /// A `cmd:` solver that cannot be used.
    #[cfg(unix)]
    #[error("solver {name}")]
    Command {
        /// The solver's NAME.
        name: String,
        /// What is wrong with its command.
        #[source]
        source: command::CommandError,
    },
}

/// One `--solver NAME=KIND:...`, parsed.
#[derive(Debug, Clone)]
pub struct SolverSpec {
    /// The strategy name it runs under.
    pub name: String,
    /// How it is reached.
    pub kind: SolverKind,
}

/// How a solver from outside is reached.
#[derive(Debug, Clone)]
pub enum SolverKind {
    /// A program speaking the line protocol (`cmd:COMMAND ARGS`).
    #[cfg(unix)]
    Command(command::Spec),
}

impl SolverSpec {
    /// Parse `NAME=KIND:REST`.
    pub fn parse(text: &str) -> Result<SolverSpec, ForeignError> {
        let syntax = || ForeignError::Syntax(text.to_string());
        let (name, rest) = text.split_once('=').ok_or_else(syntax)?;
        let name = name.trim();
        if name.is_empty() || name.contains([',', ' ']) {
            return Err(syntax());
        }
        let (kind, rest) = rest.split_once(':').ok_or_else(syntax)?;
        let kind = match kind.trim() {
            #[cfg(unix)]
            "cmd" => SolverKind::Command(command::Spec::parse(rest).map_err(|source| {
                ForeignError::Command {
                    name: name.to_string(),
                    source,
                }
            })?),
            other => {
                return Err(ForeignError::UnknownKind {
                    spec: text.to_string(),
                    kind: other.to_string(),
                })
            }
        };
        Ok(SolverSpec {
            name: name.to_string(),
            kind,
        })
    }
}
