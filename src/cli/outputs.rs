//! The one place that decides whether a command may open its files: every command names its
//! inputs and outputs here before doing any work, so no output can replace an input, two
//! outputs cannot share a file, an input cannot be read twice, a default name never replaces
//! an existing file, a named output's directory must exist (only a default name's is made),
//! and an output that cannot be created fails the command before it starts. Outputs made in
//! one go (`report`, `compare`, `merge`) are staged: written beside the file and renamed
//! over it once whole (a signal that stops the command removes what it wrote). Opening an
//! output FIFO waits for a reader without ever blocking, so that the first SIGINT or
//! SIGTERM still ends the command.
//!
//! Files are told apart by identity, not by spelling: an existing file by its device and
//! inode (so `./x`, a symlink or a hard link to `x` are `x`), a file still to be created by
//! the canonical path of its directory and its name. Only regular files (and files to be
//! created) can clash: a device like /dev/null may take several outputs.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};
use sudoku_bench::compress::{Codec, Encoder};
use sudoku_bench::corpus::name_of;

use super::exit::Interrupted;
use super::signals;

/// Refuse a per-puzzle CSV named as compressed (`run.csv.gz`): it is written plain, and
/// `run --resume`, `merge`, `compare` and `report` read it back plain.
pub fn plain_csv(flag: &str, path: &Path) -> anyhow::Result<()> {
    if let Some(codec) = Codec::from_extension(path) {
        bail!(
            "{flag} {}: the per-puzzle CSV is written uncompressed (run --resume and merge \
             read it back as it is), not as {codec}: name it without .{}, and compress it \
             once the run is over",
            path.display(),
            codec.extension()
        );
    }
    Ok(())
}

/// An output a command will write.
#[derive(Debug, Clone)]
pub struct Output {
    /// The option that names it, for messages: `--out`, `--summary`, ...
    pub flag: &'static str,
    pub path: PathBuf,
    /// Chosen by the command, not the user: created exclusively, with `-2`, `-3`, ... added
    /// to the name when it exists, so that it never replaces a file.
    pub default: bool,
    /// Written whole or not at all: see [`Output::staged`].
    staged: bool,
}

impl Output {
    /// An output the user named: replaced if it exists, as asked.
    pub fn named(flag: &'static str, path: &Path) -> Output {
        Output {
            flag,
            path: path.to_path_buf(),
            default: false,
            staged: false,
        }
    }

    /// An output whose name the command chose.
    pub fn default_name(flag: &'static str, path: PathBuf) -> Output {
        Output {
            flag,
            path,
            default: true,
            staged: false,
        }
    }

    /// Written under a temporary name beside the file (`.NAME.sudoku-bench-PID.tmp`) and
    /// renamed over it by [`finish`], so that a command that fails part of the way (a full
    /// disk, an input it cannot read) leaves the file that was there as it was; and so does
    /// one a signal stops, when it answers signals with [`signals::all_or_nothing`]. For
    /// outputs made in one go at the end (`report`, `compare`, `merge`); not for a corpus,
    /// which is streamed and kept in part when a signal stops the command. A FIFO or a
    /// device is written directly: renaming over it would replace it.
    pub fn staged(mut self) -> Output {
        self.staged = true;
        self
    }
}

/// An output created and ready for writing.
pub struct Opened {
    /// The path written, as reported (a default name may have gained a suffix).
    pub path: PathBuf,
    /// Unbuffered: callers that write small pieces wrap it in a `BufWriter`.
    pub writer: Box<dyn Write + Send>,
    /// The temporary file of a staged output; dropped unfinished, it is removed.
    staged: Option<Staged>,
}

impl Opened {
    /// Flush what was written and, for a staged output, make it durable; the error names
    /// the output.
    pub fn sync(&mut self) -> anyhow::Result<()> {
        let synced = self.writer.flush().and_then(|()| match &self.staged {
            Some(staged) => staged.file.sync_all(),
            None => Ok(()),
        });
        synced.with_context(|| format!("cannot write {}", shown(&self.path)))
    }

    /// `sync`, then put a staged output in place of the file it replaces: [`finish`] of
    /// this one output.
    pub fn finish(self) -> anyhow::Result<()> {
        finish(vec![self])
    }

    /// The output as a corpus written the way its name says: compressed when it ends in
    /// `.gz`, `.zst`, `.xz` or `.bz2`, as is otherwise (stdout included); buffered.
    pub fn corpus(self) -> anyhow::Result<CorpusWriter> {
        const BUFFER: usize = 1 << 16;
        debug_assert!(self.staged.is_none(), "a corpus is not staged");
        let encoding = match Codec::from_extension(&self.path) {
            Some(codec) => {
                let encoder = codec
                    .encoder(self.writer)
                    .with_context(|| format!("cannot write {} ({codec})", self.path.display()))?;
                Encoding::Compressed(codec, BufWriter::with_capacity(BUFFER, encoder))
            }
            None => Encoding::Plain(BufWriter::with_capacity(BUFFER, self.writer)),
        };
        Ok(CorpusWriter {
            path: self.path,
            encoding,
        })
    }
}

/// Sync every output, then put the staged ones in place of the files they replace, one
/// after the other with no signal answered between them (see [`signals::placing`]): a
/// signal that comes meanwhile waits for them all. A failure leaves the ones not yet renamed as they
/// were, their temporary files removed.
pub fn finish(outputs: Vec<Opened>) -> anyhow::Result<()> {
    let mut staged = Vec::new();
    for mut output in outputs {
        output.sync()?;
        staged.extend(output.staged.take());
    }
    let mut placing = signals::placing();
    let placed = staged
        .iter_mut()
        .try_for_each(|s| s.put_in_place(&mut placing));
    // Before `staged`, whose files not renamed are removed under the lock this holds.
    drop(placing);
    drop(staged);
    placed
}

/// A corpus being written by `filter` or `generate`. `finish` must be called on every path
/// the command ends by, an interrupted one included: only then is a compressed file whole.
pub struct CorpusWriter {
    /// The path written, for messages.
    pub path: PathBuf,
    encoding: Encoding,
}

enum Encoding {
    Plain(BufWriter<Box<dyn Write + Send>>),
    Compressed(Codec, BufWriter<Encoder<Box<dyn Write + Send>>>),
}

impl CorpusWriter {
    /// Write what is buffered and, for a compressed file, the format's trailer; the error
    /// names the file.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        let (result, codec) = match &mut self.encoding {
            Encoding::Plain(out) => (out.flush(), None),
            Encoding::Compressed(codec, out) => (
                out.flush().and_then(|()| out.get_mut().finish()),
                Some(*codec),
            ),
        };
        result.with_context(|| match codec {
            Some(codec) => format!("cannot write {} ({codec})", self.path.display()),
            None => format!("cannot write {}", self.path.display()),
        })
    }
}

impl Write for CorpusWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.encoding {
            Encoding::Plain(out) => out.write(buf),
            Encoding::Compressed(_, out) => out.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.encoding {
            Encoding::Plain(out) => out.write_all(buf),
            Encoding::Compressed(_, out) => out.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.encoding {
            Encoding::Plain(out) => out.flush(),
            Encoding::Compressed(_, out) => out.flush(),
        }
    }
}

/// What a command reads, so that a refusal says what the clashing input is to it.
#[derive(Debug, Clone, Copy)]
enum Reads {
    /// Corpora of puzzles: `run`, `filter`, `check`, `generate`.
    Corpora,
    /// Runs' per-puzzle CSVs and summary JSONs, read by the command named.
    Runs(&'static str),
    /// A history (`history report`, `history export`), read by the command named.
    History(&'static str),
}

impl Reads {
    /// One input, before its path: "corpus c.txt", "input run.csv".
    fn one(self) -> &'static str {
        match self {
            Reads::Corpora => "corpus",
            Reads::Runs(_) => "input",
            Reads::History(_) => "history",
        }
    }

    /// What an output that is an input is both of.
    fn both(self) -> String {
        match self {
            Reads::Corpora => "a corpus and an output".to_string(),
            Reads::Runs(command) => {
                format!("{command}'s input (a run's per-puzzle CSV or summary JSON) and its output")
            }
            Reads::History(command) => format!("{command}'s history (--db) and its output"),
        }
    }

    /// Why an input may not be named twice.
    fn once(self) -> &'static str {
        match self {
            Reads::Corpora => "each corpus is read once",
            Reads::Runs(_) => "each run is read once",
            Reads::History(_) => "one history is read",
        }
    }
}

/// Inputs and outputs found distinct; `create` makes the outputs.
#[derive(Debug)]
pub struct CheckedOutputs {
    reads: Reads,
    outputs: Vec<Output>,
    /// The inputs that are files, for the check made again on the opened outputs.
    inputs: Vec<(PathBuf, Identity)>,
}

/// What a path designates, for telling files apart.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    Stdin,
    Stdout,
    Existing {
        dev: u64,
        ino: u64,
        regular: bool,
    },
    /// Not there yet: its directory's canonical path joined with its name.
    ToCreate(PathBuf),
}

impl Identity {
    fn input(path: &Path) -> Option<Identity> {
        if path.as_os_str() == "-" {
            return Some(behind(io::stdin().as_fd()).unwrap_or(Identity::Stdin));
        }
        // A path that cannot be looked at cannot be opened either: opening reports it.
        fs::metadata(path).ok().map(|m| Identity::existing(&m))
    }

    fn output(path: &Path) -> Identity {
        if path.as_os_str() == "-" {
            return behind(io::stdout().as_fd()).unwrap_or(Identity::Stdout);
        }
        match fs::metadata(path) {
            Ok(meta) => Identity::existing(&meta),
            Err(_) => Identity::ToCreate(resolve(path)),
        }
    }

    fn existing(meta: &fs::Metadata) -> Identity {
        Identity::Existing {
            dev: meta.dev(),
            ino: meta.ino(),
            regular: meta.is_file(),
        }
    }

    /// The identity of an open file.
    fn of_file(file: &File) -> Option<Identity> {
        file.metadata().ok().map(|m| Identity::existing(&m))
    }

    /// Whether writing one and reading or writing the other would lose data.
    fn clashes_with(&self, other: &Identity) -> bool {
        match (self, other) {
            (Identity::Existing { regular, .. }, _) if !regular => false,
            _ => self == other,
        }
    }

    fn describe(&self) -> &'static str {
        match self {
            Identity::Stdin => " (stdin)",
            Identity::Stdout => " (stdout)",
            _ => "",
        }
    }
}

/// The regular file behind a standard stream redirected from or to one (`< corpus`,
/// `>> out.csv`), which must meet the same rules as a file named by its path; `None` for a
/// terminal, a pipe or a device.
fn behind(fd: BorrowedFd) -> Option<Identity> {
    let file = File::from(fd.try_clone_to_owned().ok()?);
    Identity::of_file(&file).filter(|id| matches!(id, Identity::Existing { regular: true, .. }))
}

/// Where `path` is, or would be once created, so that two spellings of one file compare
/// equal: its nearest existing ancestor canonicalised, then the rest of its components, a
/// `..` taken as the parent of what came before (names that are not there are no symlinks)
/// and a dangling symlink followed to its target (a bounded number of times: links can
/// loop).
fn resolve(path: &Path) -> PathBuf {
    resolve_within(path, 0)
}

/// Symlinks followed by `resolve` before it gives up on a chain of them.
const MAX_LINKS: u32 = 40;

fn resolve_within(path: &Path, links: u32) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    if let Ok(canonical) = fs::canonicalize(&absolute) {
        return canonical;
    }
    if links < MAX_LINKS {
        if let Ok(target) = fs::read_link(&absolute) {
            let target = match absolute.parent() {
                Some(dir) => dir.join(target),
                None => target,
            };
            return resolve_within(&target, links + 1);
        }
    }
    let Some(parent) = absolute.parent() else {
        return absolute;
    };
    match absolute.components().next_back() {
        Some(Component::Normal(name)) => resolve_within(parent, links).join(name),
        Some(Component::ParentDir) => {
            let dir = resolve_within(parent, links);
            dir.parent().map(Path::to_path_buf).unwrap_or(dir)
        }
        Some(Component::CurDir) => resolve_within(parent, links),
        _ => absolute,
    }
}

/// Refuse, before any work, a corpus named twice, an output that is a corpus, and two
/// outputs in one file or both on stdout (two formats in one stream).
pub fn check(corpora: &[PathBuf], outputs: Vec<Output>) -> anyhow::Result<CheckedOutputs> {
    check_as(Reads::Corpora, corpora, outputs)
}

/// `check` for `command`, which reads runs (their per-puzzle CSVs and summary JSONs), not
/// corpora: its refusals say so.
pub fn check_runs(
    command: &'static str,
    runs: &[PathBuf],
    outputs: Vec<Output>,
) -> anyhow::Result<CheckedOutputs> {
    check_as(Reads::Runs(command), runs, outputs)
}

/// `check` for `command`, which reads the history `db`: an output may not replace it.
pub fn check_history(
    command: &'static str,
    db: &Path,
    outputs: Vec<Output>,
) -> anyhow::Result<CheckedOutputs> {
    check_as(Reads::History(command), &[db.to_path_buf()], outputs)
}

fn check_as(
    reads: Reads,
    inputs: &[PathBuf],
    outputs: Vec<Output>,
) -> anyhow::Result<CheckedOutputs> {
    let input_ids: Vec<(&PathBuf, Option<Identity>)> =
        inputs.iter().map(|p| (p, Identity::input(p))).collect();
    for (i, (path, id)) in input_ids.iter().enumerate() {
        let Some(id) = id else { continue };
        if let Some((first, _)) = input_ids[..i]
            .iter()
            .find(|(_, other)| other.as_ref() == Some(id))
        {
            bail!(
                "{} {}{} is named twice (also as {}): {}",
                reads.one(),
                path.display(),
                id.describe(),
                first.display(),
                reads.once()
            );
        }
    }
    if let Reads::Corpora = reads {
        one_name_each(inputs)?;
    }
    let output_ids: Vec<Identity> = outputs.iter().map(|o| Identity::output(&o.path)).collect();
    for (i, (output, id)) in outputs.iter().zip(&output_ids).enumerate() {
        // A default name never replaces a file (it gains a suffix), an input included.
        let inputs = if output.default {
            &[][..]
        } else {
            &input_ids[..]
        };
        for (input, input_id) in inputs {
            if input_id
                .as_ref()
                .is_some_and(|other| id.clashes_with(other))
            {
                bail!(
                    "{} {} is both {}: it is the same file as {} {}; refusing to overwrite \
                     an input",
                    output.flag,
                    output.path.display(),
                    reads.both(),
                    reads.one(),
                    input.display()
                );
            }
        }
        if let Some((first, _)) = outputs[..i]
            .iter()
            .zip(&output_ids)
            .find(|(_, other)| id.clashes_with(other))
        {
            bail!(
                "{} {} and {} {} are the same file{}: each output needs its own",
                first.flag,
                first.path.display(),
                output.flag,
                output.path.display(),
                id.describe()
            );
        }
    }
    // After the clashes: two spellings of one file are that, whether or not it can be made.
    for output in outputs.iter().filter(|o| !o.default) {
        place(output)?;
    }
    let inputs = input_ids
        .into_iter()
        .filter_map(|(path, id)| id.map(|id| (path.clone(), id)))
        .collect();
    Ok(CheckedOutputs {
        reads,
        outputs,
        inputs,
    })
}

/// Refuse a named output that cannot become a file where it says: a directory (or a name
/// ending in `/`), or a file in a directory that is not there. The directory is not made:
/// a mistyped path would become a tree of directories holding a file nobody looks for.
/// (A default output's directory, `results/`, is the tool's to make: see `open`.)
fn place(output: &Output) -> anyhow::Result<()> {
    let path = &output.path;
    if path.as_os_str() == "-" {
        return Ok(());
    }
    if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        bail!(
            "{} {} is a directory: name a file (in it, or elsewhere)",
            output.flag,
            path.display()
        );
    }
    if path.as_os_str().as_bytes().ends_with(b"/") {
        bail!(
            "{} {} names a directory (it ends in /): name a file",
            output.flag,
            path.display()
        );
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => return Ok(()),
    };
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => bail!(
            "{} {}: {} is not a directory",
            output.flag,
            path.display(),
            dir.display()
        ),
        Err(e) if e.kind() == io::ErrorKind::NotFound => bail!(
            "{} {}: directory {} does not exist (outputs are written in existing directories: \
             make it first, e.g. mkdir -p {})",
            output.flag,
            path.display(),
            dir.display(),
            dir.display()
        ),
        Err(e) => Err(e).with_context(|| {
            format!(
                "{} {}: cannot look at directory {}",
                output.flag,
                path.display(),
                dir.display()
            )
        }),
    }
}

/// Refuse two corpora under one name: a corpus's rows and summary row are told apart by
/// it, so they would become one. Only paths that are not UTF-8 can meet so, one's `\xhh`
/// being the other's byte (`name_of`).
fn one_name_each(corpora: &[PathBuf]) -> anyhow::Result<()> {
    let names: Vec<String> = corpora.iter().map(|p| name_of(p)).collect();
    for (i, (path, name)) in corpora.iter().zip(&names).enumerate() {
        if let Some(first) = (0..i).find(|&j| names[j] == *name && corpora[j] != *path) {
            bail!(
                "corpora {:?} and {path:?} would both be named {name} in the rows and the \
                 summary (a byte that is not UTF-8 is written \\xhh there): rename one",
                corpora[first]
            );
        }
    }
    Ok(())
}

/// `check_runs` for a command that may read one run twice (`compare run.csv run.csv`
/// compares a run with itself): the runs are taken once each, and only the outputs are
/// checked.
pub fn check_reading_twice(
    command: &'static str,
    runs: &[PathBuf],
    outputs: Vec<Output>,
) -> anyhow::Result<CheckedOutputs> {
    let mut seen = Vec::new();
    let once: Vec<PathBuf> = runs
        .iter()
        .filter(|p| match Identity::input(p) {
            Some(id) if seen.contains(&id) => false,
            Some(id) => {
                seen.push(id);
                true
            }
            None => true,
        })
        .cloned()
        .collect();
    check_runs(command, &once, outputs)
}

impl CheckedOutputs {
    /// Create every output, or none. An existing named output is opened without being
    /// emptied; only once every output is open, and the opened files are found distinct from
    /// each other and from the inputs (by device and inode: what the names said is checked
    /// again on what was opened), are those emptied. When anything fails, the files made
    /// here are removed again and no existing file has lost a byte; the error names the
    /// path. The outputs come back in the order given.
    pub fn create(&self) -> anyhow::Result<Vec<Opened>> {
        let mut opened: Vec<Option<Open>> = self.outputs.iter().map(|_| None).collect();
        // Named outputs first: a default name then steps around them instead of being
        // replaced by one (`--summary run-X-2.csv` next to a default `run-X.csv` taken).
        let mut order: Vec<usize> = (0..self.outputs.len()).collect();
        order.sort_by_key(|&i| self.outputs[i].default);
        let mut result = Ok(());
        for i in order {
            match open(&self.outputs[i]) {
                Ok(open) => opened[i] = Some(open),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        if result.is_ok() {
            result = self.distinct(&opened);
        }
        if result.is_ok() {
            result = opened.iter().flatten().try_for_each(Open::empty);
        }
        if let Err(e) = result {
            for made in opened.iter().flatten().filter_map(|o| o.made.as_ref()) {
                // Best effort: the error at hand is the one to report.
                let _ = fs::remove_file(made);
            }
            return Err(e);
        }
        Ok(opened
            .into_iter()
            .flatten()
            .map(Open::into_opened)
            .collect())
    }

    /// The opened outputs that are files, checked against each other and the inputs.
    fn distinct(&self, opened: &[Option<Open>]) -> anyhow::Result<()> {
        let files: Vec<(&Open, Identity)> = opened
            .iter()
            .flatten()
            .filter_map(|o| Some((o, Identity::of_file(o.file.as_ref()?)?)))
            .collect();
        for (i, (out, id)) in files.iter().enumerate() {
            if let Some((input, _)) = self.inputs.iter().find(|(_, other)| id.clashes_with(other)) {
                bail!(
                    "{} {} is the same file as {} {}; refusing to overwrite an input",
                    out.flag,
                    out.path.display(),
                    self.reads.one(),
                    input.display()
                );
            }
            if let Some((first, _)) = files[..i].iter().find(|(_, other)| id.clashes_with(other)) {
                bail!(
                    "{} {} and {} {} are the same file: each output needs its own",
                    first.flag,
                    first.path.display(),
                    out.flag,
                    out.path.display()
                );
            }
        }
        Ok(())
    }
}

/// An output opened, not yet emptied.
struct Open {
    flag: &'static str,
    /// The path written, as reported (a default name may have gained a suffix).
    path: PathBuf,
    /// `None` for stdout.
    file: Option<File>,
    /// The file this command made, by its real path (through a dangling symlink, its
    /// target, not the link): removed again if another output fails.
    made: Option<PathBuf>,
    /// A staged output's temporary file (which `file` writes), removed when dropped.
    staged: Option<Staged>,
}

impl Open {
    /// Empty an existing regular file the user named, now that it is to be written (a
    /// staged output is a new file, and replaces the old one only when finished).
    fn empty(&self) -> anyhow::Result<()> {
        match &self.file {
            Some(file)
                if self.made.is_none()
                    && self.staged.is_none()
                    && file.metadata().is_ok_and(|m| m.is_file()) =>
            {
                file.set_len(0).with_context(|| {
                    format!("cannot write {} ({})", self.path.display(), self.flag)
                })
            }
            _ => Ok(()),
        }
    }

    fn into_opened(self) -> Opened {
        Opened {
            path: self.path,
            writer: match self.file {
                Some(file) => Box::new(file),
                None => Box::new(io::stdout()),
            },
            staged: self.staged,
        }
    }
}

/// A staged output's temporary file beside the file it is to replace; removed unless
/// `finish` renames it into place. Known to `signals` while it exists, so that a signal
/// that ends the command removes it too.
struct Staged {
    temp: PathBuf,
    /// The file replaced: the real path, so that a symlink to it is kept and still
    /// leads to it.
    target: PathBuf,
    /// For `sync_all`: the writer is a clone of it.
    file: File,
    done: bool,
}

impl Staged {
    /// A new temporary file for `output`, which is `target` by its real path; with the
    /// permissions of the file there, if there is one.
    fn create(output: &Output, target: PathBuf) -> anyhow::Result<Staged> {
        let name = target.file_name().with_context(|| {
            format!("{} {}: not a file name", output.flag, output.path.display())
        })?;
        let mut temp_name = OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".sudoku-bench-{}.tmp", std::process::id()));
        let temp = target.with_file_name(temp_name);
        let cannot = format!(
            "cannot create {} (for {} {})",
            temp.display(),
            output.flag,
            output.path.display()
        );
        let file = signals::provisional(&temp, || {
            OpenOptions::new().write(true).create_new(true).open(&temp)
        })
        .context(cannot.clone())?;
        let staged = Staged {
            temp,
            target,
            file,
            done: false,
        };
        if let Ok(meta) = fs::metadata(&staged.target) {
            // A report kept private stays so.
            fs::set_permissions(&staged.temp, meta.permissions()).context(cannot)?;
        }
        Ok(staged)
    }

    /// Rename the temporary file over the file it replaces.
    fn put_in_place(&mut self, placing: &mut signals::Placing) -> anyhow::Result<()> {
        placing.rename(&self.temp, &self.target).with_context(|| {
            format!(
                "cannot move {} to {}",
                self.temp.display(),
                self.target.display()
            )
        })?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            // Best effort: the error that ended the command is the one to report.
            let _ = signals::discard(&self.temp);
        }
    }
}

/// An output as messages name it: `-` is stdout.
pub fn shown(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "stdout".to_string()
    } else {
        path.display().to_string()
    }
}

/// Suffixes tried on a default name before giving up.
const MAX_SUFFIX: u32 = 1000;

/// Open `output` for writing, without emptying an existing file.
fn open(output: &Output) -> anyhow::Result<Open> {
    let path = &output.path;
    let made = |path: PathBuf, file: Option<File>, new: bool| Open {
        flag: output.flag,
        made: new.then(|| fs::canonicalize(&path).unwrap_or_else(|_| path.clone())),
        path,
        file,
        staged: None,
    };
    if path.as_os_str() == "-" {
        return Ok(made(path.clone(), None, false));
    }
    let cannot = |p: &Path| format!("cannot create {} ({})", p.display(), output.flag);
    // `metadata`, not `symlink_metadata`: a dangling link is not a file that existed.
    let existing = fs::metadata(path).ok();
    if output.staged && existing.as_ref().is_none_or(|m| m.is_file()) {
        let target = match existing {
            Some(_) => fs::canonicalize(path).with_context(|| cannot(path))?,
            None => resolve(path),
        };
        let staged = Staged::create(output, target)?;
        let file = staged.file.try_clone().with_context(|| cannot(path))?;
        return Ok(Open {
            staged: Some(staged),
            ..made(path.clone(), Some(file), false)
        });
    }
    if !output.default {
        let file = open_named(output).with_context(|| cannot(path))?;
        return Ok(made(path.clone(), Some(file), existing.is_none()));
    }
    // Only a default name's directory is made (a named one must exist: see `place`).
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| cannot(path))?;
    }
    for n in 1..=MAX_SUFFIX {
        let candidate = with_suffix(path, n);
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(file) => return Ok(made(candidate, Some(file), true)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| cannot(&candidate)),
        }
    }
    bail!(
        "cannot create {} ({}): it and {MAX_SUFFIX} suffixed names exist; name the output",
        path.display(),
        output.flag
    )
}

/// How often a FIFO with no reader yet is tried again.
const FIFO_RETRY: Duration = Duration::from_millis(20);

/// Open a named output for writing, without emptying it. Never blocks in open(2): a FIFO
/// no process reads yet is opened with O_NONBLOCK, which fails at once, and tried again
/// until a reader comes, or a signal asks the command to stop (then an [`Interrupted`]
/// error). A blocking open would keep the first SIGINT or SIGTERM from ending the command:
/// signal-hook's handlers only set a flag, and the kernel then restarts the open.
fn open_named(output: &Output) -> anyhow::Result<File> {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_NONBLOCK);
    loop {
        match options.open(&output.path) {
            Ok(file) => {
                blocking(&file)?;
                return Ok(file);
            }
            Err(e)
                if e.raw_os_error() == Some(libc::ENXIO)
                    && fs::metadata(&output.path).is_ok_and(|m| m.file_type().is_fifo()) =>
            {
                if let Some(signal) = signals::stopped() {
                    return Err(Interrupted {
                        signal,
                        message: format!(
                            "interrupted by {} while {} {} (a FIFO) waited for a process to \
                             read it: nothing was done",
                            signals::name(signal),
                            output.flag,
                            output.path.display()
                        ),
                    }
                    .into());
                }
                std::thread::sleep(FIFO_RETRY);
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Writes to `file` wait for room again, as writes to an output should (it was opened
/// with O_NONBLOCK only so that the open would not wait).
fn blocking(file: &File) -> io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor `file` owns and keeps open; no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `dir/name.ext` for `n` = 1, `dir/name-n.ext` after.
fn with_suffix(path: &Path, n: u32) -> PathBuf {
    if n == 1 {
        return path.to_path_buf();
    }
    let mut name: OsString = path.file_stem().unwrap_or_default().to_os_string();
    name.push(format!("-{n}"));
    if let Some(ext) = path.extension() {
        name.push(".");
        name.push(ext);
    }
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_go_before_the_extension() {
        let p = Path::new("results/run-x.csv");
        assert_eq!(with_suffix(p, 1), p);
        assert_eq!(with_suffix(p, 3), Path::new("results/run-x-3.csv"));
        assert_eq!(with_suffix(Path::new("out"), 2), Path::new("out-2"));
    }
}
