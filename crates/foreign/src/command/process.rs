//! One running copy of a command: its pipes, an exchange of one line each way under a
//! deadline, and its end.
//!
//! Reads and writes wait with `poll(2)` on the pipe, so a deadline needs no helper thread.
//! Each copy runs in its own process group, so that the terminal's Ctrl-C reaches only
//! sudoku-bench (which stops between tasks and then drops its solvers), and a kill takes
//! the solver with any process it started.
//!
//! Where the running program serves roles ([`role::serves_roles`]), a copy is started
//! through a guard ([`super::guard`]): a copy of sudoku-bench that leads the group, starts
//! the solver in it with our pipes as its stdin and stdout, and kills the group when
//! sudoku-bench goes away by any road (a second Ctrl-C, `kill -9`, an exit that skips
//! destructors), which no code of ours in this process can see. Elsewhere (a test
//! harness) the solver is started directly, dying with us through `PR_SET_PDEATHSIG`, which
//! reaches it but not what it started.

use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStdin, ChildStdout, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::answer::quote;
use super::guard;
#[cfg(target_os = "linux")]
use crate::os::{adopt_orphans, die_with_parent, limit_memory};
use crate::os::{exits_within, set_nonblocking};
use crate::role;
use crate::usage;
use sudoku_bench_core::strategy::Usage;

/// The longest answer line read: past it the solver is writing something else.
pub(super) const MAX_LINE: usize = 4096;

/// How long a copy that closed its stdout is given to exit by itself before it is killed:
/// so that its row says how it ended rather than that we killed it.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// A running copy of the command, with its pipes.
pub(super) struct Process {
    /// Our child: the solver, or its guard.
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// The solver's own process id (under a guard, the process the guard started).
    solver: u32,
    /// Under a guard, our end of its lifeline: while it is open the guard waits, and once
    /// it closes (this process gone, whatever way) the guard kills the group.
    guard: Option<UnixStream>,
    /// Bytes read and not yet taken as an answer.
    buf: Vec<u8>,
    /// Set once it has been killed and reaped.
    ended: Option<Ended>,
}

/// How a copy ended and what it used.
struct Ended {
    status: io::Result<ExitStatus>,
    usage: Usage,
}

/// Why an exchange did not bring back a line.
pub(super) enum Fault {
    /// Nothing came before the deadline.
    Timeout,
    /// It closed its end of a pipe (it exited, or is exiting); what it wrote of an
    /// unfinished line, if anything.
    Closed(Option<String>),
    /// There was output before the request was written: not asked for, so every answer
    /// read since the last time the copy was known to be in step may be another's.
    Unasked(String),
    /// Anything else, said for the row's `error`.
    Bad(String),
}

impl Process {
    /// Start `program` with `args`, its stdin and stdout piped to us, its stderr ours, its
    /// address space bounded to `memory_limit` bytes; under Valgrind when this process
    /// counts instructions ([`sudoku_bench_core::valgrind::command_prefix`]).
    pub(super) fn start(
        solver: &Arc<str>,
        program: &str,
        args: &[String],
        memory_limit: Option<u64>,
    ) -> io::Result<Process> {
        let (program, args): (OsString, Vec<OsString>) =
            match sudoku_bench_core::valgrind::command_prefix() {
                Some((valgrind, mut prefix)) => {
                    sudoku_bench_core::valgrind::command_found(program)?;
                    prefix.push(program.into());
                    prefix.extend(args.iter().map(OsString::from));
                    (valgrind.into_os_string(), prefix)
                }
                None => (program.into(), args.iter().map(OsString::from).collect()),
            };
        #[cfg(target_os = "linux")]
        if role::serves_roles() {
            return Process::start_guarded(solver, &program, &args, memory_limit);
        }
        let mut command = std::process::Command::new(program);
        command.args(args);
        #[cfg(target_os = "linux")]
        die_with_parent(&mut command);
        Process::spawn(solver, command, memory_limit)
    }

    /// Start the guard that starts `program`; it says over its lifeline the solver's
    /// process id, or why it could not start it.
    #[cfg(target_os = "linux")]
    fn start_guarded(
        solver: &Arc<str>,
        program: &OsStr,
        args: &[OsString],
        memory_limit: Option<u64>,
    ) -> io::Result<Process> {
        let (mut ours, theirs) = UnixStream::pair()?;
        let mut command = std::process::Command::new(role::program()?);
        command
            .env(role::ROLE_VAR, guard::ROLE)
            .arg(role::ROLE_ARG)
            .arg(program)
            .args(args);
        guard::pass_lifeline(&mut command, theirs.as_raw_fd());
        // The guard bounds the solver it starts, not itself.
        if let Some(bytes) = memory_limit {
            command.env(guard::MEMORY_LIMIT_VAR, bytes.to_string());
        }
        let spawned = Process::spawn(solver, command, None);
        // Only the guard may hold its end: its report must end when the guard does.
        drop(theirs);
        let mut process = spawned?;
        match guard::read_report(&mut ours) {
            Ok(solver) => {
                process.solver = solver;
                process.guard = Some(ours);
                Ok(process)
            }
            Err(e) => {
                process.end();
                Err(e)
            }
        }
    }

    fn spawn(
        solver: &Arc<str>,
        mut command: std::process::Command,
        memory_limit: Option<u64>,
    ) -> io::Result<Process> {
        if let Some(bytes) = memory_limit {
            limit_memory(&mut command, bytes);
        }
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0);
        #[cfg(target_os = "linux")]
        adopt_orphans(&mut command);
        let mut child = command.spawn()?;
        if let Ok(pid) = libc::pid_t::try_from(child.id()) {
            crate::started::record(pid, solver);
        }
        let pipes = (child.stdin.take(), child.stdout.take());
        let (Some(stdin), Some(stdout)) = pipes else {
            kill_group(&child);
            let _ = reap(&child);
            return Err(io::Error::other("its stdin and stdout could not be piped"));
        };
        let solver = child.id();
        let mut process = Process {
            child,
            stdin,
            stdout,
            solver,
            guard: None,
            buf: Vec::with_capacity(256),
            ended: None,
        };
        // A write that would block must wait in `poll`, under the deadline: a solver
        // that answers without reading fills the pipe.
        set_nonblocking(process.stdin.as_raw_fd()).inspect_err(|_| {
            process.end();
        })?;
        Ok(process)
    }

    /// The operating system's number for the solver (not its guard).
    pub(super) fn id(&self) -> u32 {
        self.solver
    }

    /// Send `request` and read one line back, all within `timeout` (`None`: no bound).
    pub(super) fn exchange(
        &mut self,
        request: &[u8],
        timeout: Option<Duration>,
    ) -> Result<Vec<u8>, Fault> {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        // A line sent after the last answer, unasked, would be read as this request's
        // answer, and every answer after it as the one before's: whatever waits already
        // was not asked for. One that comes only once this request is out cannot be told
        // from its answer here: request ids, or the check that ends a batch, catch it.
        self.take_unasked()?;
        let mut rest = request;
        while !rest.is_empty() {
            match self.stdin.write(rest) {
                Ok(0) => return Err(Fault::Closed(None)),
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait_for(self.stdin.as_raw_fd(), libc::POLLOUT, deadline)?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(Fault::Closed(None)),
                Err(e) => return Err(Fault::Bad(format!("cannot be written to: {e}"))),
            }
        }
        let mut scan_from = 0;
        loop {
            if let Some(end) = memchr::memchr(b'\n', &self.buf[scan_from..]) {
                let end = scan_from + end;
                let line: Vec<u8> = self.buf.drain(..=end).collect();
                if !self.buf.is_empty() {
                    return Err(Fault::Unasked(format!(
                        "answered {} and then {}: one line per puzzle",
                        quote(&line),
                        quote(&self.buf)
                    )));
                }
                return Ok(line);
            }
            if self.buf.len() > MAX_LINE {
                return Err(Fault::Bad(format!(
                    "wrote more than {MAX_LINE} bytes without ending the line (read no \
                     further): {}",
                    quote(&self.buf)
                )));
            }
            scan_from = self.buf.len();
            wait_for(self.stdout.as_raw_fd(), libc::POLLIN, deadline)?;
            let mut bytes = [0u8; 512];
            match self.stdout.read(&mut bytes) {
                Ok(0) if self.buf.is_empty() => return Err(Fault::Closed(None)),
                Ok(0) => return Err(Fault::Closed(Some(quote(&self.buf)))),
                Ok(n) => self.buf.extend_from_slice(&bytes[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Fault::Bad(format!("cannot be read from: {e}"))),
            }
        }
    }

    /// `Err` when output is waiting that no request asked for.
    pub(super) fn take_unasked(&mut self) -> Result<(), Fault> {
        if self.buf.is_empty() && readable_now(self.stdout.as_raw_fd()) {
            let mut bytes = [0u8; 512];
            if let Ok(n) = self.stdout.read(&mut bytes) {
                self.buf.extend_from_slice(&bytes[..n]);
            }
        }
        if self.buf.is_empty() {
            return Ok(());
        }
        Err(Fault::Unasked(format!(
            "wrote {} before being asked",
            quote(&self.buf)
        )))
    }

    /// How it ended, once it closed its stdout (`said`: what it wrote of an unfinished
    /// line), as the start of a sentence about the solver: its exit, when it exits
    /// within `CLOSE_GRACE`, else that it closed its stdout (it is then killed).
    pub(super) fn closed(&mut self, said: Option<&str>) -> String {
        let exited = self.ended.is_some() || exits_within(self.child.id(), CLOSE_GRACE);
        let how = ended(self.end());
        match (said, exited) {
            (None, true) => format!("{how} before answering"),
            (Some(said), true) => format!("wrote {said} and {how} without ending the line"),
            (None, false) => "closed its stdout before answering and did not exit (killed)".into(),
            (Some(said), false) => format!(
                "wrote {said} and closed its stdout without ending the line, and did not \
                 exit (killed)"
            ),
        }
    }

    /// Kill it with every process of its group, and reap it; how it ended. Killing a
    /// process that has exited already changes nothing: its own exit status is kept.
    pub(super) fn end(&mut self) -> &io::Result<ExitStatus> {
        let ended = match self.ended.take() {
            Some(ended) => ended,
            None => self.finish(),
        };
        &self.ended.insert(ended).status
    }

    fn finish(&mut self) -> Ended {
        // Read before the kill: a solver killed with its guard is reaped by no one we can
        // ask.
        let seen = usage::of_running(self.solver);
        kill_group(&self.child);
        let (status, reaped) = reap(&self.child);
        let usage = match self.guard.take() {
            // Directly our child: the kernel's count, its own reaped children included.
            None => reaped,
            // The guard's count would add the guard itself: the solver's own, as the
            // guard relayed it when it reaped the solver, else as last seen running.
            Some(mut lifeline) => guard::read_usage(&mut lifeline).or(seen).or(reaped),
        };
        Ended {
            status,
            usage: Usage {
                processes: 1,
                ..usage.unwrap_or_default()
            },
        }
    }

    /// What it used: up to now while it runs, in all once it has ended (without the
    /// count of processes, which the solver keeps).
    pub(super) fn usage(&self) -> Usage {
        match &self.ended {
            Some(ended) => ended.usage,
            None => Usage {
                processes: 1,
                ..usage::of_running(self.solver).unwrap_or_default()
            },
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.end();
    }
}

/// Kill `child` and every process below it: on Linux, whatever group or session they
/// moved to (it adopts those orphaned, see `os::kill_tree`); elsewhere, its process group
/// (it leads it).
fn kill_group(child: &Child) {
    // Only before reaping: until then its pid, and so its group's id, cannot be given to
    // another process.
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        #[cfg(target_os = "linux")]
        crate::os::kill_tree(pid, true);
        // SAFETY: kill(2) takes plain integers and touches no memory of ours.
        #[cfg(not(target_os = "linux"))]
        unsafe {
            libc::kill(-pid, libc::SIGKILL)
        };
    }
}

/// Reap `child`: its exit status and, from the kernel, what it used (its own reaped
/// children included). `wait4` rather than `Child::wait`, which drops the usage.
fn reap(child: &Child) -> (io::Result<ExitStatus>, Option<Usage>) {
    let Ok(pid) = libc::pid_t::try_from(child.id()) else {
        return (
            Err(io::Error::other("its process id is out of range")),
            None,
        );
    };
    loop {
        let mut status = 0;
        // SAFETY: rusage is plain integers, for which all zeroes is a value.
        let mut used: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: both pointers are to locals that live across the call.
        let got = unsafe { libc::wait4(pid, &mut status, 0, &mut used) };
        if got == pid {
            crate::started::reaped(pid);
            return (
                Ok(ExitStatus::from_raw(status)),
                Some(usage::of_rusage(&used)),
            );
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return (Err(e), None);
        }
    }
}

/// How a process ended, for a sentence: "exited (exit status: 3)".
pub(super) fn ended(how: &io::Result<ExitStatus>) -> String {
    match how {
        Ok(status) => format!("exited ({status})"),
        Err(e) => format!("exited (cannot tell how: {e})"),
    }
}

/// Wait until `fd` is ready for `events` (or hung up), or the deadline passes.
fn wait_for(fd: RawFd, events: libc::c_short, deadline: Option<Instant>) -> Result<(), Fault> {
    loop {
        let wait_ms = match deadline {
            None => -1,
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(Fault::Timeout);
                }
                // Rounded up, so that it never wakes just before the deadline and spins.
                libc::c_int::try_from(left.as_nanos().div_ceil(1_000_000))
                    .unwrap_or(libc::c_int::MAX)
            }
        };
        let mut poll = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: one valid pollfd, and the count says one.
        let ready = unsafe { libc::poll(&mut poll, 1, wait_ms) };
        if ready > 0 {
            // Ready, hung up or in error: the read or write that follows says which.
            return Ok(());
        }
        if ready < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(Fault::Bad(format!("cannot wait for it: {e}")));
            }
        }
    }
}

/// Whether `fd` has something to read (or is hung up) now, without waiting.
fn readable_now(fd: RawFd) -> bool {
    let mut poll = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, and the count says one.
    unsafe { libc::poll(&mut poll, 1, 0) > 0 }
}
