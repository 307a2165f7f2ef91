//! `sudoku-bench merge`: the parts of a run split with `--shard K/N` back into one
//! per-puzzle CSV and one summary, as a single run would have written them. Every check
//! comes before anything is written; the outputs appear whole or not at all (each is
//! written to a temporary file beside it and renamed at the end).

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use sudoku_bench::merge;
use sudoku_bench::report::table::{Exporter, TableExporter, WideTableExporter};

use super::outputs::{self, Output};
use super::run::SummaryFormat;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The parts' per-puzzle CSVs (`run --shard K/N -o part-K.csv --summary part-K.json`);
    /// each one's summary is the same path ending in .json.
    #[arg(value_name = "PART.csv", required = true)]
    parts: Vec<PathBuf>,

    /// The merged per-puzzle CSV.
    #[arg(long, short = 'o')]
    out: PathBuf,

    /// Also write the merged summary to this path, in --summary-format.
    #[arg(long)]
    summary: Option<PathBuf>,

    /// The --summary's format; default: from its extension (.json, .md, .csv), else JSON.
    #[arg(long, value_enum, requires = "summary")]
    summary_format: Option<SummaryFormat>,

    /// Show every column of the summary table.
    #[arg(long)]
    wide: bool,

    /// No summary table.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// A file being written under a temporary name beside its final one; removed unless
/// `finish` renames it into place.
struct Staged {
    temp: PathBuf,
    path: PathBuf,
    done: bool,
}

impl Staged {
    fn create(path: &Path) -> anyhow::Result<(Staged, File)> {
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
        let staged = Staged {
            temp,
            path: path.to_path_buf(),
            done: false,
        };
        Ok((staged, file))
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

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let jsons: Vec<PathBuf> = args.parts.iter().map(|p| merge::summary_path(p)).collect();
    let inputs: Vec<PathBuf> = args.parts.iter().chain(&jsons).cloned().collect();
    let mut wanted = vec![Output::named("-o", &args.out)];
    if let Some(s) = &args.summary {
        wanted.push(Output::named("--summary", s));
    }
    // Only the clash checks: the outputs are created under temporary names below.
    outputs::check_reading_twice(&inputs, wanted)?;
    let parts = merge::load(&args.parts)?;
    let report = merge::merged_report(&parts)?;
    let corpora = merge::corpora(&parts);

    let (csv, file) = Staged::create(&args.out)?;
    let mut writer = BufWriter::new(file);
    let rows = merge::merge_rows(&args.parts, &corpora, &mut writer, &args.out)?;
    writer
        .into_inner()
        .map_err(|e| e.into_error())
        .and_then(|f| f.sync_all())
        .with_context(|| format!("cannot write {}", args.out.display()))?;

    let summary = match &args.summary {
        Some(path) => {
            let text = SummaryFormat::of(args.summary_format, path)
                .exporter()
                .export(&report);
            let (staged, mut file) = Staged::create(path)?;
            file.write_all(text.as_bytes())
                .and_then(|()| file.sync_all())
                .with_context(|| format!("cannot write {}", path.display()))?;
            Some(staged)
        }
        None => None,
    };
    // Renamed last, together: a failure above leaves neither output behind.
    csv.finish()?;
    if let Some(staged) = summary {
        staged.finish()?;
    }

    if !args.quiet {
        let table: &dyn Exporter = if args.wide {
            &WideTableExporter
        } else {
            &TableExporter
        };
        eprint!("{}", table.export(&report));
        eprintln!(
            "merged rows: {} ({rows} rows from {} part files)",
            args.out.display(),
            parts.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
