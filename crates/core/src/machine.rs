//! `Machine`: what a benchmark ran on, recorded in summaries so numbers can be compared
//! only with numbers from the same kind of machine.

use serde::{Deserialize, Serialize};

/// The machine a run was timed on, as its summary records it: times from different
/// machines are not compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// CPU model as the OS names it.
    pub cpu: String,
    /// Logical cores available to this process.
    pub cores: usize,
    /// Operating system (`std::env::consts::OS`).
    pub os: String,
    /// CPU architecture (`std::env::consts::ARCH`).
    pub arch: String,
}

impl Machine {
    /// This machine.
    pub fn detect() -> Machine {
        Machine {
            cpu: cpu_model().unwrap_or_else(|| "unknown".to_string()),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
        }
    }
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.starts_with("model name") || l.starts_with("Model"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}
