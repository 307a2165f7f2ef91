//! The progress bar on stderr: puzzles done, rate and ETA when the corpus size is known;
//! hidden when stderr is not a terminal or with `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Progress {
    bar: ProgressBar,
    puzzles: u64,
    /// Bytes of corpora finished before the current one.
    done_bytes: u64,
}

impl Progress {
    /// `total_bytes` is the size of all corpora when every one is a regular file.
    pub fn new(total_bytes: Option<u64>, quiet: bool) -> Progress {
        let visible = !quiet && std::io::stderr().is_terminal();
        let bar = match total_bytes {
            Some(total) => {
                let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
                bar.set_style(
                    ProgressStyle::with_template(
                        "{spinner} [{elapsed_precise}] {wide_bar} {percent:>3}%  {msg}  ETA {eta}",
                    )
                    .expect("the template is valid"),
                );
                bar
            }
            None => {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
                bar.set_style(
                    ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                        .expect("the template is valid"),
                );
                bar
            }
        };
        if visible {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(200));
        }
        Progress {
            bar,
            puzzles: 0,
            done_bytes: 0,
        }
    }

    /// `puzzles` more are done; `bytes_read` of the current corpus are consumed.
    pub fn advance(&mut self, puzzles: u64, bytes_read: u64) {
        self.puzzles += puzzles;
        self.bar.set_position(self.done_bytes + bytes_read);
        let secs = self.bar.elapsed().as_secs_f64();
        let rate = if secs > 0.0 {
            self.puzzles as f64 / secs
        } else {
            0.0
        };
        self.bar.set_message(format!(
            "{} puzzles, {}/s",
            sudoku_bench::report::table::thousands(self.puzzles),
            sudoku_bench::report::table::rate(rate)
        ));
    }

    /// The current corpus is finished; its size counts as done.
    pub fn finish_corpus(&mut self, bytes: u64) {
        self.done_bytes += bytes;
    }

    /// Print a line without tearing the bar.
    pub fn println(&self, line: &str) {
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.suspend(|| eprintln!("{line}"));
        }
    }

    /// Run `f` (which writes to a terminal) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        if self.bar.is_hidden() {
            f()
        } else {
            self.bar.suspend(f)
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
