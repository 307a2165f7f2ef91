//! What the SQLite and the PostgreSQL stores share: the schema, its version and migrations,
//! the refusals, and every statement of [`HistoryStore`](super::store::HistoryStore)'s
//! `add`, `commits` and `observations`, written once over [`Sql`], the little each database
//! provides (running a statement, the tables it holds, its key column). So the same history
//! gives the same answers from either, by construction rather than by keeping two copies
//! in step.
//!
//! The statements are in the dialect both accept: numbered parameters `?1` (PostgreSQL's
//! `$1`, which [`Sql::run`] of PostgreSQL translates), `BIGINT` and `DOUBLE PRECISION`
//! (SQLite takes their affinities from the names), `ON CONFLICT ... DO NOTHING` and
//! `RETURNING`. The one column type that differs, an automatic key, is [`Sql::key`].
//!
//! Numbers that may pass 2^63 in principle (summed nodes, guesses, instructions,
//! nanoseconds) are stored only below it, a BIGINT in both; an add that would overflow one is refused rather than
//! stored wrong.

use std::path::Path;

use super::store::{
    AbRecord, Added, CommitRecord, CorpusKey, Measured, Observation, Placement, RelativeRecord,
    RowRecord, RunRecord, SeriesKey, StoreError,
};
use sudoku_bench_core::machine::Machine;
use sudoku_bench_core::results::Status;

/// The schema version this build writes. `MIGRATIONS[v]` takes a store from version `v` to
/// `v + 1`; version 0 is an empty database.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Each version's statements; `{key}` stands for [`Sql::key`].
const MIGRATIONS: &[&str] = &[V1, V2, V3];

/// Version 1: commits, machines, corpora (one name each), runs with their labels, a row per
/// (corpus, strategy) with its statuses, and in-run A/B results.
const V1: &str = "
CREATE TABLE commits (
    seq {key},
    sha TEXT NOT NULL UNIQUE,
    time BIGINT NOT NULL,
    branch TEXT
);
CREATE TABLE machines (
    id {key},
    cpu TEXT NOT NULL,
    cores BIGINT NOT NULL,
    os TEXT NOT NULL,
    arch TEXT NOT NULL,
    UNIQUE (cpu, cores, os, arch)
);
CREATE TABLE corpora (
    identity TEXT PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE runs (
    id {key},
    sha TEXT NOT NULL REFERENCES commits (sha),
    digest TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL,
    date TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    machine BIGINT NOT NULL REFERENCES machines (id),
    settings TEXT NOT NULL,
    branch TEXT
);
CREATE TABLE labels (
    run BIGINT NOT NULL REFERENCES runs (id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run, key)
);
CREATE TABLE rows (
    run BIGINT NOT NULL REFERENCES runs (id),
    corpus TEXT NOT NULL REFERENCES corpora (identity),
    strategy TEXT NOT NULL,
    puzzles BIGINT NOT NULL,
    mismatches BIGINT NOT NULL,
    failures BIGINT NOT NULL,
    searched BIGINT NOT NULL,
    nodes_sum BIGINT,
    nodes_counted BIGINT,
    guesses_sum BIGINT,
    guessed BIGINT,
    rate DOUBLE PRECISION NOT NULL,
    median_rate DOUBLE PRECISION NOT NULL,
    time_sum_ns BIGINT NOT NULL,
    median_ns BIGINT NOT NULL,
    p90_ns BIGINT NOT NULL,
    p99_ns BIGINT NOT NULL,
    max_ns BIGINT NOT NULL,
    times TEXT NOT NULL,
    PRIMARY KEY (run, corpus, strategy)
);
CREATE TABLE statuses (
    run BIGINT NOT NULL,
    corpus TEXT NOT NULL,
    strategy TEXT NOT NULL,
    status TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (run, corpus, strategy, status),
    FOREIGN KEY (run, corpus, strategy) REFERENCES rows (run, corpus, strategy)
);
CREATE TABLE ab (
    run BIGINT NOT NULL REFERENCES runs (id),
    corpus TEXT NOT NULL REFERENCES corpora (identity),
    old TEXT NOT NULL,
    new TEXT NOT NULL,
    ratio DOUBLE PRECISION NOT NULL,
    low DOUBLE PRECISION,
    high DOUBLE PRECISION,
    confidence DOUBLE PRECISION NOT NULL,
    verdict TEXT NOT NULL,
    PRIMARY KEY (run, corpus, old, new)
);
";

/// Version 2: times relative to a reference strategy of the same run (`history add
/// --relative-to`). A table of its own rather than rows under a made-up strategy name: a
/// relative time has no statuses, counts or histogram, and a store of version 1 stays
/// what it was, only gaining the empty table.
const V2: &str = "
CREATE TABLE relative (
    run BIGINT NOT NULL REFERENCES runs (id),
    corpus TEXT NOT NULL REFERENCES corpora (identity),
    strategy TEXT NOT NULL,
    reference TEXT NOT NULL,
    ratio DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (run, corpus, strategy, reference)
);
";

/// Version 3: instructions counted by `run --measure instructions`, summed over the row's
/// searches that counted them (null when the run timed rather than counted). Columns of
/// `rows` rather than a table: a count is one more figure of the same row, as nodes are.
const V3: &str = "
ALTER TABLE rows ADD COLUMN instructions_sum BIGINT;
ALTER TABLE rows ADD COLUMN instructions_counted BIGINT;
";

/// A value passed to or read from a statement. Nulls are typed: PostgreSQL checks a
/// parameter's type even when it is null.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer.
    Int(Option<i64>),
    /// A floating-point number.
    Real(Option<f64>),
    /// Text.
    Text(Option<String>),
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(Some(v))
    }
}

impl From<Option<i64>> for Value {
    fn from(v: Option<i64>) -> Value {
        Value::Int(v)
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(Some(v))
    }
}

impl From<Option<f64>> for Value {
    fn from(v: Option<f64>) -> Value {
        Value::Real(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(Some(v.to_string()))
    }
}

impl From<&String> for Value {
    fn from(v: &String) -> Value {
        Value::Text(Some(v.clone()))
    }
}

impl From<&Option<String>> for Value {
    fn from(v: &Option<String>) -> Value {
        Value::Text(v.clone())
    }
}

/// The values of a statement's parameters, in order.
macro_rules! values {
    ($($v:expr),* $(,)?) => { &[$(Value::from($v)),*] };
}

/// One row a query returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Row(pub Vec<Value>);

impl Row {
    fn value(&self, i: usize) -> Result<&Value, String> {
        self.0
            .get(i)
            .ok_or_else(|| format!("a query returned no column {i}"))
    }

    /// Whether column `i` is null, of whatever type: SQLite's nulls have none.
    fn null(&self, i: usize) -> Result<bool, String> {
        Ok(matches!(
            self.value(i)?,
            Value::Int(None) | Value::Real(None) | Value::Text(None)
        ))
    }

    fn opt_int(&self, i: usize) -> Result<Option<i64>, String> {
        if self.null(i)? {
            return Ok(None);
        }
        match self.value(i)? {
            Value::Int(v) => Ok(*v),
            other => Err(format!("column {i} holds {other:?}, not an integer")),
        }
    }

    fn int(&self, i: usize) -> Result<i64, String> {
        self.opt_int(i)?
            .ok_or_else(|| format!("column {i} is null, not an integer"))
    }

    fn opt_real(&self, i: usize) -> Result<Option<f64>, String> {
        if self.null(i)? {
            return Ok(None);
        }
        match self.value(i)? {
            Value::Real(v) => Ok(*v),
            // SQLite may hand back a whole number stored in a REAL column as an integer.
            Value::Int(v) => Ok(v.map(|v| v as f64)),
            other => Err(format!("column {i} holds {other:?}, not a number")),
        }
    }

    fn real(&self, i: usize) -> Result<f64, String> {
        self.opt_real(i)?
            .ok_or_else(|| format!("column {i} is null, not a number"))
    }

    fn opt_text(&self, i: usize) -> Result<Option<String>, String> {
        if self.null(i)? {
            return Ok(None);
        }
        match self.value(i)? {
            Value::Text(v) => Ok(v.clone()),
            other => Err(format!("column {i} holds {other:?}, not text")),
        }
    }

    fn text(&self, i: usize) -> Result<String, String> {
        self.opt_text(i)?
            .ok_or_else(|| format!("column {i} is null, not text"))
    }
}

/// What a database provides to the shared statements: a connection, or a transaction on
/// one.
pub trait Sql {
    /// The database, as messages name it (a path, or a URL without its password).
    fn name(&self) -> &str;

    /// The column type of an automatic integer key.
    fn key(&self) -> &'static str;

    /// Run one statement with numbered parameters `?1`, `?2`, ...; the rows it returns.
    fn run(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError>;

    /// Run several statements without parameters.
    fn batch(&mut self, sql: &str) -> Result<(), StoreError>;

    /// The statement listing the names of the tables the database holds, one a row
    /// (PostgreSQL: in the schema the connection uses).
    fn tables_query(&self) -> &'static str;

    /// The names of the tables the database holds.
    fn tables(&mut self) -> Result<Vec<String>, StoreError> {
        let rows = self.run(self.tables_query(), &[])?;
        Ok(rows
            .into_iter()
            .filter_map(|r| match r.0.into_iter().next() {
                Some(Value::Text(Some(name))) => Some(name),
                _ => None,
            })
            .collect())
    }
}

/// A database error of `db` saying `why`.
fn fail(db: &dyn Sql, why: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> StoreError {
    StoreError::Database {
        path: db.name().to_string(),
        why: why.into(),
    }
}

/// The first column of the first row, when there is one.
fn first<T>(
    db: &dyn Sql,
    rows: Vec<Row>,
    get: impl Fn(&Row) -> Result<T, String>,
) -> Result<Option<T>, StoreError> {
    rows.first()
        .map(|r| get(r).map_err(|e| fail(db, e)))
        .transpose()
}

/// `n` as a stored integer, refused (naming what it is) past 2^63 - 1.
fn to_i64(db: &dyn Sql, what: &str, n: u64) -> Result<i64, StoreError> {
    i64::try_from(n).map_err(|_| {
        fail(
            db,
            format!("{what} {n} is past the largest integer the history stores"),
        )
    })
}

/// The store's schema version: 0 for an empty database; refused when it holds tables but no
/// version, or a version below 1.
pub fn version(db: &mut dyn Sql) -> Result<i64, StoreError> {
    let foreign = |db: &dyn Sql| StoreError::Foreign {
        path: db.name().to_string(),
    };
    let tables = db.tables()?;
    if !tables.iter().any(|t| t == "schema_version") {
        return if tables.is_empty() {
            Ok(0)
        } else {
            Err(foreign(db))
        };
    }
    let rows = db.run("SELECT max(version) FROM schema_version", &[])?;
    let found = first(db, rows, |r| r.opt_int(0))?
        .flatten()
        .ok_or_else(|| foreign(db))?;
    // Version 0 is an empty database, which has no schema_version table: migrating one that
    // says 0 would make its tables again over the ones there.
    if found < 1 {
        return Err(StoreError::BadVersion {
            path: db.name().to_string(),
            found,
        });
    }
    Ok(found)
}

/// Open the store for use: as [`migrate`], but a store that holds no history yet (version
/// 0) is made one only when `create` (`history add`); else it is refused with `none`'s
/// error, given the store's name, so that a command that reads never passes on nothing.
/// Run as [`migrate`] is.
pub fn ready(
    db: &mut dyn Sql,
    create: bool,
    none: fn(String) -> StoreError,
) -> Result<(), StoreError> {
    if !create && version(db)? == 0 {
        return Err(none(db.name().to_string()));
    }
    migrate(db)
}

/// Bring the store to [`SCHEMA_VERSION`], or refuse a store that is newer or is no history.
/// Run inside a transaction that holds the store's write lock, so that a refusal or a
/// failure leaves it as it was and two migrations do not interleave.
pub fn migrate(db: &mut dyn Sql) -> Result<(), StoreError> {
    let found = version(db)?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::FutureVersion {
            path: db.name().to_string(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    if found == SCHEMA_VERSION {
        return Ok(());
    }
    if found == 0 {
        db.batch("CREATE TABLE schema_version (version BIGINT NOT NULL)")?;
        db.run("INSERT INTO schema_version (version) VALUES (0)", &[])?;
    }
    let key = db.key();
    for (from, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        db.batch(&sql.replace("{key}", key))?;
        db.run(
            "UPDATE schema_version SET version = ?1",
            values![from as i64 + 1],
        )?;
    }
    Ok(())
}

/// The commit's row, made when new; a given time that differs from the recorded one is
/// refused. Its time in the store: the recorded one, or the placement's when new.
fn place(db: &mut dyn Sql, placement: &Placement, first_file: &Path) -> Result<i64, StoreError> {
    let rows = db.run(
        "SELECT time FROM commits WHERE sha = ?1",
        values![&placement.commit],
    )?;
    match first(db, rows, |r| r.int(0))? {
        Some(time) if placement.time_given && time != placement.time => {
            Err(StoreError::OtherTime {
                file: first_file.to_path_buf(),
                commit: placement.commit.clone(),
                recorded: super::shown_time(time),
                given: super::shown_time(placement.time),
            })
        }
        Some(time) => Ok(time),
        None => db
            .run(
                "INSERT INTO commits (sha, time, branch) VALUES (?1, ?2, ?3)",
                values![&placement.commit, placement.time, &placement.branch],
            )
            .map(|_| placement.time),
    }
}

/// The corpus's row, made when new; refused when its identity is known by another name.
fn corpus(db: &mut dyn Sql, corpus: &CorpusKey, file: &Path) -> Result<(), StoreError> {
    let rows = db.run(
        "SELECT name FROM corpora WHERE identity = ?1",
        values![&corpus.identity],
    )?;
    match first(db, rows, |r| r.text(0))? {
        Some(name) if name != corpus.name => Err(StoreError::CorpusRenamed {
            file: file.to_path_buf(),
            name: corpus.name.clone(),
            recorded: name,
        }),
        Some(_) => Ok(()),
        None => db
            .run(
                "INSERT INTO corpora (identity, name) VALUES (?1, ?2)",
                values![&corpus.identity, &corpus.name],
            )
            .map(drop),
    }
}

/// The machine's id, its row made when new.
fn machine(db: &mut dyn Sql, m: &Machine) -> Result<i64, StoreError> {
    let cores = to_i64(db, "cores", m.cores as u64)?;
    db.run(
        "INSERT INTO machines (cpu, cores, os, arch) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (cpu, cores, os, arch) DO NOTHING",
        values![&m.cpu, cores, &m.os, &m.arch],
    )?;
    let rows = db.run(
        "SELECT id FROM machines WHERE cpu = ?1 AND cores = ?2 AND os = ?3 AND arch = ?4",
        values![&m.cpu, cores, &m.os, &m.arch],
    )?;
    first(db, rows, |r| r.int(0))?.ok_or_else(|| fail(db, "a machine just recorded is not there"))
}

fn row(db: &mut dyn Sql, run: i64, r: &RowRecord) -> Result<(), StoreError> {
    let pair = |db: &dyn Sql, what: &str, v: Option<(u64, u64)>| -> Result<_, StoreError> {
        Ok(match v {
            Some((sum, count)) => (Some(to_i64(db, what, sum)?), Some(to_i64(db, what, count)?)),
            None => (None, None),
        })
    };
    let (nodes_sum, nodes_counted) = pair(db, "nodes", r.nodes)?;
    let (guesses_sum, guessed) = pair(db, "guesses", r.guesses)?;
    let (instructions_sum, instructions_counted) = pair(db, "instructions", r.instructions)?;
    let n = |what: &str, v: u64| to_i64(db, what, v);
    let params = values![
        run,
        &r.corpus.identity,
        &r.strategy,
        n("puzzles", r.puzzles)?,
        n("mismatches", r.mismatches)?,
        n("failures", r.failures)?,
        n("searched", r.searched)?,
        nodes_sum,
        nodes_counted,
        guesses_sum,
        guessed,
        r.rate,
        r.median_rate,
        n("summed time", r.time_sum_ns)?,
        n("median", r.median_ns)?,
        n("p90", r.p90_ns)?,
        n("p99", r.p99_ns)?,
        n("max", r.max_ns)?,
        &r.times,
        instructions_sum,
        instructions_counted,
    ];
    db.run(
        "INSERT INTO rows (run, corpus, strategy, puzzles, mismatches, failures, searched, \
         nodes_sum, nodes_counted, guesses_sum, guessed, rate, median_rate, time_sum_ns, \
         median_ns, p90_ns, p99_ns, max_ns, times, instructions_sum, instructions_counted) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, \
         ?18, ?19, ?20, ?21)",
        params,
    )?;
    for (status, &count) in Status::ALL.iter().zip(&r.statuses) {
        let count = to_i64(db, "count", count)?;
        db.run(
            "INSERT INTO statuses (run, corpus, strategy, status, count) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            values![run, &r.corpus.identity, &r.strategy, status.as_str(), count],
        )?;
    }
    Ok(())
}

/// Record an A/B result of run `run` unless it has it: 1 when recorded, else 0.
fn ab(db: &mut dyn Sql, run: i64, a: &AbRecord) -> Result<usize, StoreError> {
    let rows = db.run(
        "INSERT INTO ab (run, corpus, old, new, ratio, low, high, confidence, verdict) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
         ON CONFLICT (run, corpus, old, new) DO NOTHING RETURNING run",
        values![
            run,
            &a.corpus.identity,
            &a.old,
            &a.new,
            a.ratio,
            a.interval.map(|i| i.0),
            a.interval.map(|i| i.1),
            a.confidence,
            &a.verdict,
        ],
    )?;
    Ok(rows.len())
}

/// Record a relative time of run `run` unless it has it: 1 when recorded, else 0.
fn relative(db: &mut dyn Sql, run: i64, r: &RelativeRecord) -> Result<usize, StoreError> {
    let rows = db.run(
        "INSERT INTO relative (run, corpus, strategy, reference, ratio) \
         VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (run, corpus, strategy, reference) DO NOTHING RETURNING run",
        values![run, &r.corpus.identity, &r.strategy, &r.reference, r.ratio],
    )?;
    Ok(rows.len())
}

/// [`HistoryStore::add`](super::store::HistoryStore::add)'s statements, run inside a
/// transaction that holds the store's write lock and is committed only when this returns
/// `Ok`.
pub fn add(
    db: &mut dyn Sql,
    placement: &Placement,
    runs: &[RunRecord],
) -> Result<Added, StoreError> {
    let mut added = Added::default();
    let Some(first_run) = runs.first() else {
        return Ok(added);
    };
    added.time = place(db, placement, &first_run.source)?;
    for run in runs {
        let rows = db.run(
            "SELECT id, sha FROM runs WHERE digest = ?1",
            values![&run.digest],
        )?;
        match first(db, rows, |r| Ok((r.int(0)?, r.text(1)?)))? {
            Some((id, sha)) if sha == placement.commit => {
                for a in &run.ab {
                    corpus(db, &a.corpus, &run.source)?;
                    added.ab += ab(db, id, a)?;
                }
                for r in &run.relative {
                    corpus(db, &r.corpus, &run.source)?;
                    added.relative += relative(db, id, r)?;
                }
                added.already.push(run.source.clone());
                continue;
            }
            Some((_, sha)) => {
                return Err(StoreError::OtherCommit {
                    file: run.source.clone(),
                    recorded: sha,
                    commit: placement.commit.clone(),
                })
            }
            None => {}
        }
        let id = insert_run(db, placement, run)?;
        for r in &run.rows {
            row(db, id, r)?;
        }
        for a in &run.ab {
            added.ab += ab(db, id, a)?;
        }
        for r in &run.relative {
            added.relative += relative(db, id, r)?;
        }
        added.runs += 1;
    }
    Ok(added)
}

/// Record `run` at the commit `placement` names, with its machine, its corpora and the
/// placement's labels (its rows, A/B results and relative times are the caller's): the
/// new run's id.
fn insert_run(db: &mut dyn Sql, placement: &Placement, run: &RunRecord) -> Result<i64, StoreError> {
    let corpora = run.rows.iter().map(|r| &r.corpus);
    let others = run.ab.iter().map(|a| &a.corpus);
    for c in corpora
        .chain(others)
        .chain(run.relative.iter().map(|r| &r.corpus))
    {
        corpus(db, c, &run.source)?;
    }
    let machine = machine(db, &run.machine)?;
    let rows = db.run(
        "INSERT INTO runs (sha, digest, source, date, tool_version, machine, settings, \
         branch) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING id",
        values![
            &placement.commit,
            &run.digest,
            run.source.display().to_string().as_str(),
            &run.date,
            &run.tool_version,
            machine,
            &run.settings,
            &placement.branch,
        ],
    )?;
    let id =
        first(db, rows, |r| r.int(0))?.ok_or_else(|| fail(db, "a run just recorded has no id"))?;
    for (key, value) in &placement.labels {
        db.run(
            "INSERT INTO labels (run, key, value) VALUES (?1, ?2, ?3)",
            values![id, key, value],
        )?;
    }
    Ok(id)
}

/// Every recorded commit, by time, then by when first recorded.
pub fn commits(db: &mut dyn Sql) -> Result<Vec<CommitRecord>, StoreError> {
    let rows = db.run(
        "SELECT sha, time, branch FROM commits ORDER BY time, seq",
        &[],
    )?;
    rows.iter()
        .map(|r| {
            Ok(CommitRecord {
                commit: r.text(0)?,
                time: r.int(1)?,
                branch: r.opt_text(2)?,
            })
        })
        .collect::<Result<_, String>>()
        .map_err(|e| fail(db, e))
}

/// Every observation: the summaries' rows, then the A/B results, then the relative times,
/// each by run in the order recorded, then by corpus identity and strategy (ordered here,
/// not by the database, whose text collation may be the locale's).
pub fn observations(db: &mut dyn Sql) -> Result<Vec<Observation>, StoreError> {
    let pair = |sum: Option<i64>, count: Option<i64>| match (sum, count) {
        (Some(s), Some(c)) => Some((s as u64, c as u64)),
        _ => None,
    };
    let columns = "strategy, median_rate, nodes_sum, nodes_counted, guesses_sum, guessed, \
                   times, instructions_sum, instructions_counted";
    let mut made = observed(db, "rows", columns, |r| {
        let measured = Measured::Row {
            median_rate: r.real(11)?,
            nodes: pair(r.opt_int(12)?, r.opt_int(13)?),
            guesses: pair(r.opt_int(14)?, r.opt_int(15)?),
            times: r.text(16)?,
            instructions: pair(r.opt_int(17)?, r.opt_int(18)?),
        };
        Ok((r.text(10)?, measured))
    })?;
    made.extend(observed(db, "ab", "old, new, ratio, low, high", |r| {
        let interval = match (r.opt_real(13)?, r.opt_real(14)?) {
            (Some(lo), Some(hi)) => Some((lo, hi)),
            _ => None,
        };
        let measured = Measured::Ab {
            ratio: r.real(12)?,
            interval,
        };
        Ok((format!("{} -> {}", r.text(10)?, r.text(11)?), measured))
    })?);
    made.extend(observed(
        db,
        "relative",
        "strategy, reference, ratio",
        |r| {
            let measured = Measured::Relative { ratio: r.real(12)? };
            Ok((format!("{} / {}", r.text(10)?, r.text(11)?), measured))
        },
    )?);
    Ok(made)
}

/// The observations in `table`, by run, corpus and strategy: `measured` reads a row's
/// strategy (or pair of them) and what was measured from `columns`, which follow the
/// columns every table's query starts with (0 run id, 1 sha, 2 branch, 3-6 machine,
/// 7 settings, 8-9 corpus), so from column 10.
fn observed(
    db: &mut dyn Sql,
    table: &str,
    columns: &str,
    measured: impl Fn(&Row) -> Result<(String, Measured), String>,
) -> Result<Vec<Observation>, StoreError> {
    let rows = db.run(
        &format!(
            "SELECT runs.id, runs.sha, runs.branch, cpu, cores, os, arch, settings, identity, \
             name, {columns} FROM {table} AS x JOIN runs ON runs.id = x.run \
             JOIN machines ON machines.id = runs.machine \
             JOIN corpora ON corpora.identity = x.corpus"
        ),
        &[],
    )?;
    let observation = |r: &Row| -> Result<(i64, Observation), String> {
        let (strategy, measured) = measured(r)?;
        let machine = Machine {
            cpu: r.text(3)?,
            cores: r.int(4)? as usize,
            os: r.text(5)?,
            arch: r.text(6)?,
        };
        let key = SeriesKey {
            machine: super::shown_machine(&machine),
            settings: r.text(7)?,
            corpus: CorpusKey {
                identity: r.text(8)?,
                name: r.text(9)?,
            },
            strategy,
        };
        let obs = Observation {
            key,
            commit: r.text(1)?,
            branch: r.opt_text(2)?,
            measured,
        };
        Ok((r.int(0)?, obs))
    };
    let mut made = rows
        .iter()
        .map(observation)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(db, e))?;
    made.sort_by(|(a_run, a), (b_run, b)| {
        (a_run, &a.key.corpus.identity, &a.key.strategy).cmp(&(
            b_run,
            &b.key.corpus.identity,
            &b.key.strategy,
        ))
    });
    Ok(made.into_iter().map(|(_, obs)| obs).collect())
}
