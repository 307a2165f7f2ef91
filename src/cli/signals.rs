//! SIGINT and SIGTERM for the long commands (`run`, `filter`, `check`, `generate`): the
//! first asks the work to stop (the command writes what it finished, whole, says so, and
//! exits with `Exit::Stopped`: 130 or 143); a second exits at once with its own such status.
//!
//! signal-hook rather than a hand-written `sigaction` handler: it registers handlers that
//! only do async-signal-safe stores, chains them with any already installed, and gives the
//! "second signal exits at once" behaviour (`register_conditional_shutdown`) ready-made;
//! written by hand that needs `unsafe` code that is easy to get subtly wrong.

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use anyhow::Context;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;
use signal_hook::low_level::pipe;
use sudoku_bench::interrupt::Stop;

use super::exit::Exit;

/// The flag `install` made: the handlers are the process's, and so is what they set.
static INSTALLED: OnceLock<Stop> = OnceLock::new();

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
    for signal in [SIGINT, SIGTERM] {
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

/// A signal's name, for messages.
pub fn name(signal: usize) -> String {
    match signal as i32 {
        SIGINT => "SIGINT".to_string(),
        SIGTERM => "SIGTERM".to_string(),
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
}
