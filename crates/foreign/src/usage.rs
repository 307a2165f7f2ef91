//! What a solver's process used, as the kernel counts it: from `wait4` for a process we
//! reap, from `/proc` for one that runs (or that someone else will reap).

use sudoku_bench_core::strategy::Usage;

/// A reaped process's usage (its own reaped children included).
pub(super) fn of_rusage(used: &libc::rusage) -> Usage {
    let ns = |t: &libc::timeval| {
        let secs = u64::try_from(t.tv_sec).unwrap_or(0);
        let micros = u64::try_from(t.tv_usec).unwrap_or(0);
        secs.saturating_mul(1_000_000_000)
            .saturating_add(micros.saturating_mul(1_000))
    };
    Usage {
        // Linux counts it in KiB.
        max_rss_kib: u64::try_from(used.ru_maxrss).unwrap_or(0),
        cpu_ns: ns(&used.ru_utime).saturating_add(ns(&used.ru_stime)),
        processes: 0,
    }
}

/// Process `pid`'s usage so far, its reaped children's CPU time included; `None` when
/// it cannot be read (gone, or not Linux).
#[cfg(target_os = "linux")]
pub(super) fn of_running(pid: u32) -> Option<Usage> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // A zombie has no memory left to show: its peak is then unknown (0).
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    Some(Usage {
        max_rss_kib: peak_kib(&status).unwrap_or(0),
        cpu_ns: cpu_ns(&stat)?,
        processes: 0,
    })
}

#[cfg(not(target_os = "linux"))]
pub(super) fn of_running(_pid: u32) -> Option<Usage> {
    None
}

/// `VmHWM` of a `/proc/PID/status`, in KiB.
fn peak_kib(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// utime + stime + cutime + cstime of a `/proc/PID/stat`, in ns.
#[cfg(target_os = "linux")]
fn cpu_ns(stat: &str) -> Option<u64> {
    // The command, field 2, is in parentheses and may hold spaces and parentheses: the
    // fields are counted from after its last `)`, where field 3 (the state) starts.
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_ascii_whitespace().collect();
    // Fields 14 to 17, from field 3 at index 0.
    let ticks = fields.get(11..15)?.iter().try_fold(0u64, |sum, f| {
        let n: i64 = f.parse().ok()?;
        Some(sum.saturating_add(u64::try_from(n).unwrap_or(0)))
    })?;
    // SAFETY: sysconf takes an integer and touches no memory of ours.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let per_second = u64::try_from(per_second).ok().filter(|&t| t > 0)?;
    Some(ticks.saturating_mul(1_000_000_000) / per_second)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_read_however_the_command_is_named() {
        let status = "Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(peak_kib(status), Some(1234));
        assert_eq!(peak_kib("Name:\tx\nState:\tZ (zombie)\n"), None);
        #[cfg(target_os = "linux")]
        {
            // SAFETY: as in cpu_ns.
            let tick = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).unwrap();
            let stat = "42 (a ) b) S 1 42 42 0 -1 4194560 100 0 0 0 3 4 5 6 20 0 1 0 9 0 0";
            assert_eq!(cpu_ns(stat), Some(18 * 1_000_000_000 / tick));
            assert_eq!(cpu_ns("42 (x) S 1"), None);
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_running_process_is_read_from_proc() {
        let me = of_running(std::process::id()).unwrap();
        assert!(me.max_rss_kib > 0, "{me:?}");
        assert_eq!(of_running(u32::MAX), None);
    }
}
