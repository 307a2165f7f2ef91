//! The `sudoku-bench` binary: turns `cli::run`'s result into an exit code.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(err) => {
            if cli::is_broken_pipe(&err) {
                // The reader went away (`| head`): nothing more is wanted, that is success.
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}
