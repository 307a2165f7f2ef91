//! The processes sudoku-bench starts from its own executable to keep foreign code at a
//! distance: a program that runs foreign solvers calls [`serve_if_asked`] first thing in
//! `main`, and a copy of it started in a role (see [`super::role`]) does that role's work
//! and exits instead of running as itself.
//!
//! The role is named in the environment and the copy's first argument marks it, so that a
//! program with its own argument parser (a user's, built on `sudoku_bench::Bench`) needs only
//! the one call, and a program without it stops at an argument it does not know.

use std::ffi::OsString;
use std::io::Write as _;

use super::role::{ROLE_ARG, ROLE_VAR};

/// When this process was started in a role, do its work and exit; else return at once.
pub fn serve_if_asked() {
    super::role::serving();
    let Some(role) = std::env::var_os(ROLE_VAR) else {
        return;
    };
    // SAFETY: called first thing in `main`, before any other thread exists.
    unsafe { std::env::remove_var(ROLE_VAR) };
    let args: Vec<OsString> = std::env::args_os().collect();
    let code = serve(&role, &args);
    std::process::exit(code);
}

/// A role's work, given the process's arguments; its exit status.
fn serve(role: &OsString, args: &[OsString]) -> i32 {
    // The first argument after the program marks a role's copy (see [`ROLE_ARG`]).
    let args = match args {
        [_, marker, rest @ ..] if marker == ROLE_ARG => rest,
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "sudoku-bench: started as a {role:?} worker without its arguments"
            );
            return 2;
        }
    };
    match role.to_str() {
        Some("lib") => super::isolated::worker::serve(args),
        Some(super::command::guard::ROLE) => super::command::guard::serve(args),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "sudoku-bench: started in an unknown role {role:?}"
            );
            2
        }
    }
}
