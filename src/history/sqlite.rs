//! The embedded history: one SQLite file (`results/history.sqlite` by default), with a
//! schema version and the migrations that bring an older file up to it.
//!
//! Numbers that may pass 2^63 in principle (summed nodes, guesses, nanoseconds) are stored
//! as SQLite integers only below it; an add that would overflow one is refused rather than
//! stored wrong.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::store::{
    AbRecord, Added, CommitRecord, CorpusKey, HistoryStore, Measured, Observation, Placement,
    RowRecord, RunRecord, SeriesKey, StoreError,
};
use crate::machine::Machine;
use crate::results::Status;

/// The schema version this build writes. `MIGRATIONS[v]` takes a store from version `v` to
/// `v + 1`; version 0 is an empty file.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

const MIGRATIONS: &[&str] = &[V1];

/// Version 1: commits, machines, corpora (one name each), runs with their labels, a row per
/// (corpus, strategy) with its statuses, and in-run A/B results.
const V1: &str = "
CREATE TABLE commits (
    seq INTEGER PRIMARY KEY,
    sha TEXT NOT NULL UNIQUE,
    time INTEGER NOT NULL,
    branch TEXT
);
CREATE TABLE machines (
    id INTEGER PRIMARY KEY,
    cpu TEXT NOT NULL,
    cores INTEGER NOT NULL,
    os TEXT NOT NULL,
    arch TEXT NOT NULL,
    UNIQUE (cpu, cores, os, arch)
);
CREATE TABLE corpora (
    identity TEXT PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    sha TEXT NOT NULL REFERENCES commits (sha),
    digest TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL,
    date TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    machine INTEGER NOT NULL REFERENCES machines (id),
    settings TEXT NOT NULL,
    branch TEXT
);
CREATE TABLE labels (
    run INTEGER NOT NULL REFERENCES runs (id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run, key)
);
CREATE TABLE rows (
    run INTEGER NOT NULL REFERENCES runs (id),
    corpus TEXT NOT NULL REFERENCES corpora (identity),
    strategy TEXT NOT NULL,
    puzzles INTEGER NOT NULL,
    mismatches INTEGER NOT NULL,
    failures INTEGER NOT NULL,
    searched INTEGER NOT NULL,
    nodes_sum INTEGER,
    nodes_counted INTEGER,
    guesses_sum INTEGER,
    guessed INTEGER,
    rate REAL NOT NULL,
    median_rate REAL NOT NULL,
    time_sum_ns INTEGER NOT NULL,
    median_ns INTEGER NOT NULL,
    p90_ns INTEGER NOT NULL,
    p99_ns INTEGER NOT NULL,
    max_ns INTEGER NOT NULL,
    times TEXT NOT NULL,
    PRIMARY KEY (run, corpus, strategy)
);
CREATE TABLE statuses (
    run INTEGER NOT NULL,
    corpus TEXT NOT NULL,
    strategy TEXT NOT NULL,
    status TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (run, corpus, strategy, status),
    FOREIGN KEY (run, corpus, strategy) REFERENCES rows (run, corpus, strategy)
);
CREATE TABLE ab (
    run INTEGER NOT NULL REFERENCES runs (id),
    corpus TEXT NOT NULL REFERENCES corpora (identity),
    old TEXT NOT NULL,
    new TEXT NOT NULL,
    ratio REAL NOT NULL,
    low REAL,
    high REAL,
    confidence REAL NOT NULL,
    verdict TEXT NOT NULL,
    PRIMARY KEY (run, corpus, old, new)
);
";

/// A history in one SQLite file.
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

/// An SQLite error on the store at `path`.
fn db(path: &Path) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |e| StoreError::Database {
        path: path.display().to_string(),
        why: Box::new(e),
    }
}

/// `n` as SQLite's integer, refused (naming what it is) past 2^63 - 1.
fn to_i64(path: &Path, what: &str, n: u64) -> Result<i64, StoreError> {
    i64::try_from(n).map_err(|_| StoreError::Database {
        path: path.display().to_string(),
        why: format!("{what} {n} is past the largest integer SQLite stores").into(),
    })
}

impl SqliteStore {
    /// The history at `path`, made (at the current version) when there is none; an older
    /// one is migrated.
    pub fn open_or_create(path: &Path) -> Result<SqliteStore, StoreError> {
        let conn = Connection::open(path).map_err(db(path))?;
        SqliteStore::ready(conn, path)
    }

    /// The history at `path`, which must be there; an older one is migrated.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if !path.exists() {
            return Err(StoreError::Missing {
                path: path.display().to_string(),
            });
        }
        SqliteStore::open_or_create(path)
    }

    /// The schema version of the store.
    pub fn version(&self) -> Result<i64, StoreError> {
        version(&self.conn, &self.path)
    }

    fn ready(conn: Connection, path: &Path) -> Result<SqliteStore, StoreError> {
        // Another `history add` (a parallel CI job) may hold the write lock a while.
        conn.busy_timeout(Duration::from_secs(30))
            .map_err(db(path))?;
        conn.execute_batch("PRAGMA foreign_keys = ON")
            .map_err(db(path))?;
        let mut store = SqliteStore {
            conn,
            path: path.to_path_buf(),
        };
        store.migrate()?;
        Ok(store)
    }

    /// Bring the store to [`SCHEMA_VERSION`] in one transaction, or refuse a store that is
    /// newer or is no history.
    fn migrate(&mut self) -> Result<(), StoreError> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(db(&path))?;
        let found = version(&tx, &path)?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::FutureVersion {
                path: path.display().to_string(),
                found,
                supported: SCHEMA_VERSION,
            });
        }
        if found == SCHEMA_VERSION {
            return Ok(());
        }
        if found == 0 {
            tx.execute_batch("CREATE TABLE schema_version (version INTEGER NOT NULL)")
                .map_err(db(&path))?;
            tx.execute("INSERT INTO schema_version (version) VALUES (0)", [])
                .map_err(db(&path))?;
        }
        for (from, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            tx.execute_batch(sql).map_err(db(&path))?;
            tx.execute("UPDATE schema_version SET version = ?1", [from as i64 + 1])
                .map_err(db(&path))?;
        }
        tx.commit().map_err(db(&path))
    }
}

/// The store's schema version: 0 for an empty file; refused when it holds tables but no
/// version.
fn version(conn: &Connection, path: &Path) -> Result<i64, StoreError> {
    let has = |name: &str| -> Result<bool, StoreError> {
        conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [name],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
        .map_err(db(path))
    };
    if !has("schema_version")? {
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .map_err(db(path))?;
        return if tables == 0 {
            Ok(0)
        } else {
            Err(StoreError::Foreign {
                path: path.display().to_string(),
            })
        };
    }
    conn.query_row("SELECT max(version) FROM schema_version", [], |r| {
        r.get::<_, Option<i64>>(0)
    })
    .map_err(db(path))?
    .ok_or_else(|| StoreError::Foreign {
        path: path.display().to_string(),
    })
}

impl SqliteStore {
    /// The commit's row, made when new; a given time that differs from the recorded one
    /// is refused.
    fn place(
        tx: &Transaction<'_>,
        path: &Path,
        placement: &Placement,
        first: &Path,
    ) -> Result<(), StoreError> {
        let recorded: Option<i64> = tx
            .query_row(
                "SELECT time FROM commits WHERE sha = ?1",
                [&placement.commit],
                |r| r.get(0),
            )
            .optional()
            .map_err(db(path))?;
        match recorded {
            Some(time) if placement.time_given && time != placement.time => {
                Err(StoreError::OtherTime {
                    file: first.to_path_buf(),
                    commit: placement.commit.clone(),
                    recorded: super::shown_time(time),
                    given: super::shown_time(placement.time),
                })
            }
            Some(_) => Ok(()),
            None => tx
                .execute(
                    "INSERT INTO commits (sha, time, branch) VALUES (?1, ?2, ?3)",
                    params![placement.commit, placement.time, placement.branch],
                )
                .map(drop)
                .map_err(db(path)),
        }
    }

    /// The corpus's row, made when new; refused when its identity is known by another name.
    fn corpus(
        tx: &Transaction<'_>,
        path: &Path,
        corpus: &CorpusKey,
        file: &Path,
    ) -> Result<(), StoreError> {
        let recorded: Option<String> = tx
            .query_row(
                "SELECT name FROM corpora WHERE identity = ?1",
                [&corpus.identity],
                |r| r.get(0),
            )
            .optional()
            .map_err(db(path))?;
        match recorded {
            Some(name) if name != corpus.name => Err(StoreError::CorpusRenamed {
                file: file.to_path_buf(),
                name: corpus.name.clone(),
                recorded: name,
            }),
            Some(_) => Ok(()),
            None => tx
                .execute(
                    "INSERT INTO corpora (identity, name) VALUES (?1, ?2)",
                    params![corpus.identity, corpus.name],
                )
                .map(drop)
                .map_err(db(path)),
        }
    }

    fn machine(tx: &Transaction<'_>, path: &Path, m: &Machine) -> Result<i64, StoreError> {
        let cores = to_i64(path, "cores", m.cores as u64)?;
        tx.execute(
            "INSERT INTO machines (cpu, cores, os, arch) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT (cpu, cores, os, arch) DO NOTHING",
            params![m.cpu, cores, m.os, m.arch],
        )
        .map_err(db(path))?;
        tx.query_row(
            "SELECT id FROM machines WHERE cpu = ?1 AND cores = ?2 AND os = ?3 AND arch = ?4",
            params![m.cpu, cores, m.os, m.arch],
            |r| r.get(0),
        )
        .map_err(db(path))
    }

    fn row(tx: &Transaction<'_>, path: &Path, run: i64, r: &RowRecord) -> Result<(), StoreError> {
        let n = |what: &str, v: u64| to_i64(path, what, v);
        let pair = |what: &str, v: Option<(u64, u64)>| -> Result<_, StoreError> {
            Ok(match v {
                Some((sum, count)) => (Some(n(what, sum)?), Some(n(what, count)?)),
                None => (None, None),
            })
        };
        let (nodes_sum, nodes_counted) = pair("nodes", r.nodes)?;
        let (guesses_sum, guessed) = pair("guesses", r.guesses)?;
        tx.execute(
            "INSERT INTO rows (run, corpus, strategy, puzzles, mismatches, failures, searched, \
             nodes_sum, nodes_counted, guesses_sum, guessed, rate, median_rate, time_sum_ns, \
             median_ns, p90_ns, p99_ns, max_ns, times) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, \
             ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
            params![
                run,
                r.corpus.identity,
                r.strategy,
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
                r.times,
            ],
        )
        .map_err(db(path))?;
        for (status, &count) in Status::ALL.iter().zip(&r.statuses) {
            tx.execute(
                "INSERT INTO statuses (run, corpus, strategy, status, count) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    run,
                    r.corpus.identity,
                    r.strategy,
                    status.as_str(),
                    n("count", count)?
                ],
            )
            .map_err(db(path))?;
        }
        Ok(())
    }

    /// Record an A/B result of run `run` unless it has it: 1 when recorded, else 0.
    fn ab(tx: &Transaction<'_>, path: &Path, run: i64, a: &AbRecord) -> Result<usize, StoreError> {
        tx.execute(
            "INSERT INTO ab (run, corpus, old, new, ratio, low, high, confidence, verdict) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
             ON CONFLICT (run, corpus, old, new) DO NOTHING",
            params![
                run,
                a.corpus.identity,
                a.old,
                a.new,
                a.ratio,
                a.interval.map(|i| i.0),
                a.interval.map(|i| i.1),
                a.confidence,
                a.verdict,
            ],
        )
        .map_err(db(path))
    }
}

impl HistoryStore for SqliteStore {
    fn add(&mut self, placement: &Placement, runs: &[RunRecord]) -> Result<Added, StoreError> {
        let path = self.path.clone();
        let path = path.as_path();
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(db(path))?;
        let mut added = Added::default();
        let Some(first) = runs.first() else {
            return Ok(added);
        };
        SqliteStore::place(&tx, path, placement, &first.source)?;
        for run in runs {
            let recorded: Option<(i64, String)> = tx
                .query_row(
                    "SELECT id, sha FROM runs WHERE digest = ?1",
                    [&run.digest],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
                .map_err(db(path))?;
            match recorded {
                Some((id, sha)) if sha == placement.commit => {
                    for ab in &run.ab {
                        SqliteStore::corpus(&tx, path, &ab.corpus, &run.source)?;
                        added.ab += SqliteStore::ab(&tx, path, id, ab)?;
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
            let corpora = run.rows.iter().map(|r| &r.corpus);
            for corpus in corpora.chain(run.ab.iter().map(|a| &a.corpus)) {
                SqliteStore::corpus(&tx, path, corpus, &run.source)?;
            }
            let machine = SqliteStore::machine(&tx, path, &run.machine)?;
            tx.execute(
                "INSERT INTO runs (sha, digest, source, date, tool_version, machine, settings, \
                 branch) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    placement.commit,
                    run.digest,
                    run.source.display().to_string(),
                    run.date,
                    run.tool_version,
                    machine,
                    run.settings,
                    placement.branch,
                ],
            )
            .map_err(db(path))?;
            let id = tx.last_insert_rowid();
            for (key, value) in &placement.labels {
                tx.execute(
                    "INSERT INTO labels (run, key, value) VALUES (?1, ?2, ?3)",
                    params![id, key, value],
                )
                .map_err(db(path))?;
            }
            for row in &run.rows {
                SqliteStore::row(&tx, path, id, row)?;
            }
            for ab in &run.ab {
                added.ab += SqliteStore::ab(&tx, path, id, ab)?;
            }
            added.runs += 1;
        }
        tx.commit().map_err(db(path))?;
        Ok(added)
    }

    fn commits(&mut self) -> Result<Vec<CommitRecord>, StoreError> {
        let path = self.path.as_path();
        let mut stmt = self
            .conn
            .prepare("SELECT sha, time, branch FROM commits ORDER BY time, seq")
            .map_err(db(path))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(CommitRecord {
                    commit: r.get(0)?,
                    time: r.get(1)?,
                    branch: r.get(2)?,
                })
            })
            .map_err(db(path))?;
        rows.collect::<Result<_, _>>().map_err(db(path))
    }

    fn observations(&mut self) -> Result<Vec<Observation>, StoreError> {
        let path = self.path.as_path();
        let key = |r: &rusqlite::Row<'_>, strategy: String| -> rusqlite::Result<SeriesKey> {
            let machine = Machine {
                cpu: r.get("cpu")?,
                cores: r.get::<_, i64>("cores")? as usize,
                os: r.get("os")?,
                arch: r.get("arch")?,
            };
            Ok(SeriesKey {
                machine: super::shown_machine(&machine),
                settings: r.get("settings")?,
                corpus: CorpusKey {
                    identity: r.get("identity")?,
                    name: r.get("name")?,
                },
                strategy,
            })
        };
        const RUN: &str = "JOIN runs ON runs.id = x.run \
             JOIN machines ON machines.id = runs.machine \
             JOIN corpora ON corpora.identity = x.corpus";
        let mut out = Vec::new();
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT runs.sha, runs.branch, cpu, cores, os, arch, settings, identity, name, \
                 strategy, median_rate, nodes_sum, nodes_counted, guesses_sum, guessed, \
                 times FROM rows AS x {RUN} ORDER BY runs.id, x.rowid"
            ))
            .map_err(db(path))?;
        let pair = |sum: Option<i64>, count: Option<i64>| match (sum, count) {
            (Some(s), Some(c)) => Some((s as u64, c as u64)),
            _ => None,
        };
        let rows = stmt
            .query_map([], |r| {
                Ok(Observation {
                    key: key(r, r.get("strategy")?)?,
                    commit: r.get("sha")?,
                    branch: r.get("branch")?,
                    measured: Measured::Row {
                        median_rate: r.get("median_rate")?,
                        nodes: pair(r.get("nodes_sum")?, r.get("nodes_counted")?),
                        guesses: pair(r.get("guesses_sum")?, r.get("guessed")?),
                        times: r.get("times")?,
                    },
                })
            })
            .map_err(db(path))?;
        for row in rows {
            out.push(row.map_err(db(path))?);
        }
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT runs.sha, runs.branch, cpu, cores, os, arch, settings, identity, name, \
                 old, new, ratio, low, high FROM ab AS x {RUN} ORDER BY runs.id, x.rowid"
            ))
            .map_err(db(path))?;
        let rows = stmt
            .query_map([], |r| {
                let strategy = format!(
                    "{} -> {}",
                    r.get::<_, String>("old")?,
                    r.get::<_, String>("new")?
                );
                let interval = match (r.get("low")?, r.get("high")?) {
                    (Some(lo), Some(hi)) => Some((lo, hi)),
                    _ => None,
                };
                Ok(Observation {
                    key: key(r, strategy)?,
                    commit: r.get("sha")?,
                    branch: r.get("branch")?,
                    measured: Measured::Ab {
                        ratio: r.get("ratio")?,
                        interval,
                    },
                })
            })
            .map_err(db(path))?;
        for row in rows {
            out.push(row.map_err(db(path))?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
