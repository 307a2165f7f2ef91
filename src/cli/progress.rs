//! The progress bar on stderr: puzzles done, rate and ETA when the corpus size is known;
//! hidden when stderr is not a terminal or with `--quiet`.
//!
//! The runner's workers count each finished solve (and its input bytes) into a shared
//! `WorkDone`; a small thread polls it, so the bar moves within a batch too.

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
    done: Arc<WorkDone>,
    stop: Arc<AtomicBool>,
    poller: Option<JoinHandle<()>>,
}

const POLL: Duration = Duration::from_millis(100);

impl Progress {
    /// `total_bytes`: the size of all corpora when every one is a regular file;
    /// `strategies`: solves per puzzle.
    pub fn new(total_bytes: Option<u64>, strategies: usize, quiet: bool) -> Progress {
        let visible = !quiet && std::io::stderr().is_terminal();
        let strategies = strategies.max(1) as u64;
        let template = if total_bytes.is_some() {
            "{spinner} [{elapsed_precise}] {wide_bar} {percent:>3}%  {msg}  ETA {eta}"
        } else {
            "{spinner} [{elapsed_precise}] {msg}"
        };
        let bar = ProgressBar::with_draw_target(
            total_bytes.map(|b| b * strategies),
            ProgressDrawTarget::hidden(),
        );
        bar.set_style(ProgressStyle::with_template(template).expect("the template is valid"));
        let done = Arc::new(WorkDone::default());
        let stop = Arc::new(AtomicBool::new(false));
        let mut poller = None;
        if visible {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            let (bar, done, stop) = (bar.clone(), done.clone(), stop.clone());
            poller = Some(std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    bar.set_position(done.bytes.load(Ordering::Relaxed));
                    let puzzles = done.solves.load(Ordering::Relaxed) / strategies;
                    let secs = bar.elapsed().as_secs_f64().max(1e-9);
                    bar.set_message(format!(
                        "{} puzzles, {}/s",
                        thousands(puzzles),
                        rate(puzzles as f64 / secs)
                    ));
                    bar.tick();
                    std::thread::sleep(POLL);
                }
            }));
        }
        Progress {
            bar,
            done,
            stop,
            poller,
        }
    }

    /// The counter for the runner's workers to fill, when the bar is shown.
    pub fn work_done(&self) -> Option<Arc<WorkDone>> {
        self.poller.is_some().then(|| self.done.clone())
    }

    /// Print a line without tearing the bar.
    pub fn println(&self, line: &str) {
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.suspend(|| eprintln!("{line}"));
        }
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
