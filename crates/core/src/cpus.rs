//! Where a run's workers run: the CPUs the tool was given (its affinity mask, so that
//! `taskset`, cgroup cpusets, Slurm's and Kubernetes' CPU sets are honoured) and the one
//! each worker thread is pinned to.
//!
//! Pinning is what makes an in-run comparison fair on a shared machine: the CPUs of a
//! virtual machine differ in speed by several percent, and a worker the scheduler moves
//! between them times one strategy on one CPU and the other on another. A pinned worker
//! times every strategy on its own CPU, and the processes it starts for solvers from
//! outside (isolated `lib:` workers, `cmd:` copies and their children) inherit its CPU:
//! Linux copies the affinity of the thread that forks. Workers take distinct cores before
//! two siblings of one core (hyper-threads share a core's units), as BenchExec does.

use serde::{Deserialize, Serialize};

/// A CPU the tool may run on, with the core it belongs to when the system tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cpu {
    /// The CPU's number, as `taskset` and `/sys/devices/system/cpu/cpuN` name it.
    pub id: usize,
    /// (package, core) of its physical core; `None` when unknown (each CPU is then taken
    /// for a core of its own).
    pub core: Option<(u32, u32)>,
}

/// Where a run's workers ran, as its summary records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// The CPUs the tool was given, ascending.
    pub allowed: Vec<usize>,
    /// Worker `i`'s CPU, for each worker; empty when the workers were not pinned.
    pub workers: Vec<usize>,
    /// Why the workers were not pinned, or that two of them share a core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Placement {
    /// Whether each worker was pinned to a CPU of its own.
    pub fn pinned(&self) -> bool {
        !self.workers.is_empty()
    }

    /// One line for the summary: the CPUs, and whether the workers were pinned.
    pub fn describe(&self) -> String {
        let list = |cpus: &[usize]| {
            cpus.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut line = if self.pinned() {
            format!("workers pinned to CPUs {}", list(&self.workers))
        } else {
            format!("workers not pinned, on CPUs {}", list(&self.allowed))
        };
        if let Some(note) = &self.note {
            line.push_str(&format!(" ({note})"));
        }
        line
    }
}

/// The placement of `threads` workers on `allowed` CPUs: pinned one to a CPU, distinct
/// cores first, starting from the core of CPU `here` (the one the caller runs on), when
/// `pin` and there are CPUs enough. Starting where the scheduler put the process spreads
/// runs started side by side (the tests of a suite, the jobs of a node) over the CPUs, as
/// it spread them; starting from the first CPU would pile every `-j 1` run onto it. With
/// more workers than CPUs they are left to the scheduler, which shares the CPUs out evenly
/// among them: pinned, two workers would halve one CPU while a third had another to itself.
pub fn plan(allowed: &[Cpu], threads: usize, pin: bool, here: Option<usize>) -> Placement {
    let mut by_id = allowed.to_vec();
    by_id.sort_by_key(|c| c.id);
    let ids: Vec<usize> = by_id.iter().map(|c| c.id).collect();
    let unpinned = |note: String| Placement {
        allowed: ids.clone(),
        workers: Vec::new(),
        note: Some(note),
    };
    if !pin {
        return unpinned("--no-pin".into());
    }
    if by_id.is_empty() {
        return unpinned("this system does not tell the CPUs a process may use".into());
    }
    if threads > by_id.len() {
        return unpinned(format!(
            "{threads} workers on {} CPUs: they share them, so the scheduler places them",
            by_id.len()
        ));
    }
    // One CPU of each core first, then the cores' other CPUs.
    let mut seen = std::collections::HashSet::new();
    let (first, siblings): (Vec<Cpu>, Vec<Cpu>) = by_id
        .iter()
        .partition(|c| c.core.is_none_or(|core| seen.insert(core)));
    let mut first = first;
    // Start from the core the caller runs on (its CPU, or that CPU's core-mate).
    let start = here.and_then(|cpu| {
        let at = by_id.iter().find(|c| c.id == cpu)?;
        first
            .iter()
            .position(|c| c.id == cpu || (c.core.is_some() && c.core == at.core))
    });
    if let Some(at) = start {
        first.rotate_left(at);
    }
    let order: Vec<Cpu> = first.into_iter().chain(siblings).collect();
    let workers: Vec<Cpu> = order.into_iter().take(threads).collect();
    let mut cores = std::collections::HashSet::new();
    let shared = workers
        .iter()
        .filter_map(|c| c.core)
        .any(|core| !cores.insert(core));
    let known = workers.iter().all(|c| c.core.is_some());
    let note = if shared {
        Some("more workers than cores: some share a core as its sibling CPUs".to_string())
    } else if known && threads > 1 {
        Some("each on a core of its own".to_string())
    } else {
        None
    };
    Placement {
        allowed: ids,
        workers: workers.iter().map(|c| c.id).collect(),
        note,
    }
}

/// The CPUs this process may run on (the calling thread's affinity mask), with their
/// cores; empty where the system does not tell.
pub fn allowed() -> Vec<Cpu> {
    os::affinity()
        .unwrap_or_default()
        .into_iter()
        .map(|id| Cpu {
            id,
            core: os::core_of(id),
        })
        .collect()
}

/// The CPU the calling thread runs on now, where the system tells.
pub fn current() -> Option<usize> {
    os::current()
}

/// Pin the calling thread to `cpu`: it runs there only, and so do the processes it starts.
pub(crate) fn pin_current_thread(cpu: usize) -> std::io::Result<()> {
    os::pin(cpu)
}

#[cfg(target_os = "linux")]
mod os {
    use std::io;

    /// The calling thread's affinity mask, as CPU numbers.
    pub(super) fn affinity() -> io::Result<Vec<usize>> {
        // SAFETY: cpu_set_t is plain bits; zeroed is the empty set, and sched_getaffinity
        // writes at most its size.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::cpu_set_t>();
        if unsafe { libc::sched_getaffinity(0, size, &mut set) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let bits = 8 * size;
        // SAFETY: CPU_ISSET reads one bit of the set, for numbers below its size in bits.
        Ok((0..bits)
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .collect())
    }

    /// Pin the calling thread (pid 0 in sched_setaffinity is the caller) to `cpu`.
    pub(super) fn pin(cpu: usize) -> io::Result<()> {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        if cpu >= 8 * size {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        // SAFETY: as above; CPU_SET writes one bit below the set's size, checked above.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        unsafe { libc::CPU_SET(cpu, &mut set) };
        if unsafe { libc::sched_setaffinity(0, size, &set) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The CPU the calling thread runs on.
    pub(super) fn current() -> Option<usize> {
        // SAFETY: sched_getcpu takes nothing and returns a number or -1.
        usize::try_from(unsafe { libc::sched_getcpu() }).ok()
    }

    /// (package, core) of CPU `id`, from sysfs.
    pub(super) fn core_of(id: usize) -> Option<(u32, u32)> {
        let read = |what: &str| -> Option<u32> {
            let path = format!("/sys/devices/system/cpu/cpu{id}/topology/{what}");
            std::fs::read_to_string(path).ok()?.trim().parse().ok()
        };
        Some((read("physical_package_id")?, read("core_id")?))
    }
}

#[cfg(not(target_os = "linux"))]
mod os {
    use std::io;

    pub(super) fn affinity() -> io::Result<Vec<usize>> {
        Ok(Vec::new())
    }

    pub(super) fn pin(_cpu: usize) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "pinning threads to CPUs is done on Linux only",
        ))
    }

    pub(super) fn core_of(_id: usize) -> Option<(u32, u32)> {
        None
    }

    pub(super) fn current() -> Option<usize> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(id: usize, core: u32) -> Cpu {
        Cpu {
            id,
            core: Some((0, core)),
        }
    }

    /// Four cores, two CPUs each, numbered as Linux often does: 0-3 one of each core,
    /// 4-7 their siblings; given out of order.
    fn smt() -> Vec<Cpu> {
        (0..8).rev().map(|id| cpu(id, (id % 4) as u32)).collect()
    }

    #[test]
    fn workers_take_distinct_cores_before_siblings() {
        let p = plan(&smt(), 4, true, None);
        assert_eq!(p.allowed, (0..8).collect::<Vec<_>>());
        assert_eq!(p.workers, [0, 1, 2, 3]);
        assert!(p.describe().contains("core of its own"), "{}", p.describe());
        // Numbered the other way (siblings adjacent): still one CPU a core first.
        let adjacent: Vec<Cpu> = (0..8).map(|id| cpu(id, (id / 2) as u32)).collect();
        assert_eq!(plan(&adjacent, 4, true, None).workers, [0, 2, 4, 6]);
        assert_eq!(plan(&adjacent, 1, true, None).workers, [0]);
    }

    #[test]
    fn workers_start_from_the_core_the_caller_runs_on() {
        // Runs started side by side, each where the scheduler put it, spread out.
        assert_eq!(plan(&smt(), 1, true, Some(2)).workers, [2]);
        assert_eq!(plan(&smt(), 2, true, Some(3)).workers, [3, 0]);
        // On a sibling: its core's first CPU, then the other cores, then siblings.
        assert_eq!(plan(&smt(), 1, true, Some(6)).workers, [2]);
        assert_eq!(plan(&smt(), 6, true, Some(5)).workers, [1, 2, 3, 0, 4, 5]);
        // A CPU outside the set changes nothing.
        assert_eq!(plan(&smt(), 2, true, Some(99)).workers, [0, 1]);
    }

    #[test]
    fn siblings_are_used_only_past_the_cores_and_said() {
        let p = plan(&smt(), 6, true, None);
        assert_eq!(p.workers, [0, 1, 2, 3, 4, 5]);
        assert!(p.describe().contains("share a core"), "{}", p.describe());
    }

    #[test]
    fn the_given_set_is_honoured() {
        // A cpuset of CPUs 2, 5 and 7 (as taskset -c 2,5,7 gives): only those.
        let set: Vec<Cpu> = smt()
            .into_iter()
            .filter(|c| [2, 5, 7].contains(&c.id))
            .collect();
        let p = plan(&set, 2, true, None);
        assert_eq!(p.allowed, [2, 5, 7]);
        // 5 is core 1, 2 core 2, 7 core 3: three cores, taken in CPU order.
        assert_eq!(p.workers, [2, 5]);
    }

    #[test]
    fn more_workers_than_cpus_are_left_to_the_scheduler_and_said() {
        let set = vec![cpu(0, 0), cpu(1, 1)];
        let p = plan(&set, 3, true, None);
        assert!(!p.pinned());
        assert_eq!(p.allowed, [0, 1]);
        assert!(
            p.describe().contains("3 workers on 2 CPUs"),
            "{}",
            p.describe()
        );
    }

    #[test]
    fn no_pin_and_unknown_topology() {
        let set = vec![cpu(0, 0), cpu(1, 1)];
        let p = plan(&set, 2, false, None);
        assert!(!p.pinned());
        assert_eq!(p.describe(), "workers not pinned, on CPUs 0, 1 (--no-pin)");
        let unknown = [Cpu { id: 3, core: None }, Cpu { id: 1, core: None }];
        let p = plan(&unknown, 2, true, None);
        assert_eq!(p.workers, [1, 3]);
        assert_eq!(p.note, None);
        assert!(!plan(&[], 1, true, None).pinned());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pinned_thread_and_the_process_it_starts_run_on_its_cpu_only() {
        let mine = allowed();
        assert!(!mine.is_empty(), "Linux tells a process its CPUs");
        let last = mine.iter().map(|c| c.id).max().unwrap();
        let child_mask = std::thread::spawn(move || {
            pin_current_thread(last).unwrap();
            let here: Vec<usize> = allowed().iter().map(|c| c.id).collect();
            assert_eq!(here, [last]);
            // A child inherits the mask of the thread that started it.
            let out = std::process::Command::new("sh")
                .args(["-c", "grep Cpus_allowed_list /proc/self/status"])
                .output()
                .unwrap();
            String::from_utf8(out.stdout).unwrap()
        })
        .join()
        .unwrap();
        assert_eq!(
            child_mask.split_whitespace().last(),
            Some(last.to_string().as_str()),
            "{child_mask}"
        );
        // Other threads keep the process's whole set.
        assert_eq!(allowed(), mine);
    }
}
