//! `--shard K/N` and `--shard auto`: which part of its input this process takes, given or
//! read from the scheduler's environment (a Slurm job array, a Kubernetes Indexed Job).
//! The environment is used only when asked (`auto`), and said when not used: a task of an
//! array that reads the whole input by mistake would redo every other task's work.

use anyhow::bail;
use sudoku_bench::corpus::Shard;

/// `--shard`, for every command that reads corpora (and `generate`, by index).
#[derive(Debug, clap::Args)]
pub struct ShardArg {
    /// Take only part K of N of the input (K from 1, as in 3/8); every line belongs to
    /// exactly one part and keeps its line number (generate: part K of its --count puzzles,
    /// by index). `auto`: the part the environment names:
    /// a Slurm job array (SLURM_ARRAY_TASK_ID, _COUNT, _MIN, _MAX; the array must be
    /// contiguous, e.g. --array=1-8) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, and
    /// JOB_COMPLETIONS, which Kubernetes does not set: set it in the manifest to the job's
    /// completions).
    #[arg(long, value_name = "K/N|auto", value_parser = parse_spec)]
    shard: Option<Spec>,
}

/// What `--shard` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spec {
    Part(Shard),
    Auto,
}

fn parse_spec(s: &str) -> Result<Spec, String> {
    match s.trim() {
        "auto" => Ok(Spec::Auto),
        k_of_n => k_of_n.parse().map(Spec::Part),
    }
}

impl ShardArg {
    /// The part to take (`None`: the whole input), from the option and the environment;
    /// says on stderr which one the environment named, used or not.
    pub fn resolve(&self) -> anyhow::Result<Option<Shard>> {
        let (shard, note) = resolve(self.shard, |name| std::env::var(name).ok())?;
        if let Some(note) = note {
            stderr_line!("note: {note}");
        }
        Ok(shard)
    }
}

/// The part `spec` and the environment (`var`) say, and a note to print.
pub fn resolve(
    spec: Option<Spec>,
    var: impl Fn(&str) -> Option<String>,
) -> anyhow::Result<(Option<Shard>, Option<String>)> {
    let from_env = from_env(&var);
    match (spec, from_env) {
        (Some(Spec::Part(shard)), _) => Ok((Some(shard), None)),
        (Some(Spec::Auto), Ok(Some((shard, source)))) => Ok((
            Some(shard),
            Some(format!("--shard auto: part {shard}, from {source}")),
        )),
        (Some(Spec::Auto), Ok(None)) => bail!(
            "--shard auto: the environment names no part: neither a Slurm job array \
             (SLURM_ARRAY_TASK_ID) nor a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) is set; \
             give --shard K/N"
        ),
        (Some(Spec::Auto), Err(why)) => bail!("--shard auto: {why}"),
        (None, Ok(None)) => Ok((None, None)),
        (None, Ok(Some((shard, source)))) => Ok((
            None,
            Some(format!(
                "{source} makes this task part {shard}, but without --shard the whole input \
                 is read: pass --shard auto to take part {shard}"
            )),
        )),
        (None, Err(why)) => Ok((
            None,
            Some(format!(
                "this looks like a task of an array, but {why}; the whole input is read"
            )),
        )),
    }
}

/// The part a Slurm job array or a Kubernetes Indexed Job names: `Ok(None)` when neither
/// is set, `Err` when one is set but does not name a part.
fn from_env(var: &impl Fn(&str) -> Option<String>) -> Result<Option<(Shard, String)>, String> {
    let number = |name: &str| -> Result<Option<u32>, String> {
        var(name)
            .map(|v| {
                v.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("{name}={v:?} is not a whole number"))
            })
            .transpose()
    };
    if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        let need = |name: &str| {
            number(name)?.ok_or_else(|| format!("SLURM_ARRAY_TASK_ID is set but {name} is not"))
        };
        let (count, min, max) = (
            need("SLURM_ARRAY_TASK_COUNT")?,
            need("SLURM_ARRAY_TASK_MIN")?,
            need("SLURM_ARRAY_TASK_MAX")?,
        );
        if min > max {
            return Err(format!(
                "SLURM_ARRAY_TASK_MIN={min} is above SLURM_ARRAY_TASK_MAX={max}"
            ));
        }
        if !(min..=max).contains(&id) {
            return Err(format!(
                "SLURM_ARRAY_TASK_ID={id} lies outside the array's tasks {min}-{max} \
                 (SLURM_ARRAY_TASK_MIN and _MAX)"
            ));
        }
        if max - min + 1 != count {
            return Err(format!(
                "the Slurm array is not contiguous (tasks {min}-{max}, {count} of them, this \
                 one {id}): submit it as --array={min}-{} so that task IDs are parts",
                min + count.saturating_sub(1)
            ));
        }
        let shard = Shard::new(id - min + 1, count).ok_or("no part")?;
        return Ok(Some((
            shard,
            format!("the Slurm array (task {id} of {min}-{max})"),
        )));
    }
    if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let count = number("JOB_COMPLETIONS")?.ok_or(
            "JOB_COMPLETION_INDEX is set but JOB_COMPLETIONS is not (Kubernetes does not set \
             it: set it in the Job's manifest to its completions)",
        )?;
        let shard = index
            .checked_add(1)
            .and_then(|k| Shard::new(k, count))
            .ok_or_else(|| {
                format!("JOB_COMPLETION_INDEX={index} is not below JOB_COMPLETIONS={count}")
            })?;
        return Ok(Some((
            shard,
            format!("the Kubernetes Indexed Job (JOB_COMPLETION_INDEX={index})"),
        )));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    const SLURM: &[(&str, &str)] = &[
        ("SLURM_ARRAY_TASK_ID", "5"),
        ("SLURM_ARRAY_TASK_COUNT", "8"),
        ("SLURM_ARRAY_TASK_MIN", "3"),
        ("SLURM_ARRAY_TASK_MAX", "10"),
    ];

    #[test]
    fn auto_takes_the_part_slurm_or_kubernetes_names() {
        let (shard, note) = resolve(Some(Spec::Auto), env(SLURM)).unwrap();
        assert_eq!(shard, Shard::new(3, 8));
        assert!(note.unwrap().contains("Slurm"));
        let k8s = [("JOB_COMPLETION_INDEX", "0"), ("JOB_COMPLETIONS", "4")];
        let (shard, _) = resolve(Some(Spec::Auto), env(&k8s)).unwrap();
        assert_eq!(shard, Shard::new(1, 4));
    }

    #[test]
    fn a_given_part_wins_and_no_part_is_taken_silently() {
        let given = Shard::new(2, 3).unwrap();
        assert_eq!(
            resolve(Some(Spec::Part(given)), env(SLURM)).unwrap(),
            (Some(given), None)
        );
        assert_eq!(resolve(None, env(&[])).unwrap(), (None, None));
        let (shard, note) = resolve(None, env(SLURM)).unwrap();
        assert_eq!(shard, None);
        assert!(note.unwrap().contains("--shard auto"));
    }

    #[test]
    fn auto_refuses_what_names_no_part() {
        let refused = |pairs: &[(&str, &str)]| {
            resolve(Some(Spec::Auto), env(pairs))
                .unwrap_err()
                .to_string()
        };
        assert!(refused(&[]).contains("names no part"));
        // --array=1,3,5: three tasks over 1-5.
        let gaps = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "5"),
        ];
        assert!(refused(&gaps).contains("not contiguous"));
        let outside = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "2"),
        ];
        assert!(
            refused(&outside).contains("SLURM_ARRAY_TASK_ID=3 lies outside the array's tasks 1-2"),
            "{}",
            refused(&outside)
        );
        assert!(refused(&SLURM[..2]).contains("SLURM_ARRAY_TASK_MIN"));
        assert!(refused(&[("JOB_COMPLETION_INDEX", "1")]).contains("JOB_COMPLETIONS"));
        let past = [("JOB_COMPLETION_INDEX", "4"), ("JOB_COMPLETIONS", "4")];
        assert!(refused(&past).contains("not below"));
        assert!(refused(&[("SLURM_ARRAY_TASK_ID", "x")]).contains("not a whole number"));
        assert!(parse_spec("0/3").is_err());
        assert!(parse_spec("4/3").is_err());
        assert_eq!(parse_spec(" auto"), Ok(Spec::Auto));
    }
}
