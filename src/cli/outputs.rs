//! The one place that decides whether a command may open its files: every command names its
//! inputs and outputs here before doing any work, so no output can replace an input, two
//! outputs cannot share a file, an input cannot be read twice, a default name never replaces
//! an existing file, and an output that cannot be created fails the command before it starts.
//!
//! Files are told apart by identity, not by spelling: an existing file by its device and
//! inode (so `./x`, a symlink or a hard link to `x` are `x`), a file still to be created by
//! the canonical path of its directory and its name. Only regular files (and files to be
//! created) can clash: a device like /dev/null may take several outputs.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

/// An output a command will write.
#[derive(Debug, Clone)]
pub struct Output {
    /// The option that names it, for messages: `--out`, `--summary`, ...
    pub flag: &'static str,
    pub path: PathBuf,
    /// Chosen by the command, not the user: created exclusively, with `-2`, `-3`, ... added
    /// to the name when it exists, so that it never replaces a file.
    pub default: bool,
}

impl Output {
    /// An output the user named: replaced if it exists, as asked.
    pub fn named(flag: &'static str, path: &Path) -> Output {
        Output {
            flag,
            path: path.to_path_buf(),
            default: false,
        }
    }

    /// An output whose name the command chose.
    pub fn default_name(flag: &'static str, path: PathBuf) -> Output {
        Output {
            flag,
            path,
            default: true,
        }
    }
}

/// An output created and ready for writing.
pub struct Opened {
    /// The path written, as reported (a default name may have gained a suffix).
    pub path: PathBuf,
    /// Unbuffered: callers that write small pieces wrap it in a `BufWriter`.
    pub writer: Box<dyn Write + Send>,
}

/// Inputs and outputs found distinct; `create` makes the outputs.
#[derive(Debug)]
pub struct Checked {
    outputs: Vec<Output>,
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
            return Some(Identity::Stdin);
        }
        // A path that cannot be looked at cannot be opened either: opening reports it.
        fs::metadata(path).ok().map(|m| Identity::existing(&m))
    }

    fn output(path: &Path) -> Identity {
        if path.as_os_str() == "-" {
            return Identity::Stdout;
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

/// `path` made absolute through its nearest existing ancestor, canonicalised, so that two
/// spellings of a file still to be created compare equal.
fn resolve(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut base = absolute.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        if let Ok(canonical) = fs::canonicalize(base) {
            return rest.iter().rev().fold(canonical, |p, name| p.join(name));
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                base = parent;
            }
            _ => return absolute,
        }
    }
}

/// Refuse, before any work, an input named twice, an output that is an input, and two
/// outputs in one file or both on stdout (two formats in one stream).
pub fn check(inputs: &[PathBuf], outputs: Vec<Output>) -> anyhow::Result<Checked> {
    let input_ids: Vec<(&PathBuf, Option<Identity>)> =
        inputs.iter().map(|p| (p, Identity::input(p))).collect();
    for (i, (path, id)) in input_ids.iter().enumerate() {
        let Some(id) = id else { continue };
        if let Some((first, _)) = input_ids[..i]
            .iter()
            .find(|(_, other)| other.as_ref() == Some(id))
        {
            bail!(
                "corpus {}{} is named twice (also as {}): each corpus is read once",
                path.display(),
                id.describe(),
                first.display()
            );
        }
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
                    "{} {} is both a corpus and an output: it is the same file as corpus {}; \
                     refusing to overwrite an input",
                    output.flag,
                    output.path.display(),
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
    Ok(Checked { outputs })
}

impl Checked {
    /// Create every output, or none: when one cannot be created, those created here are
    /// removed again, and the error names the path. The outputs come back in the order
    /// given.
    pub fn create(self) -> anyhow::Result<Vec<Opened>> {
        let mut opened: Vec<Option<Opened>> = self.outputs.iter().map(|_| None).collect();
        let mut created: Vec<PathBuf> = Vec::new();
        // Named outputs first: a default name then steps around them instead of being
        // replaced by one (`--summary run-X-2.csv` next to a default `run-X.csv` taken).
        let mut order: Vec<usize> = (0..self.outputs.len()).collect();
        order.sort_by_key(|&i| self.outputs[i].default);
        for i in order {
            match create(&self.outputs[i]) {
                Ok((out, new)) => {
                    if new {
                        created.push(out.path.clone());
                    }
                    opened[i] = Some(out);
                }
                Err(e) => {
                    for path in &created {
                        // Best effort: the error at hand is the one to report.
                        let _ = fs::remove_file(path);
                    }
                    return Err(e);
                }
            }
        }
        Ok(opened.into_iter().flatten().collect())
    }
}

/// Suffixes tried on a default name before giving up.
const MAX_SUFFIX: u32 = 1000;

/// The output opened, and whether this made a new file.
fn create(output: &Output) -> anyhow::Result<(Opened, bool)> {
    let path = &output.path;
    if path.as_os_str() == "-" {
        let opened = Opened {
            path: path.clone(),
            writer: Box::new(io::stdout()),
        };
        return Ok((opened, false));
    }
    let cannot = |p: &Path| format!("cannot create {} ({})", p.display(), output.flag);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| cannot(path))?;
    }
    if !output.default {
        let existed = fs::symlink_metadata(path).is_ok();
        let file = File::create(path).with_context(|| cannot(path))?;
        return Ok((opened(path.clone(), file), !existed));
    }
    for n in 1..=MAX_SUFFIX {
        let candidate = with_suffix(path, n);
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(file) => return Ok((opened(candidate, file), true)),
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

fn opened(path: PathBuf, file: File) -> Opened {
    Opened {
        path,
        writer: Box::new(file),
    }
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
