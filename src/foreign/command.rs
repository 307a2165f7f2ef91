//! `cmd:` solvers: any program that speaks a line protocol over its stdin and stdout.
//!
//! Each worker thread starts its own copy of the command (on its first puzzle) and, per
//! puzzle, writes `PUZZLE LIMIT` (81 characters, `.` for a blank, a space, the limit) and
//! reads back `COUNT SOLUTION GUESSES` (the solutions found up to the limit; the first as 81
//! digits or `-`; the guesses made or `-`). The time of a puzzle is that round trip, so
//! [`Spec::probe`] measures what a trivial exchange costs, for the summary to state.
//!
//! A solver that says nothing within the run's timeout is killed (`Abort::Timeout`); one
//! that exits, or answers what cannot be read, is killed too (`Abort::Failed`, quoting what
//! it said). Either way a fresh copy is started at once, inside the failed puzzle's solve,
//! so that its start-up is charged to the puzzle that failed rather than to the next one.
//! Reads and writes wait with `poll(2)` on the pipe, so a deadline needs no helper thread.
//!
//! Each copy runs in its own process group: the terminal's Ctrl-C reaches only
//! sudoku-bench, which stops between tasks, and a kill takes the solver with any process
//! it started. Dropping the strategy kills and reaps its copy.

use std::borrow::Cow;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::grid::Grid;
use crate::strategy::{Abort, Limits, Outcome, Strategy, StrategyInfo};

/// A solved grid: the probe's puzzle, whose only solution is itself.
const SOLVED: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

/// Timed exchanges in a probe (after one untimed, which may include the start-up).
const PROBE_ROUNDS: usize = 31;

/// The longest answer line read: past it the solver is writing something else.
const MAX_LINE: usize = 4096;

/// Characters of a bad answer quoted in its error.
const QUOTE_CHARS: usize = 100;

/// Why a command cannot be used as a solver.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// Nothing after `cmd:`.
    #[error("no command after `cmd:`")]
    Empty,
    /// The command line cannot be split into words like a shell would.
    #[error("cannot split {0:?} into words: a quote is not closed, or it ends in a backslash")]
    Split(String),
    /// The program could not be started.
    #[error("cannot start `{command}`: {source}")]
    Start {
        /// The command line, as given.
        command: String,
        /// Why the operating system refused.
        #[source]
        source: io::Error,
    },
    /// It started, but did not answer a solved grid as the protocol says.
    #[error(
        "`{command}` does not speak the protocol: given a solved grid and limit 1, it {reason}"
    )]
    Probe {
        /// The command line, as given.
        command: String,
        /// What went wrong, quoting its answer.
        reason: String,
    },
}

/// A `cmd:` solver's command line, split into a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    command: String,
    program: String,
    args: Vec<String>,
}

/// What a probe of a command found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// The median time of a trivial exchange: the pipe's and the solver's own overhead,
    /// which every puzzle's time includes.
    pub round_trip: Duration,
    /// Whether it reports its guesses (a number rather than `-`).
    pub counts_guesses: bool,
}

impl Spec {
    /// The text after `cmd:`: a program and its arguments, split like a shell would split
    /// them (quotes, backslashes), though no shell is involved: a kill reaches the solver
    /// itself.
    pub fn parse(command: &str) -> Result<Spec, CommandError> {
        let words = shlex::split(command).ok_or_else(|| CommandError::Split(command.into()))?;
        let mut words = words.into_iter();
        let program = words.next().ok_or(CommandError::Empty)?;
        Ok(Spec {
            command: command.trim().to_string(),
            program,
            args: words.collect(),
        })
    }

    /// The command line, as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Start the command and time a trivial exchange (a solved grid, limit 1) a number of
    /// times, checking every answer; `timeout` bounds each exchange (`None`: no bound).
    pub fn probe(&self, timeout: Option<Duration>) -> Result<Probe, CommandError> {
        let fail = |reason: String| CommandError::Probe {
            command: self.command.clone(),
            reason,
        };
        let mut process = Process::start(self).map_err(|source| CommandError::Start {
            command: self.command.clone(),
            source,
        })?;
        let counts_guesses = process.check(timeout).map_err(fail)?;
        let mut times = Vec::with_capacity(PROBE_ROUNDS);
        for _ in 0..PROBE_ROUNDS {
            let start = Instant::now();
            let counts = process.check(timeout).map_err(fail)?;
            times.push(start.elapsed());
            if counts != counts_guesses {
                return Err(fail(
                    "gave guesses in some answers and `-` in others".to_string(),
                ));
            }
        }
        times.sort_unstable();
        Ok(Probe {
            round_trip: times[times.len() / 2],
            counts_guesses,
        })
    }

    /// The strategy `name`: each worker thread's value runs its own copy of the command.
    /// `timeout` bounds the start-up of a copy (its first exchange), as the run's
    /// timeout bounds each puzzle.
    pub fn info(&self, name: &str, probe: &Probe, timeout: Option<Duration>) -> StrategyInfo {
        let spec = Arc::new(self.clone());
        let counts_guesses = probe.counts_guesses;
        StrategyInfo::new(name.to_string(), move || {
            Box::new(CommandSolver::new(
                Arc::clone(&spec),
                counts_guesses,
                timeout,
            ))
        })
        .about(format!(
            "the command `{}`, one line each way per puzzle over a pipe",
            self.command
        ))
        .counts_guesses(counts_guesses)
    }
}

/// One worker's copy of the command, restarted whenever it fails.
struct CommandSolver {
    spec: Arc<Spec>,
    counts_guesses: bool,
    process: Result<Process, String>,
    request: Vec<u8>,
}

impl CommandSolver {
    /// Started here, on the worker's first use and outside any timed solve, so that no
    /// puzzle's time includes the program's start-up.
    fn new(spec: Arc<Spec>, counts_guesses: bool, timeout: Option<Duration>) -> CommandSolver {
        let process = Process::started(&spec, timeout);
        CommandSolver {
            spec,
            counts_guesses,
            process,
            request: Vec::with_capacity(84),
        }
    }

    /// The outcome of one exchange; `Err` when the copy must be replaced.
    fn ask(&mut self, puzzle: &Grid, limits: &Limits) -> Result<Outcome, Abort> {
        let process = self.process.as_mut().map_err(|why| {
            Abort::Failed(format!("cannot restart `{}`: {why}", self.spec.command))
        })?;
        let mut dotted = [0u8; 81];
        puzzle.write_dotted(&mut dotted);
        self.request.clear();
        self.request.extend_from_slice(&dotted);
        // Writing to a Vec cannot fail.
        let _ = writeln!(self.request, " {}", limits.max_solutions);
        let line = match process.exchange(&self.request, limits.timeout) {
            Ok(line) => line,
            Err(Fault::Timeout) => return Err(Abort::Timeout),
            Err(Fault::Closed) => {
                let how = process.end();
                return Err(Abort::Failed(format!("{} before answering", ended(how))));
            }
            Err(Fault::Bad(why)) => return Err(Abort::Failed(why)),
        };
        let answer = Answer::parse(&line, limits.max_solutions).map_err(Abort::Failed)?;
        if self.counts_guesses && answer.guesses.is_none() {
            return Err(Abort::Failed(format!(
                "answered {}: GUESSES is `-`, though it counted them when probed",
                quote(&line)
            )));
        }
        Ok(Outcome {
            solutions: answer.count,
            first: answer.solution,
            nodes: 0,
            guesses: answer.guesses.unwrap_or(0),
            aborted: None,
        })
    }
}

impl Strategy for CommandSolver {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Outcome {
        match self.ask(puzzle, limits) {
            Ok(outcome) => outcome,
            Err(abort) => {
                // Whatever state it is in, it is not to be trusted with the next puzzle.
                if let Ok(process) = &mut self.process {
                    process.end();
                }
                self.process = Process::started(&self.spec, limits.timeout);
                Outcome {
                    solutions: 0,
                    first: None,
                    nodes: 0,
                    guesses: 0,
                    aborted: Some(abort),
                }
            }
        }
    }
}

/// A running copy of the command, with its pipes.
struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// Bytes read and not yet taken as an answer.
    buf: Vec<u8>,
    /// Set once it has been killed and reaped.
    ended: Option<io::Result<ExitStatus>>,
}

/// Why an exchange did not bring back a line.
enum Fault {
    /// Nothing came before the deadline.
    Timeout,
    /// It closed its end of a pipe: it exited (or is exiting).
    Closed,
    /// Anything else, said for the row's `error`.
    Bad(String),
}

impl Process {
    fn start(spec: &Spec) -> io::Result<Process> {
        let mut command = std::process::Command::new(&spec.program);
        command
            .args(&spec.args)
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

    /// A copy that has answered the probe's exchange once (so it is ready), or why not.
    fn started(spec: &Spec, timeout: Option<Duration>) -> Result<Process, String> {
        let mut process = Process::start(spec).map_err(|e| e.to_string())?;
        match process.check(timeout) {
            Ok(_) => Ok(process),
            Err(why) => {
                process.end();
                Err(format!("given a solved grid, it {why}"))
            }
        }
    }

    /// One probe exchange: whether the answer gives guesses, or what is wrong, as the end
    /// of a sentence that starts with the solver.
    fn check(&mut self, timeout: Option<Duration>) -> Result<bool, String> {
        let line = match self.exchange(format!("{SOLVED} 1\n").as_bytes(), timeout) {
            Ok(line) => line,
            Err(Fault::Timeout) => {
                let within =
                    timeout.map_or("time".into(), |t| humantime::format_duration(t).to_string());
                return Err(format!("did not answer within {within}"));
            }
            Err(Fault::Closed) => {
                let how = self.end();
                return Err(format!("{} before answering", ended(how)));
            }
            Err(Fault::Bad(why)) => return Err(why),
        };
        let answer = Answer::parse(&line, 1)?;
        let solved: Grid = SOLVED.parse().expect("SOLVED is a grid");
        if answer.count != 1 || answer.solution.is_some_and(|s| s != solved) {
            return Err(format!(
                "answered {}, not `1 {SOLVED} GUESSES` (or `1 - GUESSES`)",
                quote(&line)
            ));
        }
        Ok(answer.guesses.is_some())
    }

    /// Send `request` and read one line back, all within `timeout` (`None`: no bound).
    fn exchange(&mut self, request: &[u8], timeout: Option<Duration>) -> Result<Vec<u8>, Fault> {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
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
    fn end(&mut self) -> &io::Result<ExitStatus> {
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
fn ended(how: &io::Result<ExitStatus>) -> String {
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

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl(2) on a descriptor we own, with integer arguments only.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// One answer line, read.
#[derive(Debug, PartialEq, Eq)]
struct Answer {
    count: u32,
    solution: Option<Grid>,
    guesses: Option<u64>,
}

impl Answer {
    /// `COUNT SOLUTION GUESSES`, the count at most `limit`; `Err` says what is wrong,
    /// quoting the line.
    fn parse(line: &[u8], limit: u32) -> Result<Answer, String> {
        let text = String::from_utf8_lossy(line);
        let bad = |what: String| format!("answered {}: {what}", quote(line));
        let mut fields = text.split_ascii_whitespace();
        let (Some(count), Some(solution), Some(guesses), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(bad(format!(
                "{} fields, not 3 (COUNT SOLUTION GUESSES)",
                text.split_ascii_whitespace().count()
            )));
        };
        let count: u32 = count
            .parse()
            .map_err(|_| bad(format!("COUNT {count:?} is not a number")))?;
        if count > limit {
            return Err(bad(format!("COUNT {count} is above the limit {limit}")));
        }
        let solution = match solution {
            "-" => None,
            digits if digits.len() == 81 && digits.bytes().all(|b| (b'1'..=b'9').contains(&b)) => {
                Some(digits.parse().map_err(|e| bad(format!("SOLUTION: {e}")))?)
            }
            _ => return Err(bad("SOLUTION is neither 81 digits 1-9 nor `-`".to_string())),
        };
        if count == 0 && solution.is_some() {
            return Err(bad("a SOLUTION with COUNT 0".to_string()));
        }
        let guesses = match guesses {
            "-" => None,
            n => Some(
                n.parse()
                    .map_err(|_| bad(format!("GUESSES {n:?} is neither a number nor `-`")))?,
            ),
        };
        Ok(Answer {
            count,
            solution,
            guesses,
        })
    }
}

/// What a solver said, quoted for a message, its line end left out and cut short when long.
fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let shown: Cow<str> = match text.char_indices().nth(QUOTE_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]).into(),
        None => text.into(),
    };
    format!("{shown:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::testkit::{self, grid, limits};
    use std::path::Path;

    /// A solver written in `sh`: `script` runs once per request line, with the puzzle in
    /// `$p` and the limit in `$l`.
    fn sh(script: &str) -> Spec {
        Spec {
            command: format!("sh -c {script:?}"),
            program: "sh".into(),
            args: vec!["-c".into(), format!("while read -r p l; do {script}; done")],
        }
    }

    /// Answers the probe as the protocol says, and every puzzle with `answer`.
    fn canned(answer: &str) -> Spec {
        sh(&format!(
            r#"case $p in *.*) {answer};; *) echo "1 $p 0";; esac"#
        ))
    }

    fn solver(spec: Spec, timeout: Option<Duration>) -> CommandSolver {
        CommandSolver::new(Arc::new(spec), true, timeout)
    }

    fn pid(solver: &CommandSolver) -> u32 {
        solver.process.as_ref().expect("running").child.id()
    }

    /// Whether our child `pid` was killed and reaped: no zombie left.
    fn gone(pid: u32) -> bool {
        !Path::new(&format!("/proc/{pid}")).exists()
    }

    /// Whether process `pid` is dead, as a zombie that someone else is to reap or not.
    fn dead(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            // The state follows the command's closing parenthesis.
            Ok(stat) => stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z')),
        }
    }

    #[test]
    fn commands_split_like_a_shell_without_one() {
        let spec = Spec::parse(r#" ./solve --name "two words" it\'s "#).unwrap();
        assert_eq!(spec.program, "./solve");
        assert_eq!(spec.args, ["--name", "two words", "it's"]);
        assert_eq!(spec.command(), r#"./solve --name "two words" it\'s"#);
        assert!(matches!(Spec::parse("  "), Err(CommandError::Empty)));
        assert!(matches!(
            Spec::parse("solve \"open"),
            Err(CommandError::Split(_))
        ));
    }

    #[test]
    fn answers_are_read_and_every_fault_named() {
        let sol = testkit::EASY_SOLUTION;
        assert_eq!(
            Answer::parse(format!("1 {sol} 7\n").as_bytes(), 2),
            Ok(Answer {
                count: 1,
                solution: Some(grid(sol)),
                guesses: Some(7),
            })
        );
        assert_eq!(
            Answer::parse(b"0 - -\r\n", 2),
            Ok(Answer {
                count: 0,
                solution: None,
                guesses: None,
            })
        );
        let fault = |line: String, limit| Answer::parse(line.as_bytes(), limit).unwrap_err();
        for (line, limit, says) in [
            (format!("1 {sol}"), 2, "2 fields, not 3"),
            (format!("1 {sol} 0 x"), 2, "4 fields, not 3"),
            (String::new(), 2, "0 fields, not 3"),
            (format!("one {sol} 0"), 2, "COUNT \"one\" is not a number"),
            (format!("-1 {sol} 0"), 2, "COUNT \"-1\" is not a number"),
            (format!("2 {sol} 0"), 1, "COUNT 2 is above the limit 1"),
            (format!("1 {} 0", &sol[1..]), 2, "neither 81 digits"),
            (format!("1 {}0 0", &sol[1..]), 2, "neither 81 digits"),
            (format!("1 {}. 0", &sol[1..]), 2, "neither 81 digits"),
            (format!("0 {sol} 0"), 2, "a SOLUTION with COUNT 0"),
            (format!("1 {sol} many"), 2, "GUESSES \"many\" is neither"),
        ] {
            let why = fault(line.clone(), limit);
            assert!(why.contains(says), "{line:?}: {why}");
            assert!(why.starts_with("answered \""), "{line:?}: {why}");
        }
    }

    #[test]
    fn quotes_are_escaped_and_cut_short() {
        assert_eq!(quote(b"a\tb\n"), r#""a\tb""#);
        assert_eq!(quote(b"\xff\n"), "\"\u{fffd}\"");
        let long = "é".repeat(QUOTE_CHARS + 5);
        let expected = format!("{}...", "é".repeat(QUOTE_CHARS));
        assert_eq!(quote(long.as_bytes()), format!("{expected:?}"));
    }

    #[test]
    fn a_probe_times_a_correct_exchange_and_sees_whether_guesses_are_counted() {
        let counted = canned("echo x")
            .probe(Some(Duration::from_secs(10)))
            .unwrap();
        assert!(counted.counts_guesses);
        assert!(counted.round_trip > Duration::ZERO);
        let dashes = sh(r#"echo "1 - -""#).probe(None).unwrap();
        assert!(!dashes.counts_guesses);
    }

    #[test]
    fn a_probe_names_what_went_wrong() {
        let second = Some(Duration::from_secs(1));
        let start = Spec::parse("./no/such/solver").unwrap().probe(second);
        assert!(
            matches!(&start, Err(CommandError::Start { command, .. }) if command == "./no/such/solver"),
            "{start:?}"
        );
        let probe = |spec: Spec, timeout| spec.probe(timeout).unwrap_err().to_string();
        let says = probe(sh(r#"echo "0 - 0""#), second);
        assert!(says.contains(r#"answered "0 - 0", not `1 "#), "{says}");
        let says = probe(sh("exit 3"), second);
        assert!(
            says.contains("exited (exit status: 3) before answering"),
            "{says}"
        );
        let says = probe(sh("sleep 5"), Some(Duration::from_millis(200)));
        assert!(says.contains("did not answer within 200ms"), "{says}");
        let says = probe(sh(r#"echo "1 - 0"; echo more"#), second);
        // "more" is read with the answer, or after it as the next one: either way, quoted.
        assert!(says.contains("more"), "{says}");
    }

    #[test]
    fn outcomes_come_from_the_answer() {
        let mut s = solver(canned(r#"echo "2 - 5""#), None);
        let out = s.solve(&grid(testkit::TWO_SOLUTIONS), &limits(2));
        assert_eq!(
            out,
            Outcome {
                solutions: 2,
                first: None,
                nodes: 0,
                guesses: 5,
                aborted: None,
            }
        );
        let first = pid(&s);
        s.solve(&grid(testkit::TWO_SOLUTIONS), &limits(2));
        assert_eq!(pid(&s), first, "one copy serves puzzle after puzzle");
    }

    #[test]
    fn the_limit_is_sent_with_the_puzzle() {
        // Echoes the limit back as the count.
        let mut s = solver(canned(r#"echo "$l - 0""#), None);
        for limit in [1, 2, 7] {
            let out = s.solve(&grid(testkit::EASY), &limits(limit));
            assert_eq!(out.solutions, limit);
        }
    }

    #[test]
    fn a_silent_solver_is_killed_and_a_fresh_copy_answers_the_next_puzzle() {
        // Hangs on puzzles that start with a 5, answers the others.
        let spec = canned(r#"case $p in 5*) sleep 30;; *) echo "1 - 3";; esac"#);
        let timeout = Some(Duration::from_millis(300));
        let mut s = solver(spec, timeout);
        let limits = Limits {
            timeout,
            ..limits(2)
        };
        let hung = pid(&s);
        let start = Instant::now();
        let out = s.solve(&grid(testkit::EASY), &limits);
        assert!(start.elapsed() < Duration::from_secs(10));
        assert_eq!((out.solutions, out.aborted), (0, Some(Abort::Timeout)));
        assert!(gone(hung), "the silent copy was killed and reaped");
        let out = s.solve(&grid(testkit::TWO_SOLUTIONS), &limits);
        assert_eq!((out.solutions, out.guesses, out.aborted), (1, 3, None));
        assert_ne!(pid(&s), hung);
    }

    #[test]
    fn a_solver_that_exits_is_reported_with_its_status_and_restarted() {
        let mut s = solver(canned("exit 7"), None);
        let first = pid(&s);
        let out = s.solve(&grid(testkit::EASY), &limits(2));
        assert_eq!(
            out.aborted,
            Some(Abort::Failed(
                "exited (exit status: 7) before answering".into()
            ))
        );
        assert!(gone(first));
        assert_ne!(pid(&s), first, "a fresh copy is ready");
    }

    #[test]
    fn a_bad_answer_fails_the_puzzle_and_replaces_the_copy() {
        let mut s = solver(canned(r#"echo "3 - 0""#), None);
        let first = pid(&s);
        let out = s.solve(&grid(testkit::EASY), &limits(2));
        let Some(Abort::Failed(why)) = out.aborted else {
            panic!("{out:?}");
        };
        assert!(why.contains("COUNT 3 is above the limit 2"), "{why}");
        assert!(gone(first));
        assert_ne!(pid(&s), first);
    }

    #[test]
    fn dashes_for_guesses_fail_a_solver_that_counted_them_when_probed() {
        let mut s = solver(canned(r#"echo "1 - -""#), None);
        let out = s.solve(&grid(testkit::EASY), &limits(2));
        assert!(
            matches!(&out.aborted, Some(Abort::Failed(why)) if why.contains("GUESSES is `-`")),
            "{out:?}"
        );
    }

    #[test]
    fn a_line_without_end_is_cut_off() {
        let mut s = solver(canned("head -c 5000 /dev/zero | tr '\\0' 1"), None);
        let out = s.solve(&grid(testkit::EASY), &limits(2));
        assert!(
            matches!(&out.aborted, Some(Abort::Failed(why)) if why.contains("bytes without ending the line")),
            "{out:?}"
        );
    }

    #[test]
    fn a_solver_that_cannot_restart_fails_each_puzzle_and_says_why() {
        // Answers the first probe, then the file it needs is gone.
        let dir = tempfile::tempdir().unwrap();
        let flag = dir.path().join("once");
        std::fs::write(&flag, "").unwrap();
        let once = format!(
            r#"case $p in *.*) exit 1;; *) if [ -e {f} ]; then rm {f}; echo "1 - 0"; else exit 9; fi;; esac"#,
            f = flag.display()
        );
        let mut s = solver(sh(&once), None);
        let out = s.solve(&grid(testkit::EASY), &limits(2));
        assert!(matches!(out.aborted, Some(Abort::Failed(_))), "{out:?}");
        let out = s.solve(&grid(testkit::EASY), &limits(2));
        let Some(Abort::Failed(why)) = out.aborted else {
            panic!("{out:?}");
        };
        assert!(why.starts_with("cannot restart `sh -c"), "{why}");
        assert!(
            why.contains("exited (exit status: 9) before answering"),
            "{why}"
        );
    }

    #[test]
    fn dropping_the_strategy_kills_the_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        // Starts a grandchild that would outlive its parent.
        let spec = Spec {
            command: "sh".into(),
            program: "sh".into(),
            args: vec![
                "-c".into(),
                format!(
                    "sleep 60 & echo $! > {}; while read -r p l; do echo \"1 - 0\"; done",
                    pidfile.display()
                ),
            ],
        };
        let s = solver(spec, Some(Duration::from_secs(10)));
        let child = pid(&s);
        let grandchild: u32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(!dead(child) && !dead(grandchild));
        drop(s);
        assert!(gone(child), "the solver was killed and reaped");
        // Its orphaned grandchild is reaped by whoever adopts it, if anyone.
        let deadline = Instant::now() + Duration::from_secs(5);
        while !dead(grandchild) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(dead(grandchild), "the process it started was killed too");
    }

    #[test]
    fn info_makes_one_copy_per_value() {
        let spec = canned(r#"echo "1 - 0""#);
        let probe = spec.probe(None).unwrap();
        let info = spec.info("mine", &probe, None);
        assert_eq!(info.name, "mine");
        assert!(info.counts_guesses && info.nodes_unit.is_none() && info.parallel);
        assert!(info.about.contains("sh -c"));
        let (mut a, mut b) = (info.make(), info.make());
        for s in [&mut a, &mut b] {
            assert_eq!(s.solve(&grid(testkit::EASY), &limits(2)).solutions, 1);
        }
    }
}
