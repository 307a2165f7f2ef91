//! SIGINT, SIGTERM, SIGHUP (the terminal closed) and SIGQUIT (`Ctrl-\`) for the long
//! commands (`run`, `filter`, `check`, `generate`): each is a request to stop, and left to
//! its default action SIGHUP and SIGQUIT would end the process mid-write. The first asks
//! the work to stop (the command writes what it finished, whole, says so, and exits with
//! `Exit::Stopped`: 128 + the signal); a second exits at once with its own such status.
//! The commands whose outputs are all or nothing (`report`, `compare`, `merge`: each file
//! staged, see `outputs`) have nothing finished to keep: for them the first signal removes
//! the temporary files and exits at once ([`all_or_nothing`]).
//!
//! signal-hook rather than a hand-written `sigaction` handler: it registers handlers that
//! only do async-signal-safe stores, chains them with any already installed, and gives the
//! "second signal exits at once" behaviour (`register_conditional_shutdown`) ready-made;
//! written by hand that needs `unsafe` code that is easy to get subtly wrong.

use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

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

/// Install the handlers; the returned flag is set by the first signal, to its number.
/// `stopping` is what the command does then (what it finishes, what it writes), said at
/// once when the first signal comes.
pub fn install(stopping: String) -> anyhow::Result<Stop> {
    let stop = INSTALLED.get_or_init(Stop::default).clone();
    // Set by the first signal: arms the exit on the next one.
    let armed = Arc::new(AtomicBool::new(false));
    // Written by the handlers once the flags are set (in the order registered), to wake
    // the thread that says so.
    let (heard, wake) = UnixStream::pair().context("cannot make the signals' pipe")?;
    for signal in STOPPING {
        // The order matters: the exit must be registered before the flag that arms it,
        // so that the first signal finds it unarmed.
        let status = i32::from(Exit::Stopped(signal as usize).code());
        flag::register_conditional_shutdown(signal, status, Arc::clone(&armed))
            .and_then(|_| flag::register(signal, Arc::clone(&armed)))
            .and_then(|_| flag::register_usize(signal, stop.cell(), signal as usize))
            .and_then(|_| pipe::register(signal, wake.try_clone()?))
            .with_context(|| format!("cannot handle signal {}", name(signal as usize)))?;
    }
    say_when_stopping(heard, stop.clone(), stopping);
    Ok(stop)
}

/// The signal that asked the command to stop, once the handlers are installed and one
/// came: for code that waits where the command's own stop cannot reach it (opening an
/// output FIFO no process reads yet).
pub fn stopped() -> Option<usize> {
    INSTALLED.get().and_then(Stop::cause)
}

/// Say, once, as soon as the first signal comes, what the command does now: the work in
/// flight is finished first (a solve may take a while), and a user who sees nothing would
/// send the second signal, which loses it. A thread woken through `heard`: the handler
/// itself may only store a flag and write a byte.
fn say_when_stopping(mut heard: UnixStream, stop: Stop, stopping: String) {
    let watch = move || {
        // `read_exact` goes on after a read interrupted by the signal itself.
        if heard.read_exact(&mut [0u8]).is_err() {
            return;
        }
        eprintln!("\n{}", acknowledgement(stop.cause(), &stopping));
    };
    // Without the thread only the message is missing.
    let _ = std::thread::Builder::new()
        .name("signal-watch".into())
        .spawn(watch);
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
/// (`limit`: None when no time limit applies).
pub fn stopping(then: &str, outside: bool, limit: Option<&str>) -> String {
    let wait = match (outside, limit) {
        (false, _) => String::new(),
        (true, Some(limit)) => format!(" (a solver from outside may take up to {limit})"),
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
        eprintln!(
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
        let run = stopping("writing the rows of those solved", true, Some("--timeout"));
        assert_eq!(
            acknowledgement(Some(SIGINT as usize), &run),
            "SIGINT: stopping after the current puzzles (a solver from outside may take up \
             to --timeout), then writing the rows of those solved; press Ctrl-C again to \
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
