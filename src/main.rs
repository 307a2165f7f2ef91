//! The `sudoku-bench` binary: turns `cli::run`'s result into an exit code.

#[macro_use]
mod cli;

use std::process::ExitCode;

use cli::Exit;

fn main() -> ExitCode {
    // A copy started to hold a foreign solver does that and exits here.
    sudoku_bench::foreign::child::serve_if_asked();
    match cli::run() {
        Ok(exit) => exit.into(),
        // The reader went away (`| head`): nothing more is wanted, that is success.
        Err(err) if cli::is_broken_pipe(&err) => Exit::Success.into(),
        Err(err) => match cli::Interrupted::of(&err) {
            // Asked for: said as it is, not as an error.
            Some(stopped) => {
                stderr_line!("{stopped}");
                Exit::Stopped(stopped.signal).into()
            }
            None => {
                stderr_line!("error: {err:#}");
                Exit::Error.into()
            }
        },
    }
}
