//! The progress bar on stderr: puzzles done, rate and ETA when the total is known;
//! hidden when stderr is not a terminal or with `--quiet`.
//!
//! Two ways to feed it. Commands that see their work in batches call `advance`. `run`
//! instead hands its runner a shared `WorkDone` (`Progress::polled`): the workers count
//! each finished solve and a small thread polls the counter, so the bar moves within a
//! batch too (one batch can take a slow strategy minutes).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sudoku_bench::report::table::{rate, thousands};
use sudoku_bench::runner::WorkDone;

pub struct Progress {
    bar: ProgressBar,
    visible: bool,
    /// Puzzles counted by `advance`.
    puzzles: u64,
    /// Position reached by finished corpora, for `advance`.
    done_before: u64,
    done: Arc<WorkDone>,
    stop: Arc<AtomicBool>,
    poller: Option<JoinHandle<()>>,
}

const POLL: Duration = Duration::from_millis(100);

fn message(puzzles: u64, secs: f64) -> String {
    format!(
        "{} puzzles, {}/s",
        thousands(puzzles),
        rate(puzzles as f64 / secs.max(1e-9))
    )
}

impl Progress {
    /// A bar over `total` units (bytes of input, or puzzles to make) fed by `advance`.
    pub fn new(total: Option<u64>, quiet: bool) -> Progress {
        let visible = !quiet && std::io::stderr().is_terminal();
        let template = if total.is_some() {
            "{spinner} [{elapsed_precise}] {wide_bar} {percent:>3}%  {msg}  ETA {eta}"
        } else {
            "{spinner} [{elapsed_precise}] {msg}"
        };
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
        bar.set_style(ProgressStyle::with_template(template).expect("the template is valid"));
        if visible {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(200));
        }
        Progress {
            bar,
            visible,
            puzzles: 0,
            done_before: 0,
            done: Arc::new(WorkDone::default()),
            stop: Arc::new(AtomicBool::new(false)),
            poller: None,
        }
    }

    /// A bar fed by a runner's workers through `work_done`: `total_bytes` of input, each
    /// solved once per strategy.
    pub fn polled(total_bytes: Option<u64>, strategies: usize, quiet: bool) -> Progress {
        let strategies = strategies.max(1) as u64;
        let mut progress = Progress::new(total_bytes.map(|b| b * strategies), quiet);
        if progress.visible {
            let (bar, done, stop) = (
                progress.bar.clone(),
                progress.done.clone(),
                progress.stop.clone(),
            );
            progress.poller = Some(std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    bar.set_position(done.bytes.load(Ordering::Relaxed));
                    let puzzles = done.solves.load(Ordering::Relaxed) / strategies;
                    bar.set_message(message(puzzles, bar.elapsed().as_secs_f64()));
                    std::thread::sleep(POLL);
                }
            }));
        }
        progress
    }

    /// The counter for a runner's workers to fill, when a polled bar is shown.
    pub fn work_done(&self) -> Option<Arc<WorkDone>> {
        self.poller.is_some().then(|| self.done.clone())
    }

    /// `puzzles` more are done; `position` units of the current corpus are consumed.
    pub fn advance(&mut self, puzzles: u64, position: u64) {
        self.puzzles += puzzles;
        self.bar.set_position(self.done_before + position);
        self.bar
            .set_message(message(self.puzzles, self.bar.elapsed().as_secs_f64()));
    }

    /// The current corpus is finished; its `size` counts as done.
    pub fn finish_corpus(&mut self, size: u64) {
        self.done_before += size;
    }

    /// Run `f` (which writes to a terminal) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        if self.bar.is_hidden() {
            f()
        } else {
            self.bar.suspend(f)
        }
    }

    /// Print a line without tearing the bar.
    pub fn println(&self, line: &str) {
        self.suspend(|| eprintln!("{line}"));
    }

    pub fn finish(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(poller) = self.poller.take() {
            let _ = poller.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
