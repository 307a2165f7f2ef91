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
    cpu_name(&std::fs::read_to_string("/proc/cpuinfo").ok()?)
}

/// The CPU that `/proc/cpuinfo`'s text `info` names: its model name, with the x86 family
/// and model numbers after it where it gives them. A cloud guest's model name is often only
/// the maker's line ("AMD EPYC", "Intel Xeon Processor"), the same for processors of
/// different generations and speeds; the numbers tell those apart, so that no comparison
/// or history series mixes them.
fn cpu_name(info: &str) -> Option<String> {
    // The first processor's block, so that the name and the numbers are one processor's.
    let first = info.split("\n\n").next().unwrap_or(info);
    let name = field(first, "model name")
        // An ARM board's name (a Raspberry Pi's) follows the processors' blocks.
        .or_else(|| field(info, "Model"))?;
    Some(match (field(first, "cpu family"), field(first, "model")) {
        (Some(family), Some(model)) => format!("{name} (family {family} model {model})"),
        _ => name,
    })
}

/// The value of the first `key: value` line of `text` whose key is `key`.
fn field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::cpu_name;

    #[test]
    fn an_x86_cpu_is_named_with_its_family_and_model() {
        let info = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\n\
                    model\t\t: 2\nmodel name\t: AMD EPYC\nstepping\t: 1\n\n\
                    processor\t: 1\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: Other\n";
        assert_eq!(
            cpu_name(info).as_deref(),
            Some("AMD EPYC (family 26 model 2)")
        );
    }

    #[test]
    fn a_cpu_without_family_numbers_is_named_by_its_model_line() {
        let info = "processor\t: 0\nBogoMIPS\t: 108.00\n\nHardware\t: BCM2835\n\
                    Model\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
        assert_eq!(
            cpu_name(info).as_deref(),
            Some("Raspberry Pi 4 Model B Rev 1.4")
        );
        assert_eq!(cpu_name("processor\t: 0\n"), None);
    }
}
