//! `scripts/slurm/submit.sh` without a cluster: a fake `sbatch` on PATH records what it was
//! asked to submit. What the script must refuse, it refuses before submitting anything.
//! (The real cluster run is `scripts/slurm/local-cluster.sh`, which CI runs.)

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CORPUS: &str = "datasets/classic.txt";

/// A directory with a fake `sbatch` that appends its arguments to `sbatch.log` there and
/// prints a job id.
fn fake_sbatch(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let sbatch = bin.join("sbatch");
    std::fs::write(
        &sbatch,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\necho 7\n",
            dir.join("sbatch.log").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn submit(dir: &Path, n: &str, out: &Path) -> Output {
    let bin = fake_sbatch(dir);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .arg("scripts/slurm/submit.sh")
        .args([CORPUS, n, "fast,dlx"])
        .arg(out)
        .arg(env!("CARGO_BIN_EXE_sudoku-bench"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PATH", path)
        .output()
        .unwrap()
}

fn submitted(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("sbatch.log")).unwrap_or_default()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_split_is_submitted_as_an_array_and_a_dependent_merge() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let done = submit(dir.path(), "3", &out);
    assert!(done.status.success(), "{}", stderr(&done));
    assert_eq!(String::from_utf8_lossy(&done.stdout), "7 7\n");
    let log = submitted(dir.path());
    let calls: Vec<&str> = log.lines().collect();
    assert_eq!(calls.len(), 2, "{log}");
    assert!(calls[0].contains("--array=1-3") && calls[0].contains("shard-array.sbatch"));
    assert!(calls[1].contains("--dependency=afterok:7") && calls[1].contains("merge.sbatch"));
    assert_eq!(std::fs::read_to_string(out.join("split")).unwrap(), "3\n");
}

/// Parts of a split into another N: by number, by their summary, and (a killed task's
/// summary being empty) by the split the OUTDIR was first submitted with.
#[test]
fn parts_of_another_split_are_refused_before_anything_is_submitted() {
    // (N submitted, files already in OUTDIR as (name, text), what stderr must say)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 4] = [
        (
            "3",
            &[("part-5.csv", "")],
            "part-5.csv, which is not a part of a split into 3",
        ),
        (
            "3",
            &[("part-1.json", "{\"shard\": {\"index\": 1, \"count\": 4}}")],
            "was written by a split into 4, not a split into 3",
        ),
        (
            "3",
            &[("part-1.json", "{\"interrupted\": false}")],
            "was written by a run with no --shard",
        ),
        (
            "8",
            &[
                ("split", "4\n"),
                ("part-1.csv", "corpus\n"),
                ("part-1.json", ""),
            ],
            "holds the parts of a split into 4 (its file 'split' says so), not 8",
        ),
    ];
    for (n, files, said) in cases {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        for (name, text) in files {
            std::fs::write(out.join(name), text).unwrap();
        }
        let refused = submit(dir.path(), n, &out);
        assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
        assert!(stderr(&refused).contains(said), "{}", stderr(&refused));
        assert_eq!(submitted(dir.path()), "", "nothing submitted");
    }
}

/// The same split submitted again continues its parts, killed ones (empty summary) included.
#[test]
fn the_same_split_submitted_again_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("split"), "4\n").unwrap();
    std::fs::write(out.join("part-2.csv"), "corpus\n").unwrap();
    std::fs::write(out.join("part-2.json"), "").unwrap();
    let done = submit(dir.path(), "4", &out);
    assert!(done.status.success(), "{}", stderr(&done));
    assert!(stderr(&done).contains("already holds 1 part(s); their tasks will continue them"));
    assert!(submitted(dir.path()).contains("--array=1-4"));
}
