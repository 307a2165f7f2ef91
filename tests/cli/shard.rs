//! `--shard K/N` and `--shard auto`: the parts of a run, a filter and a generate are the
//! whole, line for line; the environment of a job array is used only when asked.

use super::{bench, rows, Row};

const CORPUS: &str = "datasets/minimal.txt";
const ARRAY_VARS: &[&str] = &[
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "JOB_COMPLETION_INDEX",
    "JOB_COMPLETIONS",
];

/// `sudoku-bench ARGS` with no array in its environment but `env`; (stdout, stderr).
fn bench_env(args: &[&str], env: &[(&str, &str)], ok: bool) -> (Vec<u8>, String) {
    let mut cmd = bench();
    for var in ARRAY_VARS {
        cmd.env_remove(var);
    }
    cmd.args(args).envs(env.iter().copied());
    let assert = cmd.assert();
    let assert = if ok {
        assert.success()
    } else {
        assert.failure()
    };
    let out = assert.get_output();
    (
        out.stdout.clone(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The rows of `run -s fast` over the corpus with `extra`, times dropped, by line.
fn run_rows(extra: &[&str], env: &[(&str, &str)]) -> (Vec<Row>, String) {
    let mut args = vec!["run", CORPUS, "-s", "fast", "--no-warmup", "-o", "-"];
    args.extend_from_slice(extra);
    let (out, err) = bench_env(&args, env, true);
    let rows = rows(&out)
        .into_iter()
        .map(|mut r| {
            r.remove("time_ns");
            r.remove("replicate");
            r
        })
        .collect();
    (rows, err)
}

fn lines(rows: &[Row]) -> Vec<u64> {
    rows.iter().map(|r| r["line"].parse().unwrap()).collect()
}

#[test]
fn run_parts_are_the_whole_run_for_every_n() {
    let (whole, _) = run_rows(&["-q"], &[]);
    assert_eq!(whole.len(), 1000);
    for n in 1..=7 {
        let mut gathered = Vec::new();
        for k in 1..=n {
            let shard = format!("{k}/{n}");
            let (part, err) = run_rows(&["--shard", &shard], &[]);
            if n > 1 {
                assert!(
                    err.contains(&format!("part {shard} by byte range")),
                    "{err}"
                );
            }
            gathered.extend(part);
        }
        gathered.sort_by_key(|r| r["line"].parse::<u64>().unwrap());
        assert_eq!(gathered, whole, "the parts of {n}");
    }
}

#[test]
fn a_part_s_summary_names_its_part() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("part-2.json");
    let csv = dir.path().join("part-2.csv");
    let (s, c) = (summary.to_str().unwrap(), csv.to_str().unwrap());
    let args = ["run", CORPUS, "-s", "fast", "-q", "--shard", "2/3", "-o", c];
    bench_env(&[&args[..], &["--summary", s]].concat(), &[], true);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(json["shard"], serde_json::json!({"index": 2, "count": 3}));
}

#[test]
fn auto_takes_the_part_the_array_names_and_only_when_asked() {
    let (given, _) = run_rows(&["--shard", "3/4", "-q"], &[]);
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "7"),
        ("SLURM_ARRAY_TASK_COUNT", "4"),
        ("SLURM_ARRAY_TASK_MIN", "5"),
        ("SLURM_ARRAY_TASK_MAX", "8"),
    ];
    let (auto, err) = run_rows(&["--shard", "auto", "-q"], &slurm);
    assert!(err.contains("part 3/4, from the Slurm array"), "{err}");
    assert_eq!(auto, given);
    let k8s = [("JOB_COMPLETION_INDEX", "2"), ("JOB_COMPLETIONS", "4")];
    let (auto, err) = run_rows(&["--shard", "auto", "-q"], &k8s);
    assert!(err.contains("Kubernetes"), "{err}");
    assert_eq!(auto, given);
    // Without --shard: the whole input, and a note saying so even with -q.
    let (whole, err) = run_rows(&["-q"], &slurm);
    assert_eq!(whole.len(), 1000);
    assert!(err.contains("pass --shard auto to take part 3/4"), "{err}");
    assert!(lines(&given).iter().all(|l| lines(&whole).contains(l)));
}

#[test]
fn bad_parts_and_auto_without_an_array_are_refused() {
    for bad in ["0/3", "4/3", "3", "x/3"] {
        let (_, err) = bench_env(&["run", CORPUS, "-o", "-", "--shard", bad], &[], false);
        assert!(err.contains("--shard"), "{bad}: {err}");
    }
    let (_, err) = bench_env(&["check", CORPUS, "--shard", "auto"], &[], false);
    assert!(err.contains("names no part"), "{err}");
    let gaps = [
        ("SLURM_ARRAY_TASK_ID", "3"),
        ("SLURM_ARRAY_TASK_COUNT", "3"),
        ("SLURM_ARRAY_TASK_MIN", "1"),
        ("SLURM_ARRAY_TASK_MAX", "5"),
    ];
    let (_, err) = bench_env(&["check", CORPUS, "--shard", "auto"], &gaps, false);
    assert!(err.contains("not contiguous"), "{err}");
}

#[test]
fn filter_parts_concatenated_are_the_whole_filter_output() {
    let filter = |shard: Option<&str>| {
        let mut args = vec!["filter", CORPUS, "-o", "-", "-q", "--keep", "unique"];
        if let Some(shard) = shard {
            args.extend(["--shard", shard]);
        }
        bench_env(&args, &[], true).0
    };
    let whole = filter(None);
    assert!(!whole.is_empty());
    for n in [2, 5] {
        let parts: Vec<u8> = (1..=n)
            .flat_map(|k| filter(Some(&format!("{k}/{n}"))))
            .collect();
        assert_eq!(parts, whole, "the parts of {n}");
    }
}

#[test]
fn dedupe_with_shard_warns_and_its_advice_gives_the_whole_filter_output() {
    let dir = tempfile::tempdir().unwrap();
    // Every puzzle twice, the second copy in the second half: part 1/2 and part 2/2 each hold
    // one copy, so deduping within parts removes nothing.
    let once = std::fs::read(CORPUS).unwrap();
    let twice = dir.path().join("twice.txt");
    std::fs::write(&twice, [&once[..], &once[..]].concat()).unwrap();
    let twice = twice.to_str().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for canonical in [false, true] {
        let dedupe: &[&str] = if canonical {
            &["--dedupe", "--canonical"]
        } else {
            &["--dedupe"]
        };
        let whole = path("whole.txt");
        let mut args = vec!["filter", twice, "-q", "-o", &whole];
        args.extend(dedupe);
        let (_, err) = bench_env(&args, &[], true);
        assert!(!err.contains("warning"), "{err}");

        let parts: Vec<String> = (1..=2).map(|k| path(&format!("part-{k}.txt"))).collect();
        for (k, part) in parts.iter().enumerate() {
            let shard = format!("{}/2", k + 1);
            let mut args = vec!["filter", twice, "-q", "--shard", &shard, "-o", part];
            args.extend(dedupe);
            let (_, err) = bench_env(&args, &[], true);
            assert!(
                err.contains(&format!(
                    "warning: --dedupe with --shard {shard}: duplicates are removed within \
                     this part only"
                )) && err.contains(&format!("filter {}", dedupe.join(" "))),
                "{err}"
            );
        }
        let read = |p: &str| std::fs::read(p).unwrap();
        let concatenated = [read(&parts[0]), read(&parts[1])].concat();
        assert!(
            concatenated.len() > read(&whole).len(),
            "duplicates are left"
        );

        // The advice: filter the parts together, in order, with the same options.
        let all = path("all.txt");
        let mut args = vec!["filter", &parts[0], &parts[1], "-q", "-o", &all];
        args.extend(dedupe);
        bench_env(&args, &[], true);
        assert_eq!(read(&all), read(&whole), "canonical: {canonical}");
    }
}

#[test]
fn generate_parts_concatenated_are_the_whole_output() {
    let dir = tempfile::tempdir().unwrap();
    let generate = |shard: &str, name: &str| {
        let path = dir.path().join(name);
        let p = path.to_str().unwrap();
        let args = [
            "generate", "--count", "13", "--seed", "7", "--format", "csv", "-q", "-o", p,
            "--shard", shard,
        ];
        bench_env(&args, &[], true);
        std::fs::read(&path).unwrap()
    };
    let whole = generate("1/1", "whole.csv");
    assert_eq!(whole.iter().filter(|&&b| b == b'\n').count(), 14);
    let parts: Vec<u8> = (1..=4)
        .flat_map(|k| generate(&format!("{k}/4"), &format!("part-{k}.csv")))
        .collect();
    assert_eq!(parts, whole);
}

#[test]
fn each_filtered_part_of_a_csv_corpus_is_a_csv_with_its_header() {
    let filter = |shard: &str| {
        let args = [
            "filter",
            "datasets/minimal_solutions.csv",
            "-o",
            "-",
            "-q",
            "--shard",
            shard,
        ];
        String::from_utf8(bench_env(&args, &[], true).0).unwrap()
    };
    let whole = filter("1/1");
    let (header, body) = whole.split_once('\n').unwrap();
    assert_eq!(header, "quizzes,solutions");
    let mut bodies = String::new();
    for k in 1..=3 {
        let part = filter(&format!("{k}/3"));
        let (first, rest) = part.split_once('\n').unwrap();
        assert_eq!(first, header, "part {k}/3");
        bodies.push_str(rest);
    }
    assert_eq!(bodies, body);
}
