//! `run --measure instructions`: the run started again under Valgrind's callgrind, whose
//! solves then count their instructions ([`sudoku_bench::valgrind`]); this process waits
//! for it and exits as it did.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicI32, Ordering};

use anyhow::{bail, Context};
use sudoku_bench::results::Metric;
use sudoku_bench::valgrind;

use super::exit::Exit;

/// The process the relaunched run is, while it runs, for the signal handlers; and a
/// signal that came before it was started, to pass on then.
static CHILD: AtomicI32 = AtomicI32::new(0);
static EARLY: AtomicI32 = AtomicI32::new(0);

/// Whether this process must start the run again under Valgrind to count it: asked to
/// count and not counting yet. Refuses a process told to count that Valgrind does not run
/// (the variable set by hand, or a Valgrind that did not trace this process).
pub fn relaunch_needed(metric: Metric) -> anyhow::Result<bool> {
    if metric == Metric::Time {
        return Ok(false);
    }
    let told = std::env::var_os(valgrind::OUT_DIR).is_some();
    match (told, valgrind::running_on_valgrind()) {
        (true, true) => Ok(false),
        (false, _) => Ok(true),
        (true, false) => bail!(
            "--measure instructions: {} is set but this process is not under Valgrind: \
             unset it, and sudoku-bench starts Valgrind itself",
            valgrind::OUT_DIR
        ),
    }
}

/// Start this command again under callgrind, wait for it, and exit as it did. Its files
/// go to a new directory of their own, removed after.
pub fn relaunch() -> anyhow::Result<Exit> {
    let missing = || {
        anyhow::anyhow!(
            "--measure instructions needs Valgrind, which was not found on PATH: install it \
             (Debian and Ubuntu: `apt-get install valgrind`)"
        )
    };
    let valgrind = valgrind::on_path("valgrind").ok_or_else(missing)?;
    let found = Command::new(&valgrind).arg("--version").output();
    if !found.as_ref().is_ok_and(|o| o.status.success()) {
        return Err(missing());
    }
    let exe = std::env::current_exe().context("--measure instructions: finding this program")?;
    let dir = new_directory()?;
    let status = run_child(&valgrind, &exe, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let status = status?;
    Ok(match (status.code(), status.signal()) {
        (Some(0), _) => Exit::Success,
        (Some(1), _) => Exit::Failure,
        (Some(code), _) if code > 128 => Exit::Stopped((code - 128) as usize),
        (None, Some(signal)) => Exit::Stopped(signal as usize),
        _ => Exit::Error,
    })
}

/// A directory that did not exist, made for this run alone (mkdtemp), in the temporary one.
fn new_directory() -> anyhow::Result<PathBuf> {
    let template = std::env::temp_dir().join("sudoku-bench-callgrind-XXXXXX");
    let mut bytes = template.into_os_string().into_vec();
    bytes.push(0);
    // SAFETY: a NUL-terminated, writable template; mkdtemp fills in its X's.
    let made = unsafe { libc::mkdtemp(bytes.as_mut_ptr().cast()) };
    if made.is_null() {
        return Err(std::io::Error::last_os_error())
            .context("--measure instructions: making a directory for callgrind's files");
    }
    bytes.pop();
    Ok(PathBuf::from(OsString::from_vec(bytes)))
}

fn run_child(
    valgrind: &std::path::Path,
    exe: &PathBuf,
    dir: &std::path::Path,
) -> anyhow::Result<std::process::ExitStatus> {
    let mut out_file = OsString::from("--callgrind-out-file=");
    out_file.push(dir.join(valgrind::OUT_FILE));
    // A `cmd:` solver's copy is started under a callgrind of its own (`valgrind::VALGRIND`),
    // which cannot run under this one.
    let mut skip = OsString::from("--trace-children-skip=");
    skip.push(valgrind);
    let mut command = Command::new(valgrind);
    command
        .args([
            "--tool=callgrind",
            "-q",
            // Nothing is counted but the solves, each turned on and off by the solve.
            "--collect-atstart=no",
            // A thread's dump holds its own solve, not another thread's work meanwhile.
            "--separate-threads=yes",
            "--combine-dumps=yes",
            // Isolated `lib:` workers are this program again, and count their calls.
            "--trace-children=yes",
        ])
        .arg(out_file)
        .arg(skip)
        .arg(exe)
        .args(std::env::args_os().skip(1))
        .env(valgrind::OUT_DIR, dir)
        .env(valgrind::VALGRIND, valgrind);
    // In a process group of its own, the run gets each signal once, from here: one sent to
    // this process's group (a terminal's Ctrl-C, `timeout`, a CI job cancelled) would
    // otherwise reach it twice, and a second signal ends a run at once. Not when it may read
    // a terminal (`-` as the corpus), which a process outside the foreground group cannot.
    // SAFETY: isatty on descriptor 0.
    let own_group = unsafe { libc::isatty(0) } == 0;
    // SAFETY: setpgid and prctl with integer arguments, async-signal-safe, between fork and
    // exec.
    unsafe {
        command.pre_exec(move || {
            if own_group {
                libc::setpgid(0, 0);
            }
            // Ended with this process, were it killed outright.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
        // SAFETY: the handler only uses atomics and kill, both async-signal-safe.
        unsafe {
            signal_hook_registry::register_sigaction(signal, move |info: &libc::siginfo_t| {
                // In the same group, the terminal's signal reached the run already.
                if !own_group && info.si_code == libc::SI_KERNEL {
                    return;
                }
                match CHILD.load(Ordering::SeqCst) {
                    0 => EARLY.store(signal, Ordering::SeqCst),
                    pid => {
                        libc::kill(pid, signal);
                    }
                }
            })
        }
        .context("--measure instructions: installing a signal handler")?;
    }
    let mut child = command
        .spawn()
        .context("--measure instructions: starting valgrind")?;
    CHILD.store(child.id() as i32, Ordering::SeqCst);
    let early = EARLY.swap(0, Ordering::SeqCst);
    if early != 0 {
        // SAFETY: kill with the child's id and a signal number.
        unsafe { libc::kill(child.id() as i32, early) };
    }
    child
        .wait()
        .context("--measure instructions: waiting for valgrind")
}
