//! The strategy and its probe, against solvers written in `sh`.

use super::*;
use std::path::Path;
use sudoku_bench_core::strategy::testkit::{self, grid, limits};

/// A solver written in `sh`: `script` runs once per request line, with the puzzle in
/// `$p` and the limit in `$l`.
fn sh(script: &str) -> CommandLine {
    CommandLine {
        name: Arc::from("sh"),
        command: format!("sh -c {script:?}"),
        program: "sh".into(),
        args: vec!["-c".into(), format!("while read -r p l; do {script}; done")],
        memory_limit: None,
    }
}

/// Answers the probe and the in-step check as the protocol says, and every puzzle with
/// `answer`.
fn canned(answer: &str) -> CommandLine {
    sh(&format!(
        r#"case $p in {empty}) echo "$l - 0";; *.*) {answer};; *) echo "1 $p 0";; esac"#,
        empty = ".".repeat(81)
    ))
}

fn solver(spec: CommandLine, timeout: Option<Duration>) -> CommandSolver {
    CommandSolver::new(Arc::new(spec), true, timeout)
}

fn pid(solver: &CommandSolver) -> u32 {
    match &solver.copy {
        Some(Ok(copy)) => copy.process.id(),
        _ => panic!("not running"),
    }
}

/// Whether our child `pid` was killed and reaped: no zombie left.
fn gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether process `pid` is dead, as a zombie that someone else is to reap or not.
fn dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the command's closing parenthesis.
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z')),
    }
}

#[test]
fn commands_split_like_a_shell_without_one() {
    let spec = CommandLine::parse(r#" ./solve --name "two words" it\'s "#).unwrap();
    assert_eq!(spec.program, "./solve");
    assert_eq!(spec.args, ["--name", "two words", "it's"]);
    assert_eq!(spec.command(), r#"./solve --name "two words" it\'s"#);
    assert!(matches!(CommandLine::parse("  "), Err(CommandError::Empty)));
    assert!(matches!(
        CommandLine::parse("solve \"open"),
        Err(CommandError::Split(_))
    ));
}

#[test]
fn a_probe_times_a_correct_exchange_and_sees_whether_guesses_are_counted() {
    let counted = canned("echo x")
        .probe(Some(Duration::from_secs(10)))
        .unwrap();
    assert!(counted.counts_guesses);
    assert!(counted.round_trip > Duration::ZERO);
    let dashes = sh(r#"echo "$l - -""#).probe(None).unwrap();
    assert!(!dashes.counts_guesses);
}

#[test]
fn a_probe_names_what_went_wrong() {
    let second = Some(Duration::from_secs(1));
    let start = CommandLine::parse("./no/such/solver")
        .unwrap()
        .probe(second);
    assert!(
        matches!(&start, Err(CommandError::Start { command, .. }) if command == "./no/such/solver"),
        "{start:?}"
    );
    // The OS's reason is the error's source: said once when the chain is printed.
    let chain = format!("{:#}", anyhow::Error::from(start.unwrap_err()));
    assert_eq!(chain.matches("os error").count(), 1, "{chain}");
    let probe = |spec: CommandLine, timeout| spec.probe(timeout).unwrap_err().to_string();
    let says = probe(sh(r#"echo "0 - 0""#), second);
    assert!(says.contains(r#"answered "0 - 0", not `1 "#), "{says}");
    let says = probe(sh("exit 3"), second);
    assert!(
        says.contains("exited (exit status: 3) before answering"),
        "{says}"
    );
    // Started (its first answer), then silent: each timed exchange has the timeout.
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("answered");
    let once = format!(
        r#"if [ -e {f} ]; then sleep 5; else touch {f}; echo "1 - 0"; fi"#,
        f = flag.display()
    );
    let says = probe(sh(&once), Some(Duration::from_millis(200)));
    assert!(says.contains("did not answer within 200ms"), "{says}");
    let says = probe(sh(r#"echo "1 - 0"; echo more"#), second);
    // "more" is read with the answer, or after it as the next one: either way, quoted.
    assert!(says.contains("more"), "{says}");
}

#[test]
fn a_probe_failing_the_in_step_check_says_only_what_it_was_given_there() {
    // Answers the solved grid as the protocol says, but counts 1 for the empty grid: only
    // the in-step check fails, and the message must not also claim the solved grid's.
    let says = sh(r#"echo "1 - 0""#).probe(None).unwrap_err().to_string();
    assert!(
        says.contains("does not speak the protocol: given the empty grid and limit 3"),
        "{says}"
    );
    assert!(!says.contains("given a solved grid"), "{says}");
}

#[test]
fn a_start_up_longer_than_the_timeout_of_a_puzzle_is_not_a_timeout() {
    // An interpreter's start-up is not a solve: a copy that takes longer to start than
    // a puzzle may take is still started, probed and used.
    let slow = r#"sleep 0.5; while read -r p l; do echo "$l - 0"; done"#;
    let spec = CommandLine {
        name: Arc::from("sh"),
        command: format!("sh -c {slow:?}"),
        program: "sh".into(),
        args: vec!["-c".into(), slow.into()],
        memory_limit: None,
    };
    let timeout = Some(Duration::from_millis(100));
    spec.probe(timeout).unwrap();
    let mut s = solver(spec, timeout);
    let limits = Limits {
        timeout,
        ..limits(2)
    };
    let out = s.solve(&grid(testkit::EASY), &limits);
    assert_eq!((out.solutions, out.aborted), (2, None));
}

#[test]
fn outcomes_come_from_the_answer() {
    let mut s = solver(canned(r#"echo "2 - 5""#), None);
    let out = s.solve(&grid(testkit::TWO_SOLUTIONS), &limits(2));
    assert_eq!(
        out,
        Outcome {
            solutions: 2,
            first: None,
            nodes: 0,
            guesses: 5,
            aborted: None,
        }
    );
    let first = pid(&s);
    s.solve(&grid(testkit::TWO_SOLUTIONS), &limits(2));
    assert_eq!(pid(&s), first, "one copy serves puzzle after puzzle");
}

#[test]
fn the_limit_is_sent_with_the_puzzle() {
    // Echoes the limit back as the count.
    let mut s = solver(canned(r#"echo "$l - 0""#), None);
    for limit in [1, 2, 7] {
        let out = s.solve(&grid(testkit::EASY), &limits(limit));
        assert_eq!(out.solutions, limit);
    }
}

#[test]
fn a_silent_solver_is_killed_and_a_fresh_copy_answers_the_next_puzzle() {
    // Hangs on puzzles that start with a 5, answers the others.
    let spec = canned(r#"case $p in 5*) sleep 30;; *) echo "1 - 3";; esac"#);
    let timeout = Some(Duration::from_secs(1));
    let mut s = solver(spec, timeout);
    let limits = Limits {
        timeout,
        ..limits(2)
    };
    let hung = pid(&s);
    let start = Instant::now();
    let out = s.solve(&grid(testkit::EASY), &limits);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!((out.solutions, out.aborted), (0, Some(Abort::Timeout)));
    assert!(gone(hung), "the silent copy was killed and reaped");
    let out = s.solve(&grid(testkit::TWO_SOLUTIONS), &limits);
    assert_eq!((out.solutions, out.guesses, out.aborted), (1, 3, None));
    assert_ne!(pid(&s), hung);
}

#[test]
fn a_solver_that_exits_is_reported_with_its_status_and_restarted() {
    let mut s = solver(canned("exit 7"), None);
    let first = pid(&s);
    let out = s.solve(&grid(testkit::EASY), &limits(2));
    assert_eq!(
        out.aborted,
        Some(Abort::Failed(
            "exited (exit status: 7) before answering".into()
        ))
    );
    assert!(gone(first));
    assert!(s.copy.is_none(), "the next puzzle starts a fresh copy");
    s.solve(&grid(testkit::EASY), &limits(2));
    assert_eq!(s.usage().unwrap().processes, 2);
}

#[test]
fn a_bad_answer_fails_the_puzzle_and_replaces_the_copy() {
    let mut s = solver(canned(r#"echo "3 - 0""#), None);
    let first = pid(&s);
    let out = s.solve(&grid(testkit::EASY), &limits(2));
    let Some(Abort::Failed(why)) = out.aborted else {
        panic!("{out:?}");
    };
    assert!(why.contains("COUNT 3 is above the limit 2"), "{why}");
    assert!(gone(first));
    s.solve(&grid(testkit::EASY), &limits(2));
    assert_eq!(s.usage().unwrap().processes, 2);
}

/// `puzzles` solved as one batch: each outcome.
fn batch(s: &mut CommandSolver, puzzles: &[&str], limits: &Limits) -> Vec<Outcome> {
    let grids: Vec<Grid> = puzzles.iter().map(|p| grid(p)).collect();
    let mut out = vec![None; grids.len()];
    s.solve_batch(&grids, limits, &MonotonicClock::default(), &mut out);
    out.into_iter().map(|slot| slot.unwrap().0).collect()
}

fn failed_saying(out: &Outcome, says: &str) -> bool {
    matches!(&out.aborted, Some(Abort::Failed(why)) if why.contains(says))
}

#[test]
fn a_line_sent_late_fails_every_answer_it_may_have_shifted() {
    // Answers each puzzle, then once more a little later, unasked: from then on each
    // answer read is the one before's. Whenever the late line is seen, no answer of the
    // batch is passed as right.
    let mut s = solver(canned(r#"echo "1 - 0"; sleep 0.1; echo "1 - 0""#), None);
    let puzzles = [testkit::EASY, testkit::TWO_SOLUTIONS, testkit::UNSOLVABLE];
    for out in batch(&mut s, &puzzles, &limits(2)) {
        assert!(matches!(out.aborted, Some(Abort::Failed(_))), "{out:?}");
    }
}

#[test]
fn the_check_that_ends_a_batch_says_what_the_copy_answered() {
    // Answers every puzzle alike, the check's too: as would a copy one line behind,
    // whose answer to the check is the last puzzle's.
    let spec = sh(r#"echo "1 - 0""#);
    let mut s = solver(spec, None);
    let outs = batch(&mut s, &[testkit::EASY, testkit::EASY], &limits(2));
    for out in &outs {
        assert!(
            failed_saying(
                out,
                "its answer may be another puzzle's: after its batch, given the empty grid \
                 and limit 3"
            ) && failed_saying(out, r#"it answered "1 - 0", not `3 SOLUTION GUESSES`"#),
            "{out:?}"
        );
    }
    assert!(s.copy.is_none(), "the copy out of step is replaced");
}

/// Answers the probe with `id`, asking for ids, and echoes each request's id, unless
/// `answer` says otherwise; `$i` is the id.
fn with_ids(answer: &str) -> CommandLine {
    CommandLine {
        name: Arc::from("sh"),
        command: "sh (ids)".into(),
        program: "sh".into(),
        args: vec![
            "-c".into(),
            format!(r#"read -r p l; echo "1 $p 0 id"; while read -r p l i; do {answer}; done"#),
        ],
        memory_limit: None,
    }
}

#[test]
fn a_solver_may_ask_for_request_ids_and_then_every_answer_is_matched_by_its_id() {
    let spec = with_ids(r#"echo "1 - 0 $i""#);
    let probe = spec.probe(None).unwrap();
    assert!(probe.counts_guesses);
    let mut s = solver(spec, None);
    let outs = batch(&mut s, &[testkit::EASY, testkit::EASY], &limits(2));
    assert!(outs.iter().all(|o| o.aborted.is_none()), "{outs:?}");
    // No check ends the batch: ids match every answer already.
    // Every answer also a little later, unasked: the late line has the earlier id.
    let mut s = solver(
        with_ids(r#"echo "1 - 0 $i"; sleep 0.1; echo "1 - 0 $i""#),
        None,
    );
    let outs = batch(&mut s, &[testkit::EASY, testkit::EASY], &limits(2));
    assert_eq!(outs[0].aborted, None, "matched by its id: {outs:?}");
    // The late line is seen before the request is out, with the answer, or as the
    // answer: either way, the second puzzle fails.
    assert!(
        matches!(outs[1].aborted, Some(Abort::Failed(_))),
        "{outs:?}"
    );
    // An answer without its id fails.
    let mut s = solver(with_ids(r#"echo "1 - 0""#), None);
    let out = s.solve(&grid(testkit::EASY), &limits(2));
    assert!(
        failed_saying(&out, "3 fields, not 4 (COUNT SOLUTION GUESSES ID)"),
        "{out:?}"
    );
}

#[test]
fn a_solver_that_closes_stdout_is_reported_so_not_as_killed() {
    // Closes its stdout on its first puzzle, and exits only after a while, or never.
    let spec = canned("exec >&-; sleep 0.2; exit 5");
    let mut s = solver(spec, None);
    let out = s.solve(&grid(testkit::EASY), &limits(2));
    assert_eq!(
        out.aborted,
        Some(Abort::Failed(
            "exited (exit status: 5) before answering".into()
        ))
    );
    let mut s = solver(canned("exec >&-; sleep 30"), None);
    let out = s.solve(&grid(testkit::EASY), &limits(2));
    assert_eq!(
        out.aborted,
        Some(Abort::Failed(
            "closed its stdout before answering and did not exit (killed)".into()
        ))
    );
}

#[test]
fn a_timed_out_puzzle_is_timed_at_the_limit_and_the_restart_is_in_no_time() {
    // The clock's time of a solve is its node count (0 for a command): any time it gives
    // that is not 0 was set by the solver.
    let clock = sudoku_bench_core::clock::MockClock::new(0, 1, 1);
    let spec = canned(r#"case $p in 5*) sleep 30;; *) echo "1 - 3";; esac"#);
    let timeout = Some(Duration::from_millis(300));
    let mut s = solver(spec, timeout);
    let limits = Limits {
        timeout,
        ..limits(2)
    };
    let grids = [
        grid(testkit::TWO_SOLUTIONS),
        grid(testkit::EASY),
        grid(testkit::TWO_SOLUTIONS),
    ];
    let mut out = vec![None; 3];
    s.solve_batch(&grids, &limits, &clock, &mut out);
    let times: Vec<u64> = out.iter().map(|o| o.as_ref().unwrap().1.ns).collect();
    assert_eq!(times, [0, 300_000_000, 0]);
    assert_eq!(out[1].as_ref().unwrap().0.aborted, Some(Abort::Timeout));
    assert_eq!(out[2].as_ref().unwrap().0.aborted, None);
}

#[test]
fn usage_counts_every_copy_started() {
    let mut s = solver(canned("exit 7"), None);
    s.solve(&grid(testkit::EASY), &limits(2));
    s.solve(&grid(testkit::EASY), &limits(2));
    let used = s.usage().unwrap();
    // Two that failed, and the third, started for the next puzzle... not yet: two.
    assert_eq!(used.processes, 2, "{used:?}");
    assert!(used.cpu_ns > 0 || used.max_rss_kib > 0, "{used:?}");
}

#[test]
fn dashes_for_guesses_fail_a_solver_that_counted_them_when_probed() {
    let mut s = solver(canned(r#"echo "1 - -""#), None);
    let out = s.solve(&grid(testkit::EASY), &limits(2));
    assert!(
        matches!(&out.aborted, Some(Abort::Failed(why)) if why.contains("GUESSES is `-`")),
        "{out:?}"
    );
}

#[test]
fn a_line_without_end_is_cut_off() {
    let mut s = solver(canned("head -c 5000 /dev/zero | tr '\\0' 1"), None);
    let out = s.solve(&grid(testkit::EASY), &limits(2));
    assert!(
        matches!(&out.aborted, Some(Abort::Failed(why)) if why.contains(&format!("wrote more than {} bytes without ending the line", process::MAX_LINE))),
        "{out:?}"
    );
}

#[test]
fn a_solver_that_cannot_restart_fails_each_puzzle_and_says_why() {
    // Answers the first probe, then the file it needs is gone.
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("once");
    std::fs::write(&flag, "").unwrap();
    let once = format!(
        r#"case $p in *.*) exit 1;; *) if [ -e {f} ]; then rm {f}; echo "1 - 0"; else exit 9; fi;; esac"#,
        f = flag.display()
    );
    let mut s = solver(sh(&once), None);
    let out = s.solve(&grid(testkit::EASY), &limits(2));
    assert!(matches!(out.aborted, Some(Abort::Failed(_))), "{out:?}");
    let out = s.solve(&grid(testkit::EASY), &limits(2));
    let Some(Abort::Failed(why)) = out.aborted else {
        panic!("{out:?}");
    };
    assert!(why.starts_with("cannot restart `sh -c"), "{why}");
    assert!(
        why.contains("exited (exit status: 9) before answering"),
        "{why}"
    );
}

#[test]
fn dropping_the_strategy_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    // Starts a grandchild that would outlive its parent.
    let spec = CommandLine {
        name: Arc::from("sh"),
        command: "sh".into(),
        program: "sh".into(),
        args: vec![
            "-c".into(),
            format!(
                "sleep 60 & echo $! > {}; while read -r p l; do echo \"1 - 0\"; done",
                pidfile.display()
            ),
        ],
        memory_limit: None,
    };
    let s = solver(spec, Some(Duration::from_secs(10)));
    let child = pid(&s);
    let grandchild: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!dead(child) && !dead(grandchild));
    drop(s);
    assert!(gone(child), "the solver was killed and reaped");
    // Its orphaned grandchild is reaped by whoever adopts it, if anyone.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !dead(grandchild) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(dead(grandchild), "the process it started was killed too");
}

#[test]
fn info_makes_one_copy_per_value() {
    let spec = canned(r#"echo "1 - 0""#);
    let probe = spec.probe(None).unwrap();
    let info = spec.info("mine", &probe, None);
    assert_eq!(info.name, "mine");
    assert!(info.counts_guesses && info.nodes_unit.is_none() && info.parallel);
    assert!(info.about.contains("sh -c"));
    let (mut a, mut b) = (info.make(), info.make());
    for s in [&mut a, &mut b] {
        assert_eq!(s.solve(&grid(testkit::EASY), &limits(2)).solutions, 1);
    }
}

#[test]
fn an_interpreter_without_a_script_is_refused_at_once_naming_the_quotes() {
    for command in ["python3", "/usr/bin/python3.11", "node", "sh"] {
        let err = CommandLine::parse(command).unwrap_err().to_string();
        assert!(err.contains("quoting the whole spec"), "{command}: {err}");
    }
    for command in ["python3 mine.py", "sh -c 'cat'", "./mysolver", "pythonic"] {
        assert!(CommandLine::parse(command).is_ok(), "{command}");
    }
}

#[test]
fn rows_distrusted_after_their_batch_lose_their_answer_and_their_count() {
    let answered = Outcome {
        solutions: 1,
        first: None,
        nodes: 0,
        guesses: 0,
        aborted: None,
    };
    let cost = Cost {
        ns: 5,
        instructions: Some(7),
    };
    let mut rows = [Some((answered.clone(), cost)), None];
    distrust(&mut rows, "later, it lagged");
    let (outcome, cost) = rows[0].as_ref().unwrap();
    assert!(
        matches!(&outcome.aborted, Some(Abort::Failed(why)) if why.contains("later, it lagged")),
        "{outcome:?}"
    );
    assert_eq!((cost.ns, cost.instructions), (5, None));
    assert!(rows[1].is_none());
}
