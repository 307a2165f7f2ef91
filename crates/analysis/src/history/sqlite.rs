//! The embedded history: one SQLite file (`results/history.sqlite` by default). The schema,
//! its migrations and every statement are [`super::sql`]'s, shared with the PostgreSQL
//! store; here is only what is SQLite's own: opening the file, its write lock, and how its
//! values and tables are read.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, TransactionBehavior};

use super::sql::{self, Row, Sql, Value};
use super::store::{
    Added, CommitRecord, HistoryStore, Observation, Placement, RunRecord, StoreError,
};

pub use super::sql::SCHEMA_VERSION;

/// How long a command waits for another process's lock on the history (a parallel CI
/// job's `history add`) before giving up.
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

/// A history in one SQLite file.
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    /// How long to wait for another process's lock.
    lock_wait: Duration,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

/// The shared statements' view of a connection, or of a transaction on one.
struct Lite<'a> {
    conn: &'a Connection,
    name: String,
}

impl Lite<'_> {
    fn err(&self, e: rusqlite::Error) -> StoreError {
        StoreError::Database {
            path: self.name.clone(),
            why: Box::new(e),
        }
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Int(Some(v)) => ToSqlOutput::from(*v),
            Value::Real(Some(v)) => ToSqlOutput::from(*v),
            Value::Text(Some(v)) => ToSqlOutput::from(v.as_str()),
            Value::Int(None) | Value::Real(None) | Value::Text(None) => {
                ToSqlOutput::from(rusqlite::types::Null)
            }
        })
    }
}

impl Sql for Lite<'_> {
    fn name(&self) -> &str {
        &self.name
    }

    fn key(&self) -> &'static str {
        // An alias of the rowid, which SQLite numbers itself.
        "INTEGER PRIMARY KEY"
    }

    fn run(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.err(e))?;
        let columns = stmt.column_count();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let mut row = Vec::with_capacity(columns);
            for i in 0..columns {
                row.push(match r.get_ref(i).map_err(|e| self.err(e))? {
                    ValueRef::Null => Value::Int(None),
                    ValueRef::Integer(v) => Value::Int(Some(v)),
                    ValueRef::Real(v) => Value::Real(Some(v)),
                    ValueRef::Text(t) => match std::str::from_utf8(t) {
                        Ok(t) => Value::Text(Some(t.to_string())),
                        Err(e) => {
                            return Err(StoreError::Database {
                                path: self.name.clone(),
                                why: format!("column {i}: {e}").into(),
                            })
                        }
                    },
                    // The schema has no blob; one is a store edited by hand.
                    ValueRef::Blob(_) => {
                        return Err(StoreError::Database {
                            path: self.name.clone(),
                            why: format!("column {i} holds a blob, which the history never stores")
                                .into(),
                        })
                    }
                });
            }
            out.push(Row(row));
        }
        Ok(out)
    }

    fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.conn.execute_batch(sql).map_err(|e| self.err(e))
    }

    fn tables_query(&self) -> &'static str {
        "SELECT name FROM sqlite_master WHERE type = 'table'"
    }
}

impl SqliteStore {
    /// The history at `path`, made (at the current version) when there is none; an older
    /// one is migrated.
    pub fn open_or_create(path: &Path) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_waiting(path, LOCK_WAIT, true)
    }

    /// The history at `path`, which must be there; an older one is migrated. A file that
    /// holds none (empty, or an SQLite database without tables) is refused: SQLite would
    /// make one in it, and a command that reads (a CI gate's `history check`) would pass
    /// on nothing.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if !path.exists() {
            return Err(StoreError::Missing {
                path: path.display().to_string(),
            });
        }
        SqliteStore::open_waiting(path, LOCK_WAIT, false)
    }

    /// As [`SqliteStore::open_or_create`] (`create`) or [`SqliteStore::open`], waiting
    /// `lock_wait` for another process's lock.
    fn open_waiting(
        path: &Path,
        lock_wait: Duration,
        create: bool,
    ) -> Result<SqliteStore, StoreError> {
        let conn = Connection::open(path).map_err(|e| StoreError::Database {
            path: path.display().to_string(),
            why: Box::new(e),
        })?;
        SqliteStore::ready(conn, path, lock_wait, create)
    }

    /// The schema version of the store.
    pub fn version(&self) -> Result<i64, StoreError> {
        sql::version(&mut self.lite(&self.conn))
    }

    fn lite<'a>(&self, conn: &'a Connection) -> Lite<'a> {
        Lite {
            conn,
            name: self.path.display().to_string(),
        }
    }

    fn ready(
        conn: Connection,
        path: &Path,
        lock_wait: Duration,
        create: bool,
    ) -> Result<SqliteStore, StoreError> {
        let mut store = SqliteStore {
            conn,
            path: path.to_path_buf(),
            lock_wait,
        };
        let lite = store.lite(&store.conn);
        // No wait of SQLite's own: a lock is met at once, said, then waited for (patiently).
        store
            .conn
            .busy_timeout(Duration::ZERO)
            .map_err(|e| lite.err(e))?;
        store
            .conn
            .execute_batch("PRAGMA foreign_keys = ON")
            .map_err(|e| lite.err(e))?;
        drop(lite);
        store.patiently(|s| {
            s.write(|db| sql::ready(db, create, |path| StoreError::Empty { path }))
        })?;
        Ok(store)
    }

    /// `op`, once more when another process holds the lock it needs: after saying on stderr
    /// which history it waits for (a wait of many seconds in silence looks like a hang),
    /// waiting up to the store's wait. Each `op` is one transaction or one read, so that a
    /// busy first try has changed nothing.
    fn patiently<T>(
        &mut self,
        mut op: impl FnMut(&mut SqliteStore) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match op(self) {
            Err(e) if locked(&e) => {}
            done => return done,
        }
        let path = self.path.display().to_string();
        let _ = writeln!(
            std::io::stderr(),
            "{path}: another process holds the history's lock (another `history add`?); \
             waiting up to {} s for it",
            self.lock_wait.as_secs()
        );
        let set = |store: &SqliteStore, wait| {
            store
                .conn
                .busy_timeout(wait)
                .map_err(|e| StoreError::Database {
                    path: path.clone(),
                    why: Box::new(e),
                })
        };
        set(self, self.lock_wait)?;
        let out = op(self);
        set(self, Duration::ZERO)?;
        match out {
            Err(e) if locked(&e) => Err(StoreError::Locked {
                path,
                waited_secs: self.lock_wait.as_secs(),
            }),
            done => done,
        }
    }

    /// Run `f` in one transaction that holds the write lock from its start, committed only
    /// when `f` succeeds.
    fn write<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let name = self.path.display().to_string();
        let err = |e| StoreError::Database {
            path: name.clone(),
            why: Box::new(e),
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        let out = f(&mut Lite {
            conn: &tx,
            name: name.clone(),
        })?;
        tx.commit().map_err(err)?;
        Ok(out)
    }
}

impl HistoryStore for SqliteStore {
    fn add(&mut self, placement: &Placement, runs: &[RunRecord]) -> Result<Added, StoreError> {
        self.patiently(|s| s.write(|db| sql::add(db, placement, runs)))
    }

    fn commits(&mut self) -> Result<Vec<CommitRecord>, StoreError> {
        self.patiently(|s| sql::commits(&mut s.lite(&s.conn)))
    }

    fn observations(&mut self) -> Result<Vec<Observation>, StoreError> {
        self.patiently(|s| sql::observations(&mut s.lite(&s.conn)))
    }
}

/// Whether `e` is SQLite's "another connection holds the lock".
fn locked(e: &StoreError) -> bool {
    match e {
        StoreError::Database { why, .. } => why
            .downcast_ref::<rusqlite::Error>()
            .and_then(rusqlite::Error::sqlite_error_code)
            .is_some_and(|code| {
                matches!(
                    code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                )
            }),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
