//! The processes sudoku-bench starts from its own executable to keep foreign code at a
//! distance: a program that runs foreign solvers calls [`serve_if_asked`] first thing in
//! `main`, and a copy of it started with [`ROLE_VAR`] set does that role's work and exits
//! instead of running as itself.
//!
//! The role travels in the environment rather than the arguments, so that a program with
//! its own argument parser (a user's, built on [`crate::Bench`]) needs only the one call.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// The variable that starts a copy in a role; removed from the copy's environment at once,
/// so that what it starts does not inherit it.
pub const ROLE_VAR: &str = "SUDOKU_BENCH_CHILD_ROLE";

/// The program the roles are started from: the running executable, unless set
/// otherwise (for a program that does not call [`serve_if_asked`]).
pub fn program() -> std::io::Result<PathBuf> {
    std::env::current_exe()
}

/// Set by [`serve_if_asked`]: this program can be started in a role.
static SERVES: AtomicBool = AtomicBool::new(false);

/// Whether the running program calls [`serve_if_asked`], so that a copy of it started in
/// a role does that role's work (a test harness, for one, does not).
pub fn serves_roles() -> bool {
    SERVES.load(Ordering::Relaxed)
}

/// When this process was started in a role, do its work and exit; else return at once.
pub fn serve_if_asked() {
    SERVES.store(true, Ordering::Relaxed);
    let Some(role) = std::env::var_os(ROLE_VAR) else {
        return;
    };
    // SAFETY: called first thing in `main`, before any other thread exists.
    unsafe { std::env::remove_var(ROLE_VAR) };
    let code = serve(&role);
    std::process::exit(code);
}

/// A role's work; its exit status.
fn serve(role: &OsString) -> i32 {
    match role.to_str() {
        Some(super::command::guard::ROLE) => super::command::guard::serve(),
        _ => {
            eprintln!("sudoku-bench: started in an unknown role {role:?}");
            2
        }
    }
}
