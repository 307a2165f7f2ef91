//! Exact instruction counts of single solves, from Valgrind's callgrind: what `run --measure
//! instructions` records instead of relying on a quiet machine (see docs/guide.md).
//!
//! The run is started again under callgrind with collection off (`--collect-atstart=no`),
//! each thread's costs kept apart (`--separate-threads=yes`) and every dump appended to one
//! file per process (`--combine-dumps=yes`), named by [`OUT_DIR`] and the process's id. A
//! counted solve turns collection on just before the call and off just after it, then asks
//! for a dump labelled with a number of its own ([`count`]); the dump holds this thread's
//! instructions since the last one, which were the solve's alone, and is read back from the
//! end of the file at once. Isolated `lib:` workers, the executable again, are traced too
//! (`--trace-children=yes`) and count their own calls the same way.
//!
//! Valgrind runs the program on a simulated CPU without AVX-512 (it reports no such
//! features), so a solver that picks its code at run time is counted on its AVX2 or
//! portable path. Counts differ between builds and between Valgrind versions, and may
//! between machines (the C library picks some routines by the CPU it finds).
//!
//! The requests are Valgrind's "client requests": a sequence of instructions that does
//! nothing on a real CPU and that Valgrind's translator recognises. The one `unsafe` block
//! below is that sequence, as valgrind.h defines it for x86-64.

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable naming the directory callgrind writes its files into: set by
/// `run --measure instructions` for the run it starts under Valgrind, so that the run and
/// its isolated workers know to count and where to read.
pub const OUT_DIR: &str = "SUDOKU_BENCH_CALLGRIND_DIR";

/// The environment variable naming Valgrind's executable, set beside [`OUT_DIR`]: a `cmd:`
/// solver's copies are started under it ([`command_prefix`]), and this process's callgrind
/// does not trace into it (`--trace-children-skip`).
pub const VALGRIND: &str = "SUDOKU_BENCH_VALGRIND";

/// The file name callgrind is given (`--callgrind-out-file`), `%p` its process's id.
pub const OUT_FILE: &str = "callgrind.out.%p";

/// Valgrind's request numbers (valgrind.h, callgrind.h).
const RUNNING_ON_VALGRIND: usize = 0x1001;
const CALLGRIND_BASE: usize = ((b'C' as usize) << 24) | ((b'T' as usize) << 16);
const TOGGLE_COLLECT: usize = CALLGRIND_BASE + 2;
const DUMP_STATS_AT: usize = CALLGRIND_BASE + 3;

/// Make client request `request` with `args`; `default` is what it returns on a real CPU.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn request(default: usize, request: usize, args: [usize; 5]) -> usize {
    let block: [usize; 6] = [request, args[0], args[1], args[2], args[3], args[4]];
    let mut result = default;
    // SAFETY: the rotations of rdi add up to 128 bits and leave it as it was, and
    // `xchg rbx, rbx` changes nothing: on a real CPU the block is a no-op but for the
    // flags the rotations set (so no `preserves_flags`). Under Valgrind it reads the six
    // words at rax (which live until the block ends) and writes rdx.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") block.as_ptr(),
            out("rdi") _,
            options(nostack),
        );
    }
    result
}

/// No client requests elsewhere: never under Valgrind as far as this code can tell.
#[cfg(not(target_arch = "x86_64"))]
fn request(default: usize, _request: usize, _args: [usize; 5]) -> usize {
    default
}

/// Whether this process runs under Valgrind.
pub fn running_on_valgrind() -> bool {
    request(0, RUNNING_ON_VALGRIND, [0; 5]) > 0
}

/// Whether this process counts its solves: started by `run --measure instructions` (the
/// directory named) and under Valgrind.
// Inline across crates: `count` asks it inside the time of each call, and the isolated
// workers of sudoku-bench-foreign instantiate `count`.
#[inline]
pub fn counting() -> bool {
    static COUNTING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *COUNTING.get_or_init(|| std::env::var_os(OUT_DIR).is_some() && running_on_valgrind())
}

/// Whether this machine's CPU has AVX-512 (`/proc/cpuinfo`'s flags), which Valgrind does not
/// show the program it runs: solvers that pick their code at run time were then counted on
/// another path than a timed run takes.
pub fn hides_avx512() -> bool {
    std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|info| {
        info.lines()
            .find(|l| l.starts_with("flags"))
            .is_some_and(|l| l.split_whitespace().any(|f| f == "avx512f"))
    })
}

/// Each dump's label, unique within the process.
static NEXT_LABEL: AtomicU64 = AtomicU64::new(0);

/// Where this thread has read the process's callgrind file up to.
struct Reader {
    file: Option<File>,
    offset: u64,
    pending: Vec<u8>,
}

thread_local! {
    static READER: RefCell<Reader> = const {
        RefCell::new(Reader {
            file: None,
            offset: 0,
            pending: Vec::new(),
        })
    };
}

/// Run `solve`, and count the instructions it executed when this process counts
/// ([`counting`]); `None` when it does not, or when the count could not be read.
#[inline]
pub fn count<R>(solve: impl FnOnce() -> R) -> (R, Option<u64>) {
    if !counting() {
        return (solve(), None);
    }
    request(0, TOGGLE_COLLECT, [0; 5]);
    let result = solve();
    request(0, TOGGLE_COLLECT, [0; 5]);
    let label = format!(
        "sudoku-bench solve {}\0",
        NEXT_LABEL.fetch_add(1, Ordering::Relaxed)
    );
    request(0, DUMP_STATS_AT, [label.as_ptr() as usize, 0, 0, 0, 0]);
    let instructions = READER.with_borrow_mut(|reader| reader.totals(&label[..label.len() - 1]));
    (result, instructions)
}

impl Reader {
    /// The `totals:` of the part dumped with `label`, read from where the last one ended.
    fn totals(&mut self, label: &str) -> Option<u64> {
        if self.file.is_none() {
            let dir = PathBuf::from(std::env::var_os(OUT_DIR)?);
            let name = OUT_FILE.replace("%p", &std::process::id().to_string());
            self.file = Some(File::open(dir.join(name)).ok()?);
        }
        let file = self.file.as_mut()?;
        file.seek(SeekFrom::Start(self.offset)).ok()?;
        let mut more = Vec::new();
        file.read_to_end(&mut more).ok()?;
        self.offset += more.len() as u64;
        self.pending.extend_from_slice(&more);
        let (count, used) = totals_after(&self.pending, label)?;
        self.pending.drain(..used);
        Some(count)
    }
}

/// How a `cmd:` solver's copy is started when this process counts ([`counting`]): this
/// Valgrind, then these arguments, then the solver's command. The copy runs under a
/// callgrind of its own, collecting from the start and dumping each time the program
/// enters the C library's `read`: a copy that has answered a request and waits for the
/// next one has just dumped what it executed since it last waited, that request's work
/// alone. Its files go to [`OUT_DIR`] as `cmd.PID.N` ([`command_dump_prefix`]).
/// `None` when this process does not count.
pub fn command_prefix() -> Option<(PathBuf, Vec<std::ffi::OsString>)> {
    if !counting() {
        return None;
    }
    let valgrind = PathBuf::from(std::env::var_os(VALGRIND)?);
    let mut out_file = std::ffi::OsString::from("--callgrind-out-file=");
    out_file.push(PathBuf::from(std::env::var_os(OUT_DIR)?).join(format!("{COMMAND_DUMPS}%p")));
    let args = [
        "--tool=callgrind",
        "-q",
        "--dump-before=read",
        // A script's interpreter (`#!`) and what a wrapper execs keep the process's id.
        "--trace-children=yes",
    ]
    .into_iter()
    .map(std::ffi::OsString::from)
    .chain([out_file])
    .collect();
    Some((valgrind, args))
}

/// The first executable file named `name` in the directories of `PATH`, as a shell finds it.
pub fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|path| executable(path))
}

/// Whether `path` is a file that may be executed.
fn executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `Err` when `program` (a path, or a name looked for on `PATH`) is no executable file:
/// under Valgrind ([`command_prefix`]), which would start and then say so itself, a
/// missing solver would otherwise pass for one that does not speak the protocol.
pub fn command_found(program: &str) -> std::io::Result<()> {
    let found = if program.contains('/') {
        executable(std::path::Path::new(program))
    } else {
        on_path(program).is_some()
    };
    if found {
        return Ok(());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        "no executable file of that name (looked for before starting it under Valgrind)",
    ))
}

/// How the dump files of a `cmd:` copy begin, before `PID.N` ([`command_prefix`]).
const COMMAND_DUMPS: &str = "cmd.";

/// The directory and file-name prefix of the dumps of the `cmd:` copy whose process is
/// `pid` ([`command_prefix`]), each file one dump, numbered from 1.
pub fn command_dump_prefix(pid: u32) -> Option<(PathBuf, String)> {
    Some((
        PathBuf::from(std::env::var_os(OUT_DIR)?),
        format!("{COMMAND_DUMPS}{pid}."),
    ))
}

/// The `totals:` of a file holding one dump (a `cmd:` copy's).
pub fn dump_totals(text: &[u8]) -> Option<u64> {
    let at = memchr::memmem::find(text, b"\ntotals: ")? + b"\ntotals: ".len();
    first_count(text[at..].split(|&b| b == b'\n').next()?)
}

/// The instructions of what follows `totals: ` on its line.
fn first_count(counts: &[u8]) -> Option<u64> {
    // Several events would be several numbers; only instructions are collected.
    std::str::from_utf8(counts)
        .ok()?
        .trim()
        .split(' ')
        .next()?
        .parse()
        .ok()
}

/// In callgrind's output `text`, the `totals:` line of the part whose trigger is client
/// request `label`, and how many bytes of `text` reach past that line.
fn totals_after(text: &[u8], label: &str) -> Option<(u64, usize)> {
    let trigger = format!("desc: Trigger: Client Request: {label}\n");
    let start = memchr::memmem::find(text, trigger.as_bytes())? + trigger.len();
    let mut at = start;
    for line in text[start..].split_inclusive(|&b| b == b'\n') {
        at += line.len();
        if !line.ends_with(b"\n") {
            return None;
        }
        if line.starts_with(b"part:") {
            return None;
        }
        if let Some(counts) = line.strip_prefix(b"totals: ") {
            return Some((first_count(counts)?, at));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_PARTS: &str =
        "part: 1\nthread: 1\ndesc: Trigger: Client Request: sudoku-bench solve 0\n\
         events: Ir\nfn=(1) solve\n0 6022\nsummary: 6022\ntotals: 6022\n\
         part: 2\nthread: 1\ndesc: Trigger: Client Request: sudoku-bench solve 1\nevents: Ir\n\
         summary: 12019\ntotals: 12019\n";

    #[test]
    fn each_label_reads_its_own_parts_totals() {
        let (n, used) = totals_after(TWO_PARTS.as_bytes(), "sudoku-bench solve 0").unwrap();
        assert_eq!(n, 6022);
        assert!(TWO_PARTS[used..].starts_with("part: 2\n"));
        let (n, used) = totals_after(TWO_PARTS.as_bytes(), "sudoku-bench solve 1").unwrap();
        assert_eq!((n, used), (12019, TWO_PARTS.len()));
        // A label that is a prefix of another is not taken for it.
        assert_eq!(
            totals_after(TWO_PARTS.as_bytes(), "sudoku-bench solve"),
            None
        );
    }

    #[test]
    fn a_part_cut_before_its_totals_gives_none() {
        let cut = &TWO_PARTS[..TWO_PARTS.find("totals: 6022").unwrap() + 9];
        assert_eq!(totals_after(cut.as_bytes(), "sudoku-bench solve 0"), None);
        let next_part_first = "desc: Trigger: Client Request: x\npart: 2\ntotals: 5\n";
        assert_eq!(totals_after(next_part_first.as_bytes(), "x"), None);
    }

    #[test]
    fn outside_valgrind_nothing_is_counted_and_the_solve_still_runs() {
        assert!(!running_on_valgrind());
        assert_eq!(count(|| 7), (7, None));
    }
}
