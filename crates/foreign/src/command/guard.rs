//! The guard: a copy of sudoku-bench, started in the role [`ROLE`], that stands between it
//! and one copy of a `cmd:` solver, so that the solver's whole process group dies with
//! sudoku-bench however sudoku-bench ends, `kill -9` included, when no code of ours runs in
//! it to do so.
//!
//! sudoku-bench starts the guard as the leader of a new process group, its stdin and
//! stdout the solver's pipes and a socket, the lifeline, at descriptor [`LIFELINE_FD`]. The
//! guard starts the solver in its group with those pipes as they are (no byte passes
//! through the guard, which then keeps no copy of them, so that the solver's exit closes
//! them), says the solver's process id on the lifeline, and waits:
//!
//! - when the lifeline ends (sudoku-bench closed it, or died), it kills its group, itself
//!   included;
//! - when the solver ends, it reaps it, says on the lifeline what it used, and ends the way
//!   the solver did (the same exit status, or the same signal), for sudoku-bench to report.
//!
//! sudoku-bench itself ends a copy by killing the group, guard and all, as it would a
//! solver started directly.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::Arc;

use crate::os::{die_with_parent, kill_tree, limit_memory, set_nonblocking};
use crate::usage;
use sudoku_bench_core::strategy::Usage;

/// The variable that gives the guard the bound on the solver's address space, in bytes.
pub(super) const MEMORY_LIMIT_VAR: &str = "SUDOKU_BENCH_GUARD_MEMORY_LIMIT";

/// The role's name, the value of [`crate::role::ROLE_VAR`].
pub const ROLE: &str = "cmd-guard";

/// Where the guard finds its lifeline: the first descriptor after stdin, stdout, stderr.
const LIFELINE_FD: RawFd = 3;

/// The longest line the guard says.
const MAX_REPORT: usize = 4096;

/// Have the guard `command` starts find `fd` at [`LIFELINE_FD`].
pub(super) fn pass_lifeline(command: &mut Command, fd: RawFd) {
    // SAFETY: between fork and exec the closure makes only async-signal-safe system calls
    // (fcntl, dup2) and does not allocate. The child's stdin and stdout are in place
    // already, so descriptor 3 holds nothing it needs.
    unsafe {
        command.pre_exec(move || {
            if fd == LIFELINE_FD {
                // dup2 onto itself would keep close-on-exec.
                let flags = libc::fcntl(fd, libc::F_GETFD);
                if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                    return Err(io::Error::last_os_error());
                }
            } else if libc::dup2(fd, LIFELINE_FD) < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The guard's first line: the solver's process id, or why it could not be started.
pub(super) fn read_report(lifeline: &mut UnixStream) -> io::Result<u32> {
    // A byte at a time, so that nothing after the line is taken with it.
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < MAX_REPORT {
        match lifeline.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let text = String::from_utf8_lossy(&line);
    if let Some(pid) = text.strip_prefix("pid ").and_then(|p| p.parse().ok()) {
        return Ok(pid);
    }
    if let Some(why) = text.strip_prefix("error ") {
        let (errno, message) = why.split_once(' ').unwrap_or((why, ""));
        return Err(match errno.parse() {
            Ok(errno) if errno > 0 => io::Error::from_raw_os_error(errno),
            _ => io::Error::other(message.to_string()),
        });
    }
    Err(io::Error::other(format!(
        "its guard (sudoku-bench in the role {ROLE}) ended without starting it{}",
        if text.is_empty() {
            String::new()
        } else {
            format!(", saying {text:?}")
        }
    )))
}

/// What the solver used, when the guard reaped it and said so before it ended.
pub(super) fn read_usage(lifeline: &mut UnixStream) -> Option<Usage> {
    set_nonblocking(lifeline.as_raw_fd()).ok()?;
    let mut said = Vec::new();
    let mut bytes = [0u8; 256];
    while said.len() < MAX_REPORT {
        match lifeline.read(&mut bytes) {
            Ok(0) => break,
            Ok(n) => said.extend_from_slice(&bytes[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let text = String::from_utf8_lossy(&said);
    let line = text.lines().find_map(|l| l.strip_prefix("ended "))?;
    let (rss, cpu) = line.split_once(' ')?;
    Some(Usage {
        max_rss_kib: rss.parse().ok()?,
        cpu_ns: cpu.parse().ok()?,
        processes: 0,
    })
}

/// The guard's work, in a copy started in [`ROLE`] with the solver's program and
/// arguments as its own; its exit status when it returns (it mostly ends otherwise).
pub fn serve(args: &[std::ffi::OsString]) -> i32 {
    let mut args = args.iter();
    let Some(program) = args.next() else {
        let _ = writeln!(
            io::stderr(),
            "sudoku-bench: started as a {ROLE} without a command"
        );
        return 2;
    };
    // SAFETY: fcntl on a plain integer, to see whether the descriptor is open.
    if unsafe { libc::fcntl(LIFELINE_FD, libc::F_GETFD) } < 0 {
        let _ = writeln!(
            io::stderr(),
            "sudoku-bench: started as a {ROLE} without a lifeline"
        );
        return 2;
    }
    // SAFETY: the descriptor is open (checked above), and nothing else in this process
    // owns it: sudoku-bench put it there for this role alone.
    let lifeline = Arc::new(unsafe { UnixStream::from_raw_fd(LIFELINE_FD) });
    // The solver must not hold it: its end must be sudoku-bench's end.
    // SAFETY: fcntl on a descriptor we own, with integer arguments only.
    unsafe { libc::fcntl(LIFELINE_FD, libc::F_SETFD, libc::FD_CLOEXEC) };
    let mut command = Command::new(program);
    command.args(args).env_remove(MEMORY_LIMIT_VAR);
    die_with_parent(&mut command);
    let limit = std::env::var(MEMORY_LIMIT_VAR).ok();
    if let Some(bytes) = limit.and_then(|b| b.parse().ok()) {
        limit_memory(&mut command, bytes);
    }
    let solver = match command.spawn() {
        Ok(solver) => solver,
        Err(e) => {
            let errno = e.raw_os_error().unwrap_or(-1);
            let _ = writeln!(&*lifeline, "error {errno} {e}");
            return 127;
        }
    };
    let pid = solver.id();
    give_up_stdio();
    let _ = writeln!(&*lifeline, "pid {pid}");
    let relayer = Arc::clone(&lifeline);
    std::thread::spawn(move || relay(pid, &relayer));
    // Nothing is ever sent on the lifeline: a read returns when it ends.
    let mut bytes = [0u8; 64];
    loop {
        match (&*lifeline).read(&mut bytes) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    // Every process below, wherever it went (the guard adopts orphans), then the group.
    kill_tree(std::process::id() as libc::pid_t, false);
    // SAFETY: kill(2) takes plain integers; 0 is this process's own group.
    unsafe { libc::kill(0, libc::SIGKILL) };
    1
}

/// Point the guard's stdin and stdout at /dev/null: the solver has the pipes, and a copy
/// held here would keep its stdout open after it exits.
fn give_up_stdio() {
    // SAFETY: open, dup2 and close on descriptors this process owns; the path is a
    // NUL-terminated literal.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        for fd in [libc::STDIN_FILENO, libc::STDOUT_FILENO] {
            if null < 0 || libc::dup2(null, fd) < 0 {
                libc::close(fd);
            }
        }
        if null >= 0 {
            libc::close(null);
        }
    }
}

/// Wait for the solver, say what it used, and end as it did.
fn relay(pid: u32, mut lifeline: &UnixStream) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    let mut status = 0;
    loop {
        // SAFETY: rusage is plain integers, for which all zeroes is a value.
        let mut used: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: both pointers are to locals that live across the call.
        let got = unsafe { libc::wait4(pid, &mut status, 0, &mut used) };
        if got == pid {
            let used = usage::of_rusage(&used);
            let _ = writeln!(lifeline, "ended {} {}", used.max_rss_kib, used.cpu_ns);
            // What it left running would be init's once the guard ends.
            kill_tree(std::process::id() as libc::pid_t, false);
            break;
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            std::process::exit(1);
        }
    }
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // SAFETY: setrlimit, signal, sigprocmask and raise take plain values or pointers
        // to locals; the process is to end by this signal, as the solver did.
        unsafe {
            // Its core, if any, was the solver's to dump, not a copy of sudoku-bench's.
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            libc::signal(signal, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::raise(signal);
        }
        // A signal whose default is not to end a process: the shell's way to say it.
        std::process::exit(128 + signal);
    }
    std::process::exit(libc::WEXITSTATUS(status));
}
