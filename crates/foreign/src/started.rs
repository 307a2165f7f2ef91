//! The processes this process started for foreign solvers (isolated `lib:` workers, `cmd:`
//! copies or their guards), each with the solver it runs, so that what one of them, or a
//! process below one, does to sudoku-bench itself (a signal to it: `kill(getppid(),
//! SIGINT)`) can be told from what the user does, and the solver named.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

/// How many ended processes are remembered: a signal is sent before its sender ends, but
/// may be looked into after the sender was reaped (and so is gone from `/proc`).
const ENDED_KEPT: usize = 256;

/// How far up `/proc`'s parents a sender is followed: past it, it is not ours.
const MAX_DEPTH: usize = 1024;

#[derive(Default)]
struct Started {
    /// Running (or not yet reaped), by process id: the solver's name.
    live: BTreeMap<libc::pid_t, Arc<str>>,
    /// The latest reaped, oldest first.
    ended: VecDeque<(libc::pid_t, Arc<str>)>,
}

static STARTED: Mutex<Started> = Mutex::new(Started {
    live: BTreeMap::new(),
    ended: VecDeque::new(),
});

fn started() -> MutexGuard<'static, Started> {
    // Each change is one insertion or move: a thread that panicked left it whole.
    STARTED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Our child `pid` was started for the solver `solver`.
pub(super) fn record(pid: libc::pid_t, solver: &Arc<str>) {
    started().live.insert(pid, Arc::clone(solver));
}

/// Our child `pid` was reaped: its id may be another process's from now on (only after
/// the kernel's ids went round, which [`ENDED_KEPT`] later ones are far from).
pub(super) fn reaped(pid: libc::pid_t) {
    let mut started = started();
    if let Some(solver) = started.live.remove(&pid) {
        if started.ended.len() == ENDED_KEPT {
            started.ended.pop_front();
        }
        started.ended.push_back((pid, solver));
    }
}

fn solver_of(pid: libc::pid_t) -> Option<Arc<str>> {
    let started = started();
    started.live.get(&pid).cloned().or_else(|| {
        let mut ended = started.ended.iter().rev();
        ended.find_map(|(p, s)| (*p == pid).then(|| Arc::clone(s)))
    })
}

/// When the process `pid` is this process's own descendant (found by following its
/// parents in `/proc`) or one started for a solver lately: the solver it was started for
/// (`None` inside when it is below no solver's process). A process that ended and was
/// reaped before this looks, below a solver's process, cannot be told from any other:
/// it is not ours.
pub fn descendant(pid: libc::pid_t) -> Option<Option<String>> {
    // SAFETY: getpid(2) has no arguments and cannot fail.
    let me = unsafe { libc::getpid() };
    if pid <= 1 || pid == me {
        return None;
    }
    let mut at = pid;
    for _ in 0..MAX_DEPTH {
        if let Some(solver) = solver_of(at) {
            return Some(Some(solver.to_string()));
        }
        match parent(at)? {
            parent if parent == me => return Some(None),
            parent if parent <= 1 => return None,
            parent => at = parent,
        }
    }
    None
}

/// The parent of `pid`, from `/proc/PID/stat`.
fn parent(pid: libc::pid_t) -> Option<libc::pid_t> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    super::os::parent_in_stat(&stat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_is_ours_a_parent_is_not_and_a_recorded_one_names_its_solver() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id() as libc::pid_t;
        assert_eq!(descendant(pid), Some(None));
        record(pid, &Arc::from("mine"));
        assert_eq!(descendant(pid), Some(Some("mine".to_string())));
        child.kill().unwrap();
        child.wait().unwrap();
        reaped(pid);
        // Gone from /proc, still known for a while.
        assert_eq!(descendant(pid), Some(Some("mine".to_string())));
        // SAFETY: getppid(2) has no arguments and cannot fail.
        assert_eq!(descendant(unsafe { libc::getppid() }), None);
        assert_eq!(descendant(std::process::id() as libc::pid_t), None);
        assert_eq!(descendant(0), None);
    }
}
