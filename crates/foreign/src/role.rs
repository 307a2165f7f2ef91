//! How a copy of the executable is started in a role (see [`super::child`]): the
//! variable that names the role, the argument that marks the copy, and the program.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// The variable that starts a copy in a role; removed from the copy's environment at once,
/// so that what it starts does not inherit it.
pub const ROLE_VAR: &str = "SUDOKU_BENCH_CHILD_ROLE";

/// The first argument of a copy: a program that does not serve roles (a test harness,
/// say) takes it for something it does not know and stops, rather than running as itself.
pub const ROLE_ARG: &str = "__sudoku_bench_child";

/// The program roles are started from: the running executable.
pub fn program() -> std::io::Result<PathBuf> {
    std::env::current_exe()
}

/// Set once the program has called [`super::child::serve_if_asked`].
static SERVES: AtomicBool = AtomicBool::new(false);

/// Note that the running program serves roles.
pub(super) fn serving() {
    SERVES.store(true, Ordering::Relaxed);
}

/// Whether the running program calls [`super::child::serve_if_asked`], so that a copy of
/// it started in a role does that role's work (a test harness, for one, does not).
pub fn serves_roles() -> bool {
    SERVES.load(Ordering::Relaxed)
}
