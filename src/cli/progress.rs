//! The progress bar on stderr: puzzles done, rate and ETA when the total is known;
//! hidden when stderr is not a terminal or with `--quiet`.
//!
//! Two ways to feed it. Commands that see their work in batches call `advance`. `run`
//! instead hands its runner a shared `WorkDone` (`Progress::polled`): the workers count
//! the bytes each strategy has done and the puzzles every strategy is done with, and
//! publish whose phase runs; a small thread polls them, so the bar moves within a batch
//! too (one batch can take a slow strategy minutes) and names the strategy it waits for.
//! The ETA is the `eta` module's, not indicatif's (which follows the recent rate, and that
//! jumps as fast and slow strategies take turns).

use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sudoku_bench::corpus::LoadError;
use sudoku_bench::render::numbers::{rate, thousands};
use sudoku_bench::runner::WorkDone;

use super::eta::{self, Eta};

pub struct Progress {
    bar: ProgressBar,
    visible: bool,
    /// Puzzles counted by `advance`.
    puzzles: u64,
    /// Position reached by finished corpora, for `advance`.
    done_before: u64,
    done: Arc<WorkDone>,
    /// For `advance`: the bar's own estimate.
    eta: Option<Eta>,
    /// Dropped to stop the poller: it wakes at once, rather than at its next poll (which
    /// would add up to `POLL` to the end of every run).
    stop: Option<Sender<()>>,
    poller: Option<JoinHandle<()>>,
}

const POLL: Duration = Duration::from_millis(100);

/// "1,234 puzzles, 56.0/s, ETA 3m 12s", after `phase` (the strategy at work) if any.
fn message(phase: Option<&str>, puzzles: u64, secs: f64, left: Option<f64>) -> String {
    let mut text = format!(
        "{} puzzles, {}/s",
        thousands(puzzles),
        rate(puzzles as f64 / secs.max(1e-9))
    );
    if let Some(left) = left {
        text = format!("{text}, {}", eta::text(left));
    }
    match phase {
        Some(name) => format!("{name}: {text}"),
        None => text,
    }
}

/// The strategy `phase` names among `names`; past them, the untimed reference's phase.
fn phase_name(names: &[String], phase: usize) -> &str {
    names.get(phase).map_or("reference counts", String::as_str)
}

impl Progress {
    /// A bar over `total` units (bytes of input, or puzzles to make) fed by `advance`.
    pub fn new(total: Option<u64>, quiet: bool) -> Progress {
        let visible = !quiet && std::io::stderr().is_terminal();
        let template = if total.is_some() {
            "{spinner} [{elapsed_precise}] {wide_bar} {percent:>3}%  {msg}"
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
            done: Arc::new(WorkDone::new(0)),
            eta: total.map(|t| Eta::new(t, 1)),
            stop: None,
            poller: None,
        }
    }

    /// A bar fed by a runner's workers through `work_done`: `total_bytes` of input, each
    /// solved once by each of the strategies `names`.
    pub fn polled(total_bytes: Option<u64>, names: Vec<String>, quiet: bool) -> Progress {
        let strategies = names.len().max(1) as u64;
        let mut progress = Progress::new(total_bytes.map(|b| b * strategies), quiet);
        progress.done = Arc::new(WorkDone::new(names.len()));
        progress.eta = None;
        if progress.visible {
            let eta = total_bytes.map(|b| Eta::new(b, names.len()));
            progress.start_poller(names, eta, POLL);
        }
        progress
    }

    /// Move the bar to the workers' count every `every`, until `finish`.
    fn start_poller(&mut self, names: Vec<String>, mut eta: Option<Eta>, every: Duration) {
        let (bar, done) = (self.bar.clone(), self.done.clone());
        let (stop, stopped) = channel::<()>();
        self.stop = Some(stop);
        self.poller = Some(std::thread::spawn(move || loop {
            let bytes: Vec<u64> = done
                .bytes
                .iter()
                .map(|b| b.load(Ordering::Relaxed))
                .collect();
            let phase = done.phase.load(Ordering::Relaxed);
            let puzzles = done.puzzles.load(Ordering::Relaxed);
            let secs = bar.elapsed().as_secs_f64();
            let left = eta.as_mut().and_then(|e| e.observe(secs, phase, &bytes));
            bar.set_position(bytes.iter().sum());
            let name = phase_name(&names, phase);
            bar.set_message(message(Some(name), puzzles, secs, left));
            match stopped.recv_timeout(every) {
                Err(RecvTimeoutError::Timeout) => continue,
                _ => break,
            }
        }));
    }

    /// The counter for a runner's workers to fill, when a polled bar is shown.
    pub fn work_done(&self) -> Option<Arc<WorkDone>> {
        self.poller.is_some().then(|| self.done.clone())
    }

    /// `puzzles` more are done; `position` units of the current corpus are consumed.
    pub fn advance(&mut self, puzzles: u64, position: u64) {
        self.puzzles += puzzles;
        let done = self.done_before + position;
        self.bar.set_position(done);
        let secs = self.bar.elapsed().as_secs_f64();
        let left = self.eta.as_mut().and_then(|e| e.observe(secs, 0, &[done]));
        self.bar
            .set_message(message(None, self.puzzles, secs, left));
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
        self.suspend(|| stderr_line!("{line}"));
    }

    /// Say that a corpus failed while being read, with its cause (the error names the file
    /// and the line). The rule for every command: keep what was done, go on with the next
    /// corpus, and fail at the end.
    /// Say that a corpus failed while read; the message, for the summary to keep.
    pub fn read_failed(&self, error: LoadError) -> String {
        self.failed(&anyhow::Error::new(error))
    }

    /// Say an error that fails the run; the message, for the summary to keep.
    pub fn failed(&self, error: &dyn std::fmt::Display) -> String {
        let message = format!("{error:#}");
        self.println(&format!("error: {message}"));
        message
    }

    pub fn finish(&mut self) {
        self.stop = None;
        if let Some(poller) = self.poller.take() {
            let _ = poller.join();
        }
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_does_not_wait_for_the_next_poll() {
        // A poll an hour away: `finish` must stop the poller at once (it used to sleep
        // out its poll, adding up to 100 ms to every run shown on a terminal).
        let mut progress = Progress::new(Some(100), true);
        progress.start_poller(vec!["fast".into()], None, Duration::from_secs(3600));
        assert!(progress.work_done().is_some());
        let (done, finished) = channel();
        std::thread::spawn(move || {
            progress.finish();
            let _ = done.send(());
        });
        assert!(
            finished.recv_timeout(Duration::from_secs(60)).is_ok(),
            "finish waited for the poll"
        );
    }

    #[test]
    fn the_message_names_the_phase_and_says_the_eta_once_known() {
        let names = vec!["naive".to_string(), "fast".to_string()];
        assert_eq!(phase_name(&names, 1), "fast");
        assert_eq!(phase_name(&names, 2), "reference counts");
        assert_eq!(
            message(Some("naive"), 1234, 10.0, Some(192.0)),
            "naive: 1,234 puzzles, 123/s, ETA 3m 12s"
        );
        assert_eq!(message(None, 5, 10.0, None), "5 puzzles, 0.5/s");
    }
}
