//! System calls around the processes that hold foreign solvers (`cmd:` copies, their
//! guards, isolated `lib:` workers): their link to their parent, their memory bound, and
//! pipes that never block.

use std::io;
use std::os::fd::RawFd;
#[cfg(target_os = "linux")]
use std::os::unix::process::CommandExt;
use std::time::Duration;

/// Have the solver `command` starts killed when its parent dies: sudoku-bench where no
/// guard can be used (a second Ctrl-C exits at once without dropping it, and in a process
/// group of its own a solver that hangs would otherwise outlive it), or the guard. Linux
/// sends the signal when the thread that started the solver ends: a runner's workers,
/// which outlive their solvers, or the guard's main thread.
#[cfg(target_os = "linux")]
pub(super) fn die_with_parent(command: &mut std::process::Command) {
    let parent = std::process::id();
    // SAFETY: between fork and exec the closure makes only async-signal-safe system calls
    // and does not allocate.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            // Had the parent died before that, nothing would ever send the signal.
            if u32::try_from(libc::getppid()).ok() != Some(parent) {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

pub(super) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl(2) on a descriptor we own, with integer arguments only.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Bound the address space of the process `command` starts to `bytes`.
pub(super) fn limit_memory(command: &mut std::process::Command, bytes: u64) {
    use std::os::unix::process::CommandExt as _;
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: between fork and exec, one async-signal-safe call on a copied struct.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Whether our child `pid` exits within `grace`, left unreaped so that it (and what it
/// leads) can still be killed by its id.
pub(super) fn exits_within(pid: u32, grace: Duration) -> bool {
    let pid: libc::id_t = pid;
    let start = std::time::Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        // SAFETY: siginfo_t is plain data, for which all zeroes is a value.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let options = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // SAFETY: `info` is a local that lives across the call.
        let got = unsafe { libc::waitid(libc::P_PID, pid, &mut info, options) };
        // SAFETY: waitid filled `info` (or left it zeroed: no child changed state).
        if got == 0 && unsafe { info.si_pid() } != 0 {
            return true;
        }
        if got != 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return false;
        }
        if start.elapsed() >= grace {
            return false;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Have the process `command` starts adopt every orphan below it (a child subreaper), so
/// that a daemon the solver starts (`fork`, `setsid`, `fork`, the middle one exits) stays
/// among its descendants, where [`kill_tree`] finds it, rather than becoming init's.
#[cfg(target_os = "linux")]
pub(super) fn adopt_orphans(command: &mut std::process::Command) {
    // SAFETY: between fork and exec, one async-signal-safe call with integer arguments;
    // the setting outlives the exec.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Kill every process below `root` (and `root` itself when `with_root`), wherever its
/// session or process group: each is stopped as it is found, so that none can start
/// another unseen, until a look finds no new one; then all are killed. `root` should
/// adopt orphans ([`adopt_orphans`]): otherwise what was orphaned below it is init's, and
/// out of reach.
#[cfg(target_os = "linux")]
pub(super) fn kill_tree(root: libc::pid_t, with_root: bool) {
    let mut stopped = std::collections::BTreeSet::new();
    let mut stop = |pid: libc::pid_t| {
        if stopped.insert(pid) {
            // SAFETY: kill(2) with plain integers.
            unsafe { libc::kill(pid, libc::SIGSTOP) };
            true
        } else {
            false
        }
    };
    if with_root {
        stop(root);
    }
    // A bound on the looks, against a tree that grows as fast as it is stopped.
    for _ in 0..64 {
        let found = descendants(root);
        let mut fresh = false;
        for pid in found {
            fresh |= stop(pid);
        }
        if !fresh {
            break;
        }
    }
    for &pid in &stopped {
        // SAFETY: kill(2) with plain integers.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    // A process ends of a SIGKILL when it next runs: on a busy machine, a moment later.
    // Waited for (a bounded while), so that none killed here still runs when the caller
    // goes on to say that the solver ended.
    let began = std::time::Instant::now();
    for pid in stopped {
        while running(pid) && began.elapsed() < KILLED_WITHIN {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// How long [`kill_tree`] waits for the processes it killed to end.
#[cfg(target_os = "linux")]
const KILLED_WITHIN: Duration = Duration::from_secs(2);

/// Whether process `pid` exists and has not ended (a zombie has: it only waits to be
/// reaped).
#[cfg(target_os = "linux")]
fn running(pid: libc::pid_t) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| state_in_stat(&stat))
        .is_some_and(|state| !matches!(state, 'Z' | 'X'))
}

/// The state letter of a process in its `/proc/PID/stat` line (after the command, which
/// may hold spaces and parentheses).
fn state_in_stat(stat: &str) -> Option<char> {
    after_command(stat)?.next()?.chars().next()
}

/// The processes below `root`, from each process's parent in `/proc`.
#[cfg(target_os = "linux")]
fn descendants(root: libc::pid_t) -> Vec<libc::pid_t> {
    let mut children: std::collections::BTreeMap<libc::pid_t, Vec<libc::pid_t>> =
        std::collections::BTreeMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let Some(parent) = parent_in_stat(&stat) {
            children.entry(parent).or_default().push(pid);
        }
    }
    let mut found = Vec::new();
    let mut next = vec![root];
    while let Some(pid) = next.pop() {
        for &child in children.get(&pid).into_iter().flatten() {
            found.push(child);
            next.push(child);
        }
    }
    found
}

/// The parent's id in the text of `/proc/PID/stat`: after the command's name, in
/// parentheses (which may hold anything), the state, then the parent's id.
pub(super) fn parent_in_stat(stat: &str) -> Option<libc::pid_t> {
    after_command(stat)?.nth(1)?.parse().ok()
}

/// The fields of a `/proc/PID/stat` line after the command (which may hold spaces and
/// parentheses), from the state on.
fn after_command(stat: &str) -> Option<std::str::SplitWhitespace<'_>> {
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_read_after_a_command_with_parentheses() {
        assert_eq!(state_in_stat("42 (a (b) c) S 1 42 42 0"), Some('S'));
        assert_eq!(state_in_stat("42 (sleep) Z 1 42"), Some('Z'));
        assert_eq!(state_in_stat("42 (broken"), None);
    }

    /// What kill_tree killed has ended when it returns: nothing of it still runs, even
    /// stopped (as kill_tree leaves each process until its SIGKILL).
    #[cfg(target_os = "linux")]
    #[test]
    fn killed_processes_have_ended_when_kill_tree_returns() {
        for _ in 0..20 {
            let mut child = std::process::Command::new("sh")
                .args(["-c", "sleep 60 & sleep 60 & wait"])
                .spawn()
                .unwrap();
            let pid = child.id() as libc::pid_t;
            // Its two children started (or the tree is only the shell).
            let began = std::time::Instant::now();
            while descendants(pid).len() < 2 && began.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(1));
            }
            let below = descendants(pid);
            assert_eq!(below.len(), 2, "{below:?}");
            kill_tree(pid, true);
            for p in below.iter().chain([&pid]) {
                assert!(!running(*p), "{p} still runs");
            }
            child.wait().unwrap();
        }
    }
}
