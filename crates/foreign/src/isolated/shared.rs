//! The memory an isolated solver's two sides share: a header that the worker keeps up to
//! date as it solves, and a slot per puzzle of a batch (the puzzle in, the answer and its
//! time out). Only the small requests and replies go through pipes.
//!
//! The parent writes puzzles before it sends a request and reads answers after the worker
//! has published them (`Header::done`, with release and acquire), so neither side ever
//! reads what the other may be writing. A worker that dies mid-batch leaves its finished
//! answers readable: the mapping is the parent's as much as the worker's.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU32, AtomicU64};

use crate::library::RawAnswer;

/// Puzzles in one batch at most.
pub(super) const SLOTS: usize = 128;

/// What the worker keeps up to date.
#[repr(C)]
pub(super) struct Header {
    /// The index of the puzzle being solved: the slots before it hold answers.
    pub(super) done: AtomicU32,
    /// Set by the worker once it has read the request the parent sent last (which zeroes
    /// it): a worker that ends before was solving none of its puzzles.
    pub(super) taken: AtomicU32,
    /// When the puzzle at `done` began, in nanoseconds of `CLOCK_MONOTONIC` (one clock
    /// for every process of the machine). The parent sets it when it sends a request.
    pub(super) started_ns: AtomicU64,
    /// The address the worker faulted at (0: it has not).
    pub(super) fault_addr: AtomicU64,
    /// The first byte after the solution buffer: the guard page the worker faults on when
    /// a solver writes past it.
    pub(super) guard_addr: AtomicU64,
    /// The worker's peak resident set (KiB) and CPU time (ns), as of its last batch.
    pub(super) max_rss_kib: AtomicU64,
    pub(super) cpu_ns: AtomicU64,
    /// The descriptor of the worker's channel to the parent that the solve of the puzzle
    /// at `done` closed or replaced (0: none did), noted before the worker gives up.
    pub(super) broken_fd: AtomicU32,
}

/// One puzzle of a batch.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Slot {
    /// The puzzle, 81 characters `1`-`9` or `.`.
    pub(super) puzzle: [u8; 81],
    /// What the solver returned.
    pub(super) answer: RawAnswer,
    /// How long the call took, measured by the worker.
    pub(super) ns: u64,
    /// The instructions the call executed, counted by the worker ([`NOT_COUNTED`]: not).
    pub(super) instructions: u64,
}

/// [`Slot::instructions`] of a call whose instructions were not counted.
pub(super) const NOT_COUNTED: u64 = u64::MAX;

impl Slot {
    /// What the call cost, as the harness keeps it.
    pub(super) fn cost(&self) -> sudoku_bench_core::clock::Cost {
        sudoku_bench_core::clock::Cost {
            ns: self.ns,
            instructions: (self.instructions != NOT_COUNTED).then_some(self.instructions),
        }
    }
}

const SIZE: usize = std::mem::size_of::<Header>() + SLOTS * std::mem::size_of::<Slot>();

/// The shared mapping, from either side.
pub(super) struct Shared {
    base: *mut u8,
    fd: OwnedFd,
}

// SAFETY: the mapping is owned by this value; its header is atomics, and its slots are
// reached only through `&self` methods that copy them, never while the other side may
// write them (see the comment above `read`).
unsafe impl Send for Shared {}

impl Shared {
    /// A new mapping, for the parent; its file descriptor is handed to the worker.
    pub(super) fn create() -> io::Result<Shared> {
        // SAFETY: a NUL-terminated name and flags; the result is checked.
        let fd =
            unsafe { libc::memfd_create(c"sudoku-bench-isolated".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just created and is ours alone.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: ftruncate on a descriptor we own.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), SIZE as libc::off_t) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Shared::map(fd)
    }

    /// The mapping the parent made, for the worker, from the descriptor it inherited.
    ///
    /// # Safety
    ///
    /// `fd` must be the parent's mapping's descriptor, owned by nothing else here.
    pub(super) unsafe fn open(fd: RawFd) -> io::Result<Shared> {
        Shared::map(OwnedFd::from_raw_fd(fd))
    }

    fn map(fd: OwnedFd) -> io::Result<Shared> {
        // SAFETY: a fresh shared mapping of the whole file, checked below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Shared {
            base: base.cast(),
            fd,
        })
    }

    /// The descriptor, for the worker to inherit.
    pub(super) fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The header.
    pub(super) fn header(&self) -> &Header {
        // SAFETY: the mapping starts with a header (page-aligned, zeroed by ftruncate,
        // which is a valid `Header`) and lives as long as `self`.
        unsafe { &*self.base.cast::<Header>() }
    }

    fn slot(&self, i: usize) -> *mut Slot {
        assert!(i < SLOTS, "slot {i} of {SLOTS}");
        // SAFETY: within the mapping, as `SIZE` counts `SLOTS` slots after the header;
        // `Slot` needs 8-byte alignment, which the header's size keeps.
        unsafe {
            self.base
                .add(std::mem::size_of::<Header>())
                .cast::<Slot>()
                .add(i)
        }
    }

    // Plain reads and writes: the two sides never touch a slot at once. The parent
    // writes puzzles before its request (a system call the worker's read returns from),
    // and reads answers only below `Header::done`, which the worker stores with release
    // after them, or once the worker is dead.

    /// Slot `i`, as it is now.
    pub(super) fn read(&self, i: usize) -> Slot {
        // SAFETY: a valid slot (see `slot`).
        unsafe { self.slot(i).read() }
    }

    /// Set slot `i`.
    pub(super) fn write(&self, i: usize, slot: &Slot) {
        // SAFETY: a valid slot (see `slot`).
        unsafe { self.slot(i).write(*slot) }
    }

    /// The puzzle of slot `i`.
    #[inline]
    pub(super) fn puzzle(&self, i: usize) -> [u8; 81] {
        // SAFETY: a field of a valid slot (see `slot`).
        unsafe { std::ptr::addr_of!((*self.slot(i)).puzzle).read() }
    }

    /// Set the answer of slot `i` and the time it took.
    #[inline]
    pub(super) fn answer(&self, i: usize, answer: &RawAnswer, ns: u64, instructions: u64) {
        let slot = self.slot(i);
        // SAFETY: fields of a valid slot (see `slot`).
        unsafe {
            std::ptr::addr_of_mut!((*slot).answer).write(*answer);
            std::ptr::addr_of_mut!((*slot).ns).write(ns);
            std::ptr::addr_of_mut!((*slot).instructions).write(instructions);
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once.
        unsafe { libc::munmap(self.base.cast(), SIZE) };
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds: what `Instant` reads on Linux, as a number both
/// processes can compare.
#[inline]
pub(super) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

const _: () = assert!(std::mem::size_of::<Header>().is_multiple_of(8));
