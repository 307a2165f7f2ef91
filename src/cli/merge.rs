//! `sudoku-bench merge`: the parts of a run split with `--shard K/N` back into one
//! per-puzzle CSV and one summary, as a single run would have written them. Every check
//! comes before anything is written; the files appear whole or not at all (each is
//! written to a temporary file beside it and renamed at the end). `-` is stdout.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use sudoku_bench::merge;

use super::exit::Exit;
use super::outputs::{self, Output};
use super::summary_out::SummaryArgs;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The parts' per-puzzle CSVs (`run --shard K/N -o part-K.csv --summary part-K.json`);
    /// each one's summary is the same path ending in .json.
    #[arg(value_name = "PART.csv", required = true)]
    parts: Vec<PathBuf>,

    /// The merged per-puzzle CSV (`-` for stdout).
    #[arg(long, short = 'o')]
    out: PathBuf,

    #[command(flatten)]
    summary: SummaryArgs,

    /// No summary table.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// A file being written under a temporary name beside its final one; removed unless
/// `finish` renames it into place.
struct Staged {
    temp: PathBuf,
    path: PathBuf,
    file: File,
    done: bool,
}

impl Staged {
    fn create(path: &Path) -> anyhow::Result<Staged> {
        let name = path
            .file_name()
            .with_context(|| format!("{}: not a file name", path.display()))?;
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".merge-{}.tmp", std::process::id()));
        let temp = path.with_file_name(temp_name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .with_context(|| {
                format!("cannot create {} (for {})", temp.display(), path.display())
            })?;
        Ok(Staged {
            temp,
            path: path.to_path_buf(),
            file,
            done: false,
        })
    }

    fn finish(mut self) -> anyhow::Result<()> {
        fs::rename(&self.temp, &self.path).with_context(|| {
            format!(
                "cannot move {} to {}",
                self.temp.display(),
                self.path.display()
            )
        })?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// An output of `merge`: stdout for `-`, as `run -o -` writes it, else a staged file.
enum Out {
    Stdout,
    File(Staged),
}

impl Out {
    fn create(path: &Path) -> anyhow::Result<Out> {
        if path.as_os_str() == "-" {
            return Ok(Out::Stdout);
        }
        Staged::create(path).map(Out::File)
    }

    /// Somewhere to write to; buffered by the caller.
    fn writer(&mut self) -> Box<dyn Write + '_> {
        match self {
            Out::Stdout => Box::new(io::stdout().lock()),
            Out::File(staged) => Box::new(&staged.file),
        }
    }

    /// Everything written is on disk (or handed on, for stdout).
    fn sync(&mut self) -> io::Result<()> {
        match self {
            Out::Stdout => io::stdout().flush(),
            Out::File(staged) => staged.file.sync_all(),
        }
    }

    /// A file goes in place; stdout has nothing left to do.
    fn finish(self) -> anyhow::Result<()> {
        match self {
            Out::Stdout => Ok(()),
            Out::File(staged) => staged.finish(),
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    let stdout = |p: &Path| p.as_os_str() == "-";
    if args.summary.path.as_deref().is_some_and(stdout) && stdout(&args.out) {
        bail!(
            "-o - and --summary - would both go to stdout, the CSV and the summary in one \
             stream: send one of them to a file"
        );
    }
    outputs::plain_csv("-o", &args.out)?;
    let jsons: Vec<PathBuf> = args.parts.iter().map(|p| merge::summary_path(p)).collect();
    let inputs: Vec<PathBuf> = args.parts.iter().chain(&jsons).cloned().collect();
    let mut wanted = vec![Output::named("-o", &args.out)];
    if let Some(s) = &args.summary.path {
        wanted.push(Output::named("--summary", s));
    }
    // Only the clash checks: the outputs are created under temporary names below.
    outputs::check_reading_twice("merge", &inputs, wanted)?;
    let parts = merge::load(&args.parts)?;
    let report = merge::merged_report(&parts)?;
    let corpora = merge::corpora(&parts);

    // Every output is made before a row is streamed: with -o -, a --summary that cannot be
    // made would otherwise fail after the rows were all printed.
    let summary_out = args.summary.path.as_deref().map(Out::create).transpose()?;
    let mut csv = Out::create(&args.out)?;
    let rows = {
        let mut writer = BufWriter::with_capacity(1 << 16, csv.writer());
        let rows = merge::merge_rows(&args.parts, &corpora, &mut writer, &args.out)?;
        writer
            .flush()
            .with_context(|| format!("cannot write {}", args.out.display()))?;
        rows
    };
    csv.sync()
        .with_context(|| format!("cannot write {}", args.out.display()))?;

    let summary = match (&args.summary.path, summary_out) {
        (Some(path), Some(mut out)) => {
            let text = args.summary.text(path, &report);
            let written = out.writer().write_all(text.as_bytes());
            written
                .and_then(|()| out.sync())
                .with_context(|| format!("cannot write {}", path.display()))?;
            Some(out)
        }
        _ => None,
    };
    // Renamed last, together: a failure above leaves neither file behind.
    csv.finish()?;
    if let Some(out) = summary {
        out.finish()?;
    }

    if !args.quiet {
        args.summary.show(&report);
        let to = if stdout(&args.out) {
            "stdout".into()
        } else {
            args.out.display().to_string()
        };
        eprintln!(
            "merged rows: {to} ({rows} rows from {} part files)",
            parts.len()
        );
    }
    Ok(Exit::Success)
}
