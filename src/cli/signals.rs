//! SIGINT, SIGTERM, SIGHUP (the terminal closed) and SIGQUIT (`Ctrl-\`) for the long
//! commands (`run`, `filter`, `check`, `generate`): each is a request to stop, and left to
//! its default action SIGHUP and SIGQUIT would end the process mid-write. The first asks
//! the work to stop (the command writes what it finished, whole, says so, and exits with
//! `Exit::Stopped`: 128 + the signal); a second exits at once with its own such status.
//! The commands whose outputs are all or nothing (`report`, `compare`, `merge`: each file
//! staged, see `outputs`) have nothing finished to keep: for them the first signal removes
//! the temporary files and exits at once ([`all_or_nothing`]).
//!
//! A signal counts only when it comes from outside the run: one sent by a process the run
//! started (a solver's, which may signal its parent) is ignored and said ([`install`]).
//!
//! signal-hook (and its registry, for the sender of a signal) rather than hand-written
//! `sigaction` calls: it chains handlers with any already installed and restores `errno`
//! around them; the handlers themselves only store and send, which is async-signal-safe.

use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::net::{UnixDatagram, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use anyhow::Context;
use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use signal_hook::flag;
use signal_hook::low_level::pipe;
use sudoku_bench::interrupt::Stop;

use super::exit::Exit;

/// The flag `install` made: the handlers are the process's, and so is what they set.
static INSTALLED: OnceLock<Stop> = OnceLock::new();

/// The signals that stop a command, answered alike.
const STOPPING: [i32; 4] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT];

/// How the handlers tell the thread that answers signals of one: its number, how it was
/// sent (`si_code`) and by which process (`si_pid`), 4 bytes each.
const RECORD: usize = 12;

/// Install the handlers; the returned flag is set by the first signal from outside the
/// run, to its number. `stopping` is what the command does then (what it finishes, what
/// it writes), said at once when the first signal comes.
///
/// A signal sent by one of the run's own processes (a solver's: `kill(getppid(),
/// SIGINT)`) is not the user's: it is ignored, and said once per solver. So the handlers
/// only pass each signal, with its sender, to a thread that tells where it came from (a
/// handler may not read `/proc`) and stops the command, or ends it on the second.
pub fn install(stopping: String) -> anyhow::Result<Stop> {
    let stop = INSTALLED.get_or_init(Stop::default).clone();
    let (heard, tell) = UnixDatagram::pair().context("cannot make the signals' socket")?;
    // A handler must never wait: a record that does not fit is dropped (see below).
    tell.set_nonblocking(true)
        .context("cannot make the signals' socket")?;
    let (say, said) = std::sync::mpsc::channel::<String>();
    // Saying is a thread of its own: a stderr that blocks must not keep the second signal
    // from ending the command.
    std::thread::Builder::new()
        .name("signal-say".into())
        .spawn(move || said.iter().for_each(|line| stderr_line!("\n{line}")))
        .context("cannot start the thread that answers signals")?;
    let answering = stop.clone();
    // Started before the handlers: a signal caught with nobody to answer it would be lost.
    std::thread::Builder::new()
        .name("signal-watch".into())
        .spawn(move || answer(&heard, &answering, &stopping, &say))
        .context("cannot start the thread that answers signals")?;
    // One descriptor for all the handlers: a command run under a tight `ulimit -n` needs
    // its descriptors for its work.
    let tell = Arc::new(tell);
    for signal in STOPPING {
        let tell = Arc::clone(&tell);
        let cell = stop.cell();
        let handler = move |info: &libc::siginfo_t| {
            // SAFETY: si_pid reads the union as the kernel filled it for this signal.
            let pid = unsafe { info.si_pid() };
            let code = info.si_code;
            let mut record = [0u8; RECORD];
            record[..4].copy_from_slice(&signal.to_ne_bytes());
            record[4..8].copy_from_slice(&code.to_ne_bytes());
            record[8..].copy_from_slice(&pid.to_ne_bytes());
            // SAFETY: send(2) is async-signal-safe; the buffer is a local.
            let sent = unsafe {
                libc::send(
                    tell.as_raw_fd(),
                    record.as_ptr().cast(),
                    RECORD,
                    libc::MSG_DONTWAIT,
                )
            };
            // A socket full of signals (a solver sending them in a loop): one that no
            // process sent (the terminal's Ctrl-C) still stops the command.
            if sent != RECORD as isize && from_no_process(code, pid) {
                cell.store(signal as usize, Ordering::Relaxed);
            }
        };
        // SAFETY: the handler makes only async-signal-safe calls (send) and stores, on
        // values it owns, and does not allocate.
        unsafe { signal_hook_registry::register_sigaction(signal, handler) }
            .with_context(|| format!("cannot handle signal {}", name(signal as usize)))?;
    }
    Ok(stop)
}

/// Whether a signal sent so (`si_code`, `si_pid`) came from no process: the kernel's,
/// such as the terminal's Ctrl-C, whose code is positive and sender 0.
fn from_no_process(code: i32, pid: libc::pid_t) -> bool {
    code > 0 || pid <= 0
}

/// The process that sent a signal so, when it is one of the run's own (its solver, if
/// known); `None` for the user's (the terminal, a shell's `kill`, a scheduler).
fn sent_by_the_run(code: i32, pid: libc::pid_t) -> Option<Option<String>> {
    if from_no_process(code, pid) {
        return None;
    }
    sudoku_bench::foreign::started::descendant(pid)
}

/// Answer the signals the handlers pass through `heard`: the first from outside the run
/// stops the command (said through `say`, with `stopping`), a second ends it at once;
/// one from the run's own processes is ignored, said once per solver.
fn answer(heard: &UnixDatagram, stop: &Stop, stopping: &str, say: &Sender<String>) {
    let mut warned = std::collections::BTreeSet::new();
    let mut record = [0u8; RECORD];
    loop {
        match heard.recv(&mut record) {
            Ok(RECORD) => {}
            Ok(_) => continue,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
        let word = |i: usize| i32::from_ne_bytes(record[i..i + 4].try_into().unwrap());
        let (signal, code, pid) = (word(0), word(4), word(8));
        match sent_by_the_run(code, pid) {
            Some(solver) => {
                if warned.insert(solver.clone()) {
                    let _ = say.send(ignored(signal as usize, pid, solver.as_deref()));
                }
            }
            None if stop.requested() => {
                // SAFETY: _exit(2) ends the process at once, as the second signal asks:
                // the work in flight is lost, which the first signal's message said.
                unsafe { libc::_exit(i32::from(Exit::Stopped(signal as usize).code())) };
            }
            None => {
                stop.request(signal as usize);
                let _ = say.send(acknowledgement(stop.cause(), stopping));
            }
        }
    }
}

/// What is said of `signal`, sent by the run's own process `pid`, below the solver
/// `solver`'s processes if known.
fn ignored(signal: usize, pid: libc::pid_t, solver: Option<&str>) -> String {
    let who = match solver {
        Some(solver) => format!("the solver {solver} (its process {pid})"),
        None => format!("process {pid}, which sudoku-bench started"),
    };
    format!(
        "warning: {who} sent {} to sudoku-bench: ignored (said once per solver); only a \
         signal from outside the run (Ctrl-C, kill, a scheduler) stops it",
        name(signal)
    )
}

/// The signal that asked the command to stop, once the handlers are installed and one
/// came: for code that waits where the command's own stop cannot reach it (opening an
/// output FIFO no process reads yet).
pub fn stopped() -> Option<usize> {
    INSTALLED.get().and_then(Stop::cause)
}

/// What the first `signal` is answered with: the command's `stopping`, and how to quit
/// at once.
fn acknowledgement(signal: Option<usize>, stopping: &str) -> String {
    let (heard, again) = match signal.map(|s| s as i32) {
        Some(SIGINT) => ("SIGINT".to_string(), "press Ctrl-C again".to_string()),
        Some(signal) => {
            let name = name(signal as usize);
            (name.clone(), format!("send {name} again"))
        }
        None => ("a signal".to_string(), "send it again".to_string()),
    };
    format!("{heard}: {stopping}; {again} to quit now, losing the work in flight")
}

/// How a command that solves stops: after the current puzzles, then `then`; with a solver
/// from outside (`outside`), which may take longer than a built-in one, saying how long
/// (`timeout`: its `--timeout`, None when no time limit applies).
pub fn stopping(then: &str, outside: bool, timeout: Option<Duration>) -> String {
    let wait = match (outside, timeout) {
        (false, _) => String::new(),
        (true, Some(limit)) => format!(
            " (a solver from outside may take up to its --timeout, {})",
            humantime::format_duration(limit)
        ),
        (true, None) => " (a solver from outside has no time limit here)".to_string(),
    };
    format!("stopping after the current puzzles{wait}, then {then}")
}

/// The temporary files of the staged outputs that exist (made, not yet renamed into place
/// nor removed), for the signal that ends an all-or-nothing command to remove. Whoever
/// makes, renames or removes one holds the lock throughout, and so does that signal, until
/// the process ends: no file is made after it removed the others, and renames it comes
/// during are finished first (never a new file beside an old one, nor neither).
static TEMPORARY: Mutex<Temporary> = Mutex::new(Temporary {
    files: Vec::new(),
    placed: false,
});

/// What [`TEMPORARY`] holds.
struct Temporary {
    files: Vec<PathBuf>,
    /// An output was renamed into place: a signal now finds the outputs whole.
    placed: bool,
}

fn temporary() -> MutexGuard<'static, Temporary> {
    // A thread that panicked holding it left the list whole: each change is one push or
    // one removal.
    TEMPORARY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Make a staged output's temporary file `temp` (with `make`), which a signal that ends the
/// command then removes; a file `make` did not make is not.
pub fn provisional<T>(temp: &Path, make: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
    let mut temporary = temporary();
    let made = make()?;
    temporary.files.push(temp.to_path_buf());
    Ok(made)
}

/// Remove the temporary file `temp` (the output it was for is given up).
pub fn discard(temp: &Path) -> io::Result<()> {
    let mut temporary = temporary();
    temporary.files.retain(|f| f != temp);
    std::fs::remove_file(temp)
}

/// Rename temporary files into place, with no signal answered between the first and the
/// last: the lock is held from here until this is dropped.
pub struct Placing(MutexGuard<'static, Temporary>);

/// Start putting outputs in place (see [`Placing`]).
pub fn placing() -> Placing {
    Placing(temporary())
}

impl Placing {
    /// Rename `temp` to `target`: from then on it is no temporary file to remove.
    pub fn rename(&mut self, temp: &Path, target: &Path) -> io::Result<()> {
        std::fs::rename(temp, target)?;
        self.0.files.retain(|f| f != temp);
        self.0.placed = true;
        Ok(())
    }
}

/// Install the handlers of a command whose outputs are all or nothing (`command`, its name
/// for the message): the first of the [`STOPPING`] signals removes the staged outputs' temporary
/// files, says so, and exits at once with 128 + the signal. Done by a thread the handlers wake
/// (they may only store a number and write a byte); one that comes as outputs are being
/// renamed into place waits for that to end, and exits then (they are whole).
pub fn all_or_nothing(command: &'static str) -> anyhow::Result<()> {
    let heard = Arc::new(AtomicUsize::new(0));
    let (mut woken, wake) = UnixStream::pair().context("cannot make the signals' pipe")?;
    let signal = Arc::clone(&heard);
    let watch = move || {
        // `read_exact` goes on after a read interrupted by the signal itself.
        if woken.read_exact(&mut [0u8]).is_err() {
            return;
        }
        let signal = signal.load(Ordering::SeqCst);
        // Held until the process ends: nothing is made or renamed after this.
        let temporary = temporary();
        for file in &temporary.files {
            // Best effort: there is nobody left to tell of a file that stays.
            let _ = std::fs::remove_file(file);
        }
        stderr_line!(
            "\n{}",
            all_or_nothing_stopped(command, signal, temporary.placed)
        );
        std::process::exit(i32::from(Exit::Stopped(signal).code()));
    };
    // Started before the handlers: a signal caught with nobody to answer it would be lost.
    std::thread::Builder::new()
        .name("signal-watch".into())
        .spawn(watch)
        .context("cannot start the thread that answers signals")?;
    for signal in STOPPING {
        // The order matters: the number is stored before the byte that wakes the thread.
        flag::register_usize(signal, Arc::clone(&heard), signal as usize)
            .and_then(|_| pipe::register(signal, wake.try_clone()?))
            .with_context(|| format!("cannot handle signal {}", name(signal as usize)))?;
    }
    Ok(())
}

/// What an all-or-nothing `command` says as `signal` ends it, its outputs `placed` or not.
fn all_or_nothing_stopped(command: &str, signal: usize, placed: bool) -> String {
    let signal = name(signal);
    if placed {
        format!("{command}: interrupted by {signal} once its outputs were in place, whole")
    } else {
        format!(
            "{command}: interrupted by {signal} before its outputs were whole: no file made \
             or replaced"
        )
    }
}

/// A signal's name, for messages.
pub fn name(signal: usize) -> String {
    match signal as i32 {
        SIGINT => "SIGINT".to_string(),
        SIGTERM => "SIGTERM".to_string(),
        SIGHUP => "SIGHUP".to_string(),
        SIGQUIT => "SIGQUIT".to_string(),
        _ => format!("signal {signal}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_signal_is_answered_with_what_happens_and_how_to_quit_now() {
        let run = stopping(
            "writing the rows of those solved",
            true,
            Some(Duration::from_secs(10)),
        );
        assert_eq!(
            acknowledgement(Some(SIGINT as usize), &run),
            "SIGINT: stopping after the current puzzles (a solver from outside may take up \
             to its --timeout, 10s), then writing the rows of those solved; press Ctrl-C again to \
             quit now, losing the work in flight"
        );
        let filter = stopping("writing the lines classified", false, None);
        assert_eq!(
            acknowledgement(Some(SIGTERM as usize), &filter),
            "SIGTERM: stopping after the current puzzles, then writing the lines classified; \
             send SIGTERM again to quit now, losing the work in flight"
        );
        assert!(stopping("x", true, None).contains("has no time limit here"));
    }

    /// The watcher that a signal wakes takes the list's lock before it removes anything: one
    /// that comes while outputs are being put in place waits for them all, then finds none
    /// left to remove and says they are whole.
    #[test]
    fn outputs_being_put_in_place_are_all_put_there_before_a_signal_is_answered() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        for temp in [".a.tmp", ".b.tmp"] {
            provisional(&path(temp), || std::fs::File::create(path(temp))).unwrap();
        }
        let mut placing = placing();
        assert!(
            matches!(
                TEMPORARY.try_lock(),
                Err(std::sync::TryLockError::WouldBlock)
            ),
            "a signal would not wait"
        );
        placing.rename(&path(".a.tmp"), &path("a")).unwrap();
        placing.rename(&path(".b.tmp"), &path("b")).unwrap();
        drop(placing);
        let temporary = temporary();
        assert!(temporary.files.is_empty() && temporary.placed);
        assert!(path("a").is_file() && path("b").is_file());
        assert_eq!(
            all_or_nothing_stopped("merge", SIGTERM as usize, temporary.placed),
            "merge: interrupted by SIGTERM once its outputs were in place, whole"
        );
    }
}
