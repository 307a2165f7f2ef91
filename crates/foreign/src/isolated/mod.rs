//! `lib:` solvers in processes of their own: each worker thread's copy of the library lives
//! in a worker process (the executable started again in the `lib` role, see
//! [`crate::child`]), so that the library's globals are its own, and whatever it
//! does (crash, `exit()`, abort, loop forever, write past its buffer) ends only that
//! process, and fails only the puzzle it was solving.
//!
//! Puzzles go to the worker in batches through shared memory ([`shared`]); a request and
//! its reply are a few bytes over a pipe, once a batch. The worker times each call itself,
//! with the clock the harness times the built-in strategies with, so a puzzle's time holds
//! no pipe and no scheduling of this process. A worker that ends mid-batch, or that
//! spends longer than `--timeout` on one puzzle (it is then killed), fails that puzzle;
//! the batch goes on in a new worker, whose start-up is in no puzzle's time.

mod shared;
pub(crate) mod worker;

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use shared::{monotonic_ns, Shared, Slot, SLOTS};

use super::library::{read_answer, split_target, RawAnswer};
use super::os::{adopt_orphans, die_with_parent, exits_within, kill_tree};
use super::usage::of_rusage;
use super::{ForeignError, StartError};
use sudoku_bench_core::clock::{Clock, Cost};
use sudoku_bench_core::grid::Grid;
use sudoku_bench_core::strategy::{Abort, Limits, Outcome, Strategy, StrategyInfo, Usage};

/// The descriptors a worker finds its requests pipe, its replies pipe and the shared
/// memory on.
const REQUESTS_FD: RawFd = 3;
const RESPONSES_FD: RawFd = 4;
const SHARED_FD: RawFd = 5;

/// The guard page's size at least: a fault this far past the solution buffer is one of it.
const GUARD_BYTES: u64 = 4096;

/// How long a worker whose pipe closed is given to end by itself before it is killed:
/// so that it can say in the header what broke it.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// How long a worker may take to load its library and say it is ready.
const START_UP: Duration = Duration::from_secs(10);

/// The strategy `name`, solving with `target` (`PATH[:SYMBOL]`) and `configuration`, each
/// worker thread's copy in a process of its own, bounded to `memory_limit` bytes of
/// address space. One worker is started and ended here, so that a library that cannot be
/// loaded, or lacks the symbol, is refused before any puzzle is solved.
pub(crate) fn load(
    name: &str,
    target: &str,
    configuration: u32,
    memory_limit: Option<u64>,
) -> Result<StrategyInfo, ForeignError> {
    let (path, symbol) = split_target(target);
    let library = std::fs::canonicalize(path).map_err(|source| ForeignError::Missing {
        path: PathBuf::from(path),
        source,
    })?;
    if !super::role::serves_roles() {
        return Err(ForeignError::Worker {
            reason: "this program cannot start workers for lib: solvers: it must call \
                     sudoku_bench::foreign::child::serve_if_asked() first in main (or run \
                     the solver in-process)"
                .into(),
        });
    }
    let program = super::role::program().map_err(|source| ForeignError::Worker {
        reason: format!("cannot find the running executable to start workers from: {source}"),
    })?;
    let spec = Arc::new(WorkerSpec {
        solver: Arc::from(name),
        program,
        library,
        symbol: symbol.to_string(),
        configuration,
        memory_limit,
    });
    let mut probe = Worker::start(&spec).map_err(|e| ForeignError::Worker {
        reason: e.to_string(),
    })?;
    let _ = probe.end();
    let about = format!(
        "{symbol} from {}, through the C ABI, in a process per worker",
        spec.library.display()
    );
    Ok(StrategyInfo::new(name.to_string(), move || {
        Box::new(IsolatedSolver::new(Arc::clone(&spec)))
    })
    .about(about)
    .counts_guesses(true)
    .puzzles_per_task(PUZZLES_PER_TASK))
}

/// Puzzles a worker thread sends its worker at once: enough that the round trip is a
/// small part of a batch even for the fastest solvers, few enough that the threads
/// finish a phase together.
const PUZZLES_PER_TASK: usize = 64;

/// What a worker is to hold.
#[derive(Debug, Clone)]
pub(crate) struct WorkerSpec {
    /// The solver's name.
    pub(crate) solver: Arc<str>,
    /// The executable started in the `lib` role.
    pub(crate) program: PathBuf,
    /// The library, as a resolved path.
    pub(crate) library: PathBuf,
    /// The function's name.
    pub(crate) symbol: String,
    /// Its `configuration` argument.
    pub(crate) configuration: u32,
    /// The bound on the worker's address space, in bytes.
    pub(crate) memory_limit: Option<u64>,
}

/// A request: solve slots `start..end`, counting up to `limit`.
struct Request {
    start: u32,
    end: u32,
    limit: u32,
}

impl Request {
    const SIZE: usize = 12;

    fn encode(&self) -> [u8; Self::SIZE] {
        let mut bytes = [0; Self::SIZE];
        bytes[0..4].copy_from_slice(&self.start.to_le_bytes());
        bytes[4..8].copy_from_slice(&self.end.to_le_bytes());
        bytes[8..12].copy_from_slice(&self.limit.to_le_bytes());
        bytes
    }

    fn decode(bytes: &[u8; Self::SIZE]) -> Request {
        let word =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        Request {
            start: word(0),
            end: word(4),
            limit: word(8),
        }
    }
}

/// A worker's reply.
enum Reply {
    /// The library is loaded: requests may come.
    Ready,
    /// The requested slots hold their answers.
    Done,
    /// It cannot serve, and why.
    Refused(String),
}

impl Reply {
    fn encode(&self) -> Vec<u8> {
        match self {
            Reply::Ready => vec![0],
            Reply::Done => vec![1],
            Reply::Refused(why) => {
                let mut bytes = vec![2];
                bytes.extend_from_slice(&(why.len() as u32).to_le_bytes());
                bytes.extend_from_slice(why.as_bytes());
                bytes
            }
        }
    }

    /// The next reply; `None` when the worker closed the pipe (it ended).
    fn read(from: &mut File) -> Option<Reply> {
        let mut tag = [0u8];
        from.read_exact(&mut tag).ok()?;
        match tag[0] {
            0 => Some(Reply::Ready),
            1 => Some(Reply::Done),
            2 => {
                let mut len = [0u8; 4];
                from.read_exact(&mut len).ok()?;
                let mut why = vec![0; u32::from_le_bytes(len).min(1 << 16) as usize];
                from.read_exact(&mut why).ok()?;
                Some(Reply::Refused(String::from_utf8_lossy(&why).into_owned()))
            }
            other => Some(Reply::Refused(format!(
                "replied {other}, which means nothing"
            ))),
        }
    }
}

/// A running worker.
struct Worker {
    pid: libc::pid_t,
    requests: File,
    replies: File,
    shared: Shared,
}

/// How waiting for a batch ended.
enum Waited {
    Done,
    /// The worker ended (its pipe closed).
    Ended,
    /// The puzzle at this index ran past the timeout.
    TimedOut(u32),
}

impl Worker {
    /// Start a worker and wait until it has loaded the library.
    fn start(spec: &WorkerSpec) -> Result<Worker, StartError> {
        let harness = |what: &str, e: io::Error| StartError::Harness(format!("{what}: {e}"));
        let shared = Shared::create().map_err(|e| harness("cannot share memory", e))?;
        let (req_read, req_write) = pipe().map_err(|e| harness("cannot make a pipe", e))?;
        let (rep_read, rep_write) = pipe().map_err(|e| harness("cannot make a pipe", e))?;
        // Above the numbers they go to in the worker, so that placing one cannot
        // overwrite another.
        let high = [req_read.as_raw_fd(), rep_write.as_raw_fd(), shared.fd()]
            .map(|fd| above(fd, SHARED_FD + 1));
        let high: Vec<OwnedFd> = high
            .into_iter()
            .collect::<io::Result<_>>()
            .map_err(|e| harness("cannot pass a descriptor", e))?;
        let raw: Vec<RawFd> = high.iter().map(|fd| fd.as_raw_fd()).collect();
        let memory = spec
            .memory_limit
            .map_or_else(|| "-".to_string(), |b| b.to_string());
        let mut command = Command::new(&spec.program);
        command
            .arg(super::role::ROLE_ARG)
            .arg(&spec.library)
            .arg(&spec.symbol)
            .arg(spec.configuration.to_string())
            .arg(memory)
            .env(super::role::ROLE_VAR, "lib")
            .stdin(Stdio::null())
            // What a library prints is not the tool's output.
            .stdout(io::stderr())
            .stderr(Stdio::inherit())
            // Ctrl-C at the terminal is for the tool, which stops between tasks.
            .process_group(0);
        die_with_parent(&mut command);
        adopt_orphans(&mut command);
        // SAFETY: between fork and exec only async-signal-safe calls, no allocation.
        unsafe {
            command.pre_exec(move || {
                for (k, &fd) in raw.iter().enumerate() {
                    if libc::dup2(fd, REQUESTS_FD + k as RawFd) < 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        // The worker is this executable: failing to start it is never the solver's doing.
        let child = command
            .spawn()
            .map_err(|e| harness(&format!("cannot start {}", spec.program.display()), e))?;
        drop((req_read, rep_write, high));
        super::started::record(child.id() as libc::pid_t, &spec.solver);
        let mut worker = Worker {
            pid: child.id() as libc::pid_t,
            requests: File::from(req_write),
            replies: File::from(rep_read),
            shared,
        };
        let ready = wait_readable(&worker.replies, Some(START_UP));
        let reply = ready.then(|| Reply::read(&mut worker.replies));
        Worker::ready(worker, reply, spec).map_err(StartError::Solver)
    }

    /// The started `worker` once its first `reply` (`None`: none in time) says it is ready;
    /// else why not, the solver's doing.
    fn ready(
        mut worker: Worker,
        reply: Option<Option<Reply>>,
        spec: &WorkerSpec,
    ) -> Result<Worker, String> {
        match reply {
            Some(Some(Reply::Ready)) => Ok(worker),
            Some(Some(Reply::Refused(why))) => {
                let _ = worker.end();
                Err(why)
            }
            Some(Some(Reply::Done)) => {
                let _ = worker.end();
                Err("replied before it was asked".into())
            }
            Some(None) => Err(format!("{} before it was ready", ended(&worker.end().0))),
            None => {
                let _ = worker.end();
                Err(format!(
                    "its worker did not load {} within {}: does the library's initialisation \
                     hang?",
                    spec.library.display(),
                    humantime::format_duration(START_UP)
                ))
            }
        }
    }

    /// Ask for slots `start..end` and wait for them, or for the worker's end, or for a
    /// puzzle to run past `timeout`.
    ///
    /// The deadline is kept on this process's clock: the header says which puzzle the
    /// worker is on, but a worker whose memory the library damaged (a stack overwritten, a
    /// stale `longjmp`) can go back and solve its batch round and round, always moving and
    /// never done. So each puzzle gets one window of `timeout`, opened when the worker is
    /// first seen past the puzzle before it (at the start the worker reports, if that lies
    /// between the last such sighting and now); going back or round again opens none, and
    /// the batch cannot outlast a window per puzzle and one for the reply after the last.
    fn solve(&mut self, start: u32, end: u32, limit: u32, timeout: Option<Duration>) -> Waited {
        let header = self.shared.header();
        header.done.store(start, Ordering::Relaxed);
        header.taken.store(0, Ordering::Relaxed);
        let sent = monotonic_ns();
        header.started_ns.store(sent, Ordering::Relaxed);
        let request = Request { start, end, limit }.encode();
        if self.requests.write_all(&request).is_err() {
            return Waited::Ended;
        }
        // The furthest puzzle the worker has been seen on, and when its window opened.
        let (mut on, mut opened) = (start, sent);
        loop {
            let left = match timeout {
                None => None,
                Some(t) => {
                    let t = u64::try_from(t.as_nanos()).unwrap_or(u64::MAX);
                    let done = header.done.load(Ordering::Acquire).min(end);
                    let started = header.started_ns.load(Ordering::Acquire);
                    let now = monotonic_ns();
                    if done > on {
                        on = done;
                        opened = started.clamp(opened, now);
                    }
                    let deadline = opened.saturating_add(t);
                    if now >= deadline {
                        // Past the last puzzle, the reply is what is late: no puzzle is.
                        return if on < end {
                            Waited::TimedOut(on)
                        } else {
                            Waited::Ended
                        };
                    }
                    Some(Duration::from_nanos(deadline - now))
                }
            };
            if !wait_readable(&self.replies, left) {
                continue;
            }
            // A reply the worker did not owe (the library wrote to its descriptor) is not
            // believed: its answers may not be there.
            return match Reply::read(&mut self.replies) {
                Some(Reply::Done) if header.done.load(Ordering::Acquire) == end => Waited::Done,
                _ => Waited::Ended,
            };
        }
    }

    /// Kill it with every process below it (which it adopts when orphaned, whatever group
    /// or session it moved to) and reap it: how it ended and what it used.
    fn end(&mut self) -> (Result<i32, String>, Usage) {
        // Until reaped below, the pid is still this worker's.
        kill_tree(self.pid, true);
        let mut status = 0;
        // SAFETY: wait4 fills the zeroed rusage and the status.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let reaped = loop {
            let r = unsafe { libc::wait4(self.pid, &mut status, 0, &mut usage) };
            if r >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                break r;
            }
        };
        let how = if reaped < 0 {
            Err(io::Error::last_os_error().to_string())
        } else {
            super::started::reaped(self.pid);
            Ok(status)
        };
        (how, of_rusage(&usage))
    }
}

/// How a worker ended, for a sentence: "exited with status 0", "was killed by SIGSEGV".
fn ended(how: &Result<i32, String>) -> String {
    match how {
        Ok(status) if libc::WIFEXITED(*status) => {
            format!("exited with status {}", libc::WEXITSTATUS(*status))
        }
        Ok(status) if libc::WIFSIGNALED(*status) => {
            format!("was killed by {}", signal_name(libc::WTERMSIG(*status)))
        }
        Ok(status) => format!("ended with wait status {status}"),
        Err(e) => format!("ended, how cannot be told ({e})"),
    }
}

fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV (a segmentation fault)",
        libc::SIGBUS => "SIGBUS (a bus error)",
        libc::SIGABRT => "SIGABRT (it aborted)",
        libc::SIGFPE => "SIGFPE (an arithmetic error)",
        libc::SIGILL => "SIGILL (an illegal instruction)",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU (its CPU time limit)",
        other => return format!("signal {other}"),
    };
    name.to_string()
}

/// A pipe whose both ends close on exec (the worker's ends are placed by `dup2`).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two descriptors, checked.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are new and ours alone.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// A copy of `fd` numbered `min` or above, closed on exec.
fn above(fd: RawFd, min: RawFd) -> io::Result<OwnedFd> {
    // SAFETY: fcntl on a descriptor we own.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, min) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: new and ours alone.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

/// Whether `file` has something to read (or is closed) within `wait` (`None`: no bound).
fn wait_readable(file: &File, wait: Option<Duration>) -> bool {
    let ms = wait.map_or(-1, |w| {
        libc::c_int::try_from(w.as_nanos().div_ceil(1_000_000)).unwrap_or(libc::c_int::MAX)
    });
    let mut poll = libc::pollfd {
        fd: file.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut poll, 1, ms) };
        if ready >= 0 {
            return ready > 0;
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return true;
        }
    }
}

/// One worker thread's isolated solver: its worker process, restarted after a failure.
pub(crate) struct IsolatedSolver {
    spec: Arc<WorkerSpec>,
    worker: Result<Worker, StartError>,
    /// What ended workers used.
    ended: Usage,
}

impl IsolatedSolver {
    /// Started here, as the strategy value is made: outside any timing.
    pub(crate) fn new(spec: Arc<WorkerSpec>) -> IsolatedSolver {
        let mut solver = IsolatedSolver {
            worker: Err(StartError::Solver(String::new())),
            spec,
            ended: Usage::default(),
        };
        solver.restart();
        solver
    }

    fn restart(&mut self) {
        self.end_worker();
        self.worker = Worker::start(&self.spec);
        self.ended.processes += 1;
    }

    /// End the worker, if any, keeping what it used: how it ended, and its shared
    /// memory, which holds what it finished.
    fn end_worker(&mut self) -> Option<(Result<i32, String>, Shared)> {
        let ended = Err(StartError::Solver("ended".into()));
        let mut worker = std::mem::replace(&mut self.worker, ended).ok()?;
        let (how, used) = worker.end();
        self.ended = Usage {
            processes: self.ended.processes,
            ..self.ended.merged(used)
        };
        Some((how, worker.shared))
    }

    /// Why the puzzle being solved failed when its worker ended so.
    fn failure(&self, how: &Result<i32, String>, fault: u64, guard: u64, broken_fd: u32) -> String {
        if broken_fd != 0 {
            return format!(
                "the solver closed (or replaced) descriptor {broken_fd} while solving it: a \
                 pipe between its worker process and sudoku-bench, without which the worker \
                 cannot go on"
            );
        }
        let mut why = format!("the solver's process {} while solving it", ended(how));
        if fault != 0 && guard != 0 && fault >= guard && fault - guard < GUARD_BYTES {
            why.push_str(&format!(
                ": it wrote (or read) past the end of its solution buffer (82 bytes; at byte {})",
                82 + (fault - guard)
            ));
        }
        let overran = why.contains("solution buffer");
        if let (Some(limit), Ok(status), false) = (self.spec.memory_limit, how, overran) {
            if libc::WIFSIGNALED(*status) || libc::WEXITSTATUS(*status) != 0 {
                why.push_str(&format!(
                    " (its address space is limited to {limit} bytes, which may be why)"
                ));
            }
        }
        why
    }
}

impl Drop for IsolatedSolver {
    fn drop(&mut self) {
        self.end_worker();
    }
}

impl Strategy for IsolatedSolver {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        let mut out = [None];
        self.solve_batch(
            std::slice::from_ref(puzzle),
            limits,
            &sudoku_bench_core::clock::MonotonicClock::default(),
            &mut out,
        );
        out[0].take().map(|(o, _)| o).unwrap_or(Outcome::EMPTY)
    }

    /// Times come from the worker, not from `clock`.
    fn solve_batch(
        &mut self,
        puzzles: &[Grid],
        limits: &Limits,
        _clock: &dyn Clock,
        out: &mut [Option<(Outcome, Cost)>],
    ) {
        for (puzzles, out) in puzzles.chunks(SLOTS).zip(out.chunks_mut(SLOTS)) {
            self.solve_slots(puzzles, limits, out);
        }
    }

    fn usage(&self) -> Option<Usage> {
        let live = match &self.worker {
            Ok(worker) => {
                let header = worker.shared.header();
                Usage {
                    max_rss_kib: header.max_rss_kib.load(Ordering::Relaxed),
                    cpu_ns: header.cpu_ns.load(Ordering::Relaxed),
                    processes: 0,
                }
            }
            Err(_) => Usage::default(),
        };
        Some(Usage {
            processes: self.ended.processes,
            ..self.ended.merged(live)
        })
    }
}

impl IsolatedSolver {
    /// At most `SLOTS` puzzles, through the worker, restarting it after each failure.
    fn solve_slots(
        &mut self,
        puzzles: &[Grid],
        limits: &Limits,
        out: &mut [Option<(Outcome, Cost)>],
    ) {
        let n = puzzles.len() as u32;
        let limit = limits.max_solutions.max(1);
        let mut next = 0u32;
        while next < n {
            let worker = match &mut self.worker {
                Ok(worker) => worker,
                Err(e) => {
                    let why = format!(
                        "cannot start a process for the solver ({}): {e}",
                        self.spec.library.display()
                    );
                    let outcome = e.outcome(why);
                    for slot in &mut out[next as usize..] {
                        *slot = Some((outcome.clone(), Cost::default()));
                    }
                    return;
                }
            };
            for (i, puzzle) in puzzles.iter().enumerate().skip(next as usize) {
                let mut slot = Slot {
                    puzzle: [0; 81],
                    answer: RawAnswer::NONE,
                    ns: 0,
                    instructions: shared::NOT_COUNTED,
                };
                puzzle.write_dotted(&mut slot.puzzle);
                worker.shared.write(i, &slot);
            }
            let waited = worker.solve(next, n, limit, limits.timeout);
            if let Waited::Done = waited {
                read_answers(&worker.shared, next..n, limits, out);
                return;
            }
            match self.recover(waited, next..n, limits, out) {
                Some(from) => next = from,
                None => return,
            }
        }
    }

    /// After a batch of puzzles (`batch`) the worker did not finish (`waited`): the
    /// answers it gave, an outcome for the puzzle it ended or timed out on, and a new
    /// worker. Returns the puzzle to go on from, or `None` when every puzzle left has its
    /// outcome (the worker could not be ended, or it ended between batches).
    fn recover(
        &mut self,
        waited: Waited,
        batch: std::ops::Range<u32>,
        limits: &Limits,
        out: &mut [Option<(Outcome, Cost)>],
    ) -> Option<u32> {
        let (next, n) = (batch.start, batch.end);
        // The crashed puzzle's time ends here, before the kill and the reap.
        let noticed = monotonic_ns();
        if let (Waited::Ended, Ok(worker)) = (&waited, &self.worker) {
            // Given a moment to end by itself, a worker whose channel a solve broke
            // says so in the header first.
            exits_within(worker.pid as u32, CLOSE_GRACE);
        }
        let (how, shared) = self.end_worker()?;
        let header = shared.header();
        let done = header.done.load(Ordering::Acquire).clamp(next, n);
        if !matches!(waited, Waited::TimedOut(_)) {
            read_answers(&shared, next..done, limits, out);
        }
        let from = match waited {
            // The worker was seen past `at` and is back at it or before, or still on
            // it: `at` had its window, and the rows before it their answers.
            Waited::TimedOut(at) if done <= at => {
                read_answers(&shared, next..at, limits, out);
                let t = limits.timeout.unwrap_or_default();
                let ns = u64::try_from(t.as_nanos()).unwrap_or(u64::MAX);
                out[at as usize] = Some((timed_out(), Cost::of_ns(ns)));
                at + 1
            }
            // It moved on just as it was killed: the puzzle it was on when killed had
            // not run past the limit, so it is solved again in a new worker, uncharged.
            Waited::TimedOut(_) => {
                read_answers(&shared, next..done, limits, out);
                done
            }
            // It ended between batches, before it read this one: no puzzle's solve was
            // under way, and which one left it to end so cannot be told.
            _ if header.taken.load(Ordering::Acquire) == 0 => {
                let why = format!(
                    "the worker for {} {} between batches of puzzles, solving none: which \
                     puzzle's solve led to that cannot be told, so none is charged with it",
                    self.spec.library.display(),
                    ended(&how)
                );
                for slot in &mut out[next as usize..] {
                    *slot = Some((Outcome::harness(why.clone()), Cost::default()));
                }
                return None;
            }
            _ => {
                if done < n {
                    let why = self.failure(
                        &how,
                        header.fault_addr.load(Ordering::Acquire),
                        header.guard_addr.load(Ordering::Acquire),
                        header.broken_fd.load(Ordering::Acquire),
                    );
                    let started = header.started_ns.load(Ordering::Acquire);
                    let ns = noticed.saturating_sub(started);
                    out[done as usize] = Some((Outcome::failed(why), Cost::of_ns(ns)));
                }
                done + 1
            }
        };
        self.restart();
        Some(from)
    }
}

/// The answers in slots `range`, read, into `out`.
/// A solve that took longer than `timeout` (finished before this process saw the deadline
/// pass) is a timeout all the same, charged the limit, as a killed one is.
fn read_answers(
    shared: &Shared,
    range: std::ops::Range<u32>,
    limits: &Limits,
    out: &mut [Option<(Outcome, Cost)>],
) {
    let limit = limits.max_solutions.max(1);
    let timeout = limits
        .timeout
        .map(|t| u64::try_from(t.as_nanos()).unwrap_or(u64::MAX));
    for i in range {
        let slot = shared.read(i as usize);
        out[i as usize] = Some(match timeout {
            Some(t) if slot.ns > t => (timed_out(), Cost::of_ns(t)),
            _ => (read_answer(&slot.answer, limit), slot.cost()),
        });
    }
}

fn timed_out() -> Outcome {
    Outcome {
        aborted: Some(Abort::Timeout),
        ..Outcome::EMPTY
    }
}
