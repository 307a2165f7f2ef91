//! SIGINT and SIGTERM for the long commands (`run`, `filter`, `check`, `generate`): the
//! first asks the work to stop (the command writes what it finished, whole, says so, and
//! exits with `Exit::Stopped`: 130 or 143); a second exits at once with its own such status.
//!
//! signal-hook rather than a hand-written `sigaction` handler: it registers handlers that
//! only do async-signal-safe stores, chains them with any already installed, and gives the
//! "second signal exits at once" behaviour (`register_conditional_shutdown`) ready-made;
//! written by hand that needs `unsafe` code that is easy to get subtly wrong.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use anyhow::Context;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;
use sudoku_bench::interrupt::Stop;

use super::exit::Exit;

/// The flag `install` made: the handlers are the process's, and so is what they set.
static INSTALLED: OnceLock<Stop> = OnceLock::new();

/// Install the handlers; the returned flag is set by the first signal, to its number.
pub fn install() -> anyhow::Result<Stop> {
    let stop = INSTALLED.get_or_init(Stop::default).clone();
    // Set by the first signal: arms the exit on the next one.
    let armed = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // The order matters: the exit must be registered before the flag that arms it,
        // so that the first signal finds it unarmed.
        let status = i32::from(Exit::Stopped(signal as usize).code());
        flag::register_conditional_shutdown(signal, status, Arc::clone(&armed))
            .and_then(|_| flag::register(signal, Arc::clone(&armed)))
            .and_then(|_| flag::register_usize(signal, stop.cell(), signal as usize))
            .with_context(|| format!("cannot handle signal {}", name(signal as usize)))?;
    }
    say_when_stopping(stop.clone());
    Ok(stop)
}

/// The signal that asked the command to stop, once the handlers are installed and one
/// came: for code that waits where the command's own stop cannot reach it (opening an
/// output FIFO no process reads yet).
pub fn stopped() -> Option<usize> {
    INSTALLED.get().and_then(Stop::cause)
}

/// Say, once, that the first signal was heard: the work in flight is finished first
/// (with a solver from outside, up to --timeout), and a user who sees nothing would send
/// the second, which loses it. A thread that looks every tenth of a second: the handler
/// itself may only store a flag.
fn say_when_stopping(stop: Stop) {
    let watch = move || {
        while !stop.requested() {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let signal = stop.cause().map_or_else(|| "a signal".to_string(), name);
        eprintln!(
            "\n{signal}: stopping once the puzzles being solved are done (a solver from \
             outside may take up to --timeout); send it again to exit at once, losing them"
        );
    };
    // Without the thread only the message is missing.
    let _ = std::thread::Builder::new()
        .name("signal-watch".into())
        .spawn(watch);
}

/// A signal's name, for messages.
pub fn name(signal: usize) -> String {
    match signal as i32 {
        SIGINT => "SIGINT".to_string(),
        SIGTERM => "SIGTERM".to_string(),
        _ => format!("signal {signal}"),
    }
}
