//! The worker's side: a copy of the executable started in the `lib` role, holding one
//! library solver. It loads the library, answers `READY`, then solves each requested
//! range of slots in turn, timing each call, until its requests pipe closes.
//!
//! The solution buffer ends where a page that may not be touched begins, so a solver that
//! writes past it faults at once; the fault handler notes the address for the parent and
//! lets the fault end the worker as it would have.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::path::Path;
use std::sync::atomic::{AtomicPtr, Ordering};

use super::shared::{monotonic_ns, Shared};
use super::{Reply, Request, REQUESTS_FD, RESPONSES_FD, SHARED_FD};
use crate::library::{self, Caller, Loaded, RawAnswer, Text81};

/// Where the fault handler notes the address (the header's `fault_addr`).
static FAULT_NOTE: AtomicPtr<std::sync::atomic::AtomicU64> = AtomicPtr::new(std::ptr::null_mut());

/// The worker's work; its exit status. `args`: the library's path, the symbol, the
/// configuration, and the memory limit in bytes or `-`.
pub(crate) fn serve(args: &[OsString]) -> i32 {
    // Moved high, where a library that takes descriptors 3 and 4 for its own (and closes
    // them) does not reach them; the check after each solve catches one that does.
    let (requests_fd, replies_fd) = (lift(REQUESTS_FD), lift(RESPONSES_FD));
    // SAFETY: the parent set these three descriptors up for this process alone, before
    // it started; nothing else here owns them.
    let (mut requests, mut replies, shared) = unsafe {
        (
            File::from_raw_fd(requests_fd),
            File::from_raw_fd(replies_fd),
            Shared::open(SHARED_FD),
        )
    };
    // What the library starts (system, popen) must not hold them: a crash would not close
    // the replies pipe while such a child lives.
    for fd in [requests_fd, replies_fd, SHARED_FD] {
        // SAFETY: fcntl on descriptors this process owns, with integer arguments.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    let channel = Channel::of(&[requests_fd, replies_fd]);
    // A crashing library is a failed puzzle, not a core file per crash.
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: setrlimit with a valid struct.
    unsafe { libc::setrlimit(libc::RLIMIT_CORE, &no_core) };
    let shared = match shared {
        Ok(shared) => shared,
        Err(e) => return refuse(&mut replies, &format!("cannot map the shared memory: {e}")),
    };
    // `_loaded` keeps the library mapped while `caller` calls into it.
    let (_loaded, mut caller) = match load(&shared, args) {
        Ok(loaded) => loaded,
        Err(why) => return refuse(&mut replies, &why),
    };
    if replies.write_all(&Reply::Ready.encode()).is_err() {
        return 0;
    }
    let mut bytes = [0u8; Request::SIZE];
    while requests.read_exact(&mut bytes).is_ok() {
        let request = Request::decode(&bytes);
        shared.header().taken.store(1, Ordering::Release);
        let solved = solve_range(&shared, &mut caller, &request, &channel);
        report_usage(&shared);
        if solved.is_err() {
            // The parent learns which puzzle from the header, and sees this end.
            return CHANNEL_BROKEN;
        }
        if replies.write_all(&Reply::Done.encode()).is_err() {
            break;
        }
    }
    0
}

/// The library's solve function, loaded and ready to call as `args` say (its path,
/// symbol, configuration and memory limit), with a fenced buffer for its solution whose
/// guard page, and any fault, `shared`'s header notes; or why it cannot be.
fn load(shared: &Shared, args: &[OsString]) -> Result<(Loaded, Caller), String> {
    let [path, symbol, configuration, memory] = args else {
        return Err(format!("started with {args:?}"));
    };
    let configuration = configuration
        .to_str()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    if let Some(bytes) = memory.to_str().and_then(|m| m.parse::<u64>().ok()) {
        let limit = libc::rlimit {
            rlim_cur: bytes,
            rlim_max: bytes,
        };
        // SAFETY: setrlimit with a valid struct.
        if unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err(format!("cannot set the memory limit: {e}"));
        }
    }
    let Some(symbol) = symbol.to_str() else {
        return Err("the symbol is not UTF-8".to_string());
    };
    let loaded = library::open(Path::new(path), symbol).map_err(|e| chain(&e))?;
    let solution = guarded_buffer().map_err(|e| format!("cannot fence the solution: {e}"))?;
    let header = shared.header();
    header.guard_addr.store(
        solution as u64 + std::mem::size_of::<Text81>() as u64,
        Ordering::Relaxed,
    );
    FAULT_NOTE.store(&header.fault_addr as *const _ as *mut _, Ordering::Release);
    catch_faults().map_err(|e| format!("cannot handle faults: {e}"))?;
    // SAFETY: the buffer is 82 bytes before a guard page, mapped for the process's life;
    // the function is as the user said (the module's Safety section in `library`).
    let caller = unsafe { Caller::new(loaded.solve, configuration, solution) };
    Ok((loaded, caller))
}

/// The exit status of a worker whose channel to the parent a solve broke.
const CHANNEL_BROKEN: i32 = 4;

/// Solve slots `request.start..request.end`, each call timed between two readings of the
/// clock, as the harness's clock times the built-in strategies: between them are the
/// call and building its answer. `Err` once a call has closed or replaced a descriptor of
/// `channel` (noted in the header, with the puzzle at `done` unfinished).
///
/// The puzzle being solved and when it began are read back from the shared header after
/// each call rather than kept in locals: a library that `longjmp`s into a call of its that
/// has returned comes back here with that call's registers, and would otherwise store
/// its answer in an earlier puzzle's slot, timed from an earlier start, and go round the
/// batch again.
fn solve_range(
    shared: &Shared,
    caller: &mut Caller,
    request: &Request,
    channel: &Channel,
) -> Result<(), ()> {
    let header = shared.header();
    header.done.store(request.start, Ordering::Release);
    loop {
        let i = header.done.load(Ordering::Acquire);
        if i >= request.end {
            return Ok(());
        }
        header.started_ns.store(monotonic_ns(), Ordering::Release);
        let puzzle = shared.puzzle(i as usize);
        let ((count, guesses), instructions) =
            sudoku_bench_core::valgrind::count(|| caller.call(&puzzle, request.limit));
        let answer = RawAnswer {
            count,
            guesses,
            solution: caller.solution(),
        };
        let now = monotonic_ns();
        let i = header.done.load(Ordering::Acquire);
        let begun = header.started_ns.load(Ordering::Acquire);
        if i >= request.end {
            return Ok(());
        }
        let instructions = instructions.unwrap_or(super::shared::NOT_COUNTED);
        shared.answer(i as usize, &answer, now.saturating_sub(begun), instructions);
        if let Some(fd) = channel.broken() {
            header.broken_fd.store(fd as u32, Ordering::Release);
            return Err(());
        }
        header.done.store(i + 1, Ordering::Release);
    }
}

/// `fd` moved to a number near the top of what this process may open (at most 1024, so
/// that its table of descriptors stays small), or left where it is when it cannot be.
fn lift(fd: RawFd) -> RawFd {
    // SAFETY: getrlimit fills a zeroed struct.
    let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
    unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    let top = RawFd::try_from(limit.rlim_cur.min(1024)).unwrap_or(1024);
    let low = (top - 16).max(SHARED_FD + 1);
    // SAFETY: fcntl and close on a descriptor this process owns, with integer arguments.
    unsafe {
        let high = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, low);
        if high < 0 {
            return fd;
        }
        libc::close(fd);
        high
    }
}

/// The worker's pipes to the parent, as they were when it started: a descriptor that no
/// longer names the same pipe was closed (or closed and opened again) by the library.
struct Channel(Vec<(RawFd, Option<(libc::dev_t, libc::ino_t)>)>);

impl Channel {
    fn of(fds: &[RawFd]) -> Channel {
        Channel(fds.iter().map(|&fd| (fd, identity(fd))).collect())
    }

    /// The first descriptor that is not what it was, if any.
    fn broken(&self) -> Option<RawFd> {
        (self.0.iter())
            .find(|(fd, was)| identity(*fd) != *was)
            .map(|(fd, _)| *fd)
    }
}

/// The device and inode `fd` names, or `None` when it is not open.
fn identity(fd: RawFd) -> Option<(libc::dev_t, libc::ino_t)> {
    // SAFETY: fstat fills a zeroed struct; a closed descriptor fails, checked.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    (unsafe { libc::fstat(fd, &mut stat) } == 0).then_some((stat.st_dev, stat.st_ino))
}

fn report_usage(shared: &Shared) {
    // SAFETY: getrusage fills a zeroed struct.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let used = crate::usage::of_rusage(&usage);
    let header = shared.header();
    header
        .max_rss_kib
        .store(used.max_rss_kib, Ordering::Relaxed);
    header.cpu_ns.store(used.cpu_ns, Ordering::Relaxed);
}

/// Say why the worker cannot serve, and exit so.
fn refuse(replies: &mut File, why: &str) -> i32 {
    let _ = replies.write_all(&Reply::Refused(why.to_string()).encode());
    3
}

/// An error and its sources, as one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// 82 writable bytes that end where a page no one may touch begins.
fn guarded_buffer() -> std::io::Result<*mut Text81> {
    // SAFETY: sysconf takes an integer.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    // SAFETY: a fresh private mapping of two pages, checked; the second is then made
    // inaccessible. Both stay mapped for the process's life.
    unsafe {
        let base = libc::mmap(
            std::ptr::null_mut(),
            2 * page,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if base == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let guard = base.cast::<u8>().add(page);
        if libc::mprotect(guard.cast(), page, libc::PROT_NONE) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(guard.sub(std::mem::size_of::<Text81>()).cast())
    }
}

/// Note the address of a segmentation fault or bus error, then let it end the process as
/// it would have (the handler resets itself, so the faulting access, made again, kills).
fn catch_faults() -> std::io::Result<()> {
    const STACK: usize = 64 * 1024;
    // SAFETY: an alternate stack leaked for the process's life (a fault may come from a
    // stack overflow), and a handler that only stores an integer (async-signal-safe).
    unsafe {
        let stack = Box::leak(vec![0u8; STACK].into_boxed_slice());
        let alt = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: STACK,
        };
        if libc::sigaltstack(&alt, std::ptr::null_mut()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_fault as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESETHAND;
        for signal in [libc::SIGSEGV, libc::SIGBUS] {
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

extern "C" fn on_fault(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    let note = FAULT_NOTE.load(Ordering::Acquire);
    // SAFETY: the kernel's siginfo; only a fault the kernel raised (si_code > 0) carries an
    // address. The note points into the shared header, mapped for the process's life.
    unsafe {
        if !note.is_null() && !info.is_null() && (*info).si_code > 0 {
            (*note).store((*info).si_addr() as u64, Ordering::Relaxed);
        }
        // Pending until the handler returns (the signal is blocked in it), then fatal with
        // the default action: a signal sent with kill(2), which nothing would raise
        // again, ends the worker too.
        libc::raise(signal);
    }
}
