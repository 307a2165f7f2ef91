//! One running copy of a command: its pipes, an exchange of one line each way under a
//! deadline, and its end.
//!
//! Reads and writes wait with `poll(2)` on the pipe, so a deadline needs no helper thread.
//! Each copy runs in its own process group, so that the terminal's Ctrl-C reaches only
//! sudoku-bench (which stops between tasks and then drops its solvers), and a kill takes
//! the solver with any process it started.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::answer::quote;

/// The longest answer line read: past it the solver is writing something else.
const MAX_LINE: usize = 4096;

/// A running copy of the command, with its pipes.
pub(super) struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// Bytes read and not yet taken as an answer.
    buf: Vec<u8>,
    /// Set once it has been killed and reaped.
    ended: Option<io::Result<ExitStatus>>,
}

/// Why an exchange did not bring back a line.
pub(super) enum Fault {
    /// Nothing came before the deadline.
    Timeout,
    /// It closed its end of a pipe: it exited (or is exiting).
    Closed,
    /// Anything else, said for the row's `error`.
    Bad(String),
}

impl Process {
    /// Start `program` with `args`, its stdin and stdout piped to us, its stderr ours.
    pub(super) fn start(program: &str, args: &[String]) -> io::Result<Process> {
        let mut command = std::process::Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0);
        #[cfg(target_os = "linux")]
        die_with_parent(&mut command);
        let mut child = command.spawn()?;
        let pipes = (child.stdin.take(), child.stdout.take());
        let (Some(stdin), Some(stdout)) = pipes else {
            let _ = child.kill().and_then(|()| child.wait());
            return Err(io::Error::other("its stdin and stdout could not be piped"));
        };
        let mut process = Process {
            child,
            stdin,
            stdout,
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

    /// The operating system's number for it.
    #[cfg(test)]
    pub(super) fn id(&self) -> u32 {
        self.child.id()
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
        // was not asked for. (One that comes only once this request is out cannot be
        // told from its answer: the protocol has no request ids.)
        if self.buf.is_empty() && readable_now(self.stdout.as_raw_fd()) {
            let mut bytes = [0u8; 512];
            if let Ok(n) = self.stdout.read(&mut bytes) {
                self.buf.extend_from_slice(&bytes[..n]);
            }
        }
        if !self.buf.is_empty() {
            return Err(Fault::Bad(format!(
                "wrote {} before being asked",
                quote(&self.buf)
            )));
        }
        let mut rest = request;
        while !rest.is_empty() {
            match self.stdin.write(rest) {
                Ok(0) => return Err(Fault::Closed),
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait_for(self.stdin.as_raw_fd(), libc::POLLOUT, deadline)?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(Fault::Closed),
                Err(e) => return Err(Fault::Bad(format!("cannot be written to: {e}"))),
            }
        }
        let mut scan_from = 0;
        loop {
            if let Some(end) = memchr::memchr(b'\n', &self.buf[scan_from..]) {
                let end = scan_from + end;
                let line: Vec<u8> = self.buf.drain(..=end).collect();
                if !self.buf.is_empty() {
                    return Err(Fault::Bad(format!(
                        "answered {} and then {}: one line per puzzle",
                        quote(&line),
                        quote(&self.buf)
                    )));
                }
                return Ok(line);
            }
            if self.buf.len() > MAX_LINE {
                return Err(Fault::Bad(format!(
                    "wrote {} bytes without ending the line: {}",
                    self.buf.len(),
                    quote(&self.buf)
                )));
            }
            scan_from = self.buf.len();
            wait_for(self.stdout.as_raw_fd(), libc::POLLIN, deadline)?;
            let mut bytes = [0u8; 512];
            match self.stdout.read(&mut bytes) {
                Ok(0) if self.buf.is_empty() => return Err(Fault::Closed),
                Ok(0) => {
                    let said = quote(&self.buf);
                    let how = ended(self.end());
                    return Err(Fault::Bad(format!(
                        "wrote {said} and {how} without ending the line"
                    )));
                }
                Ok(n) => self.buf.extend_from_slice(&bytes[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Fault::Bad(format!("cannot be read from: {e}"))),
            }
        }
    }

    /// Kill it with every process of its group, and reap it; how it ended. Killing a
    /// process that has exited already changes nothing: its own exit status is kept.
    pub(super) fn end(&mut self) -> &io::Result<ExitStatus> {
        if self.ended.is_none() {
            // Only before reaping: until then its pid, and so its group's id, cannot be
            // given to another process.
            if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
                // SAFETY: kill(2) takes plain integers and touches no memory of ours.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
            }
            self.ended = Some(self.child.wait());
        }
        self.ended.as_ref().expect("set above")
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.end();
    }
}

/// Have the solver killed if sudoku-bench dies without dropping it (a second Ctrl-C exits
/// at once): in a process group of its own, a solver that hangs would otherwise outlive
/// it. Linux sends the signal when the thread that started the solver ends: a runner's
/// workers, which outlive their solvers.
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut std::process::Command) {
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

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl(2) on a descriptor we own, with integer arguments only.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
