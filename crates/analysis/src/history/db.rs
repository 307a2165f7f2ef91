//! Where a history is: `--db` parsed, in one place, into the store that holds it.

use std::fmt;
use std::path::{Path, PathBuf};

use super::sqlite::SqliteStore;
use super::store::{HistoryStore, StoreError};

/// A history's location: an SQLite file, or a PostgreSQL database by URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Db {
    /// An SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database: a `postgres://` or `postgresql://` URL.
    Postgres(String),
}

impl Db {
    /// What `--db` gave: a URL that starts `postgres://` or `postgresql://` names a
    /// PostgreSQL database, anything else an SQLite file.
    pub fn parse(given: &Path) -> Db {
        match given.to_str() {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Db::Postgres(url.to_string())
            }
            _ => Db::Sqlite(given.to_path_buf()),
        }
    }

    /// The history there, made when there is none.
    pub fn open_or_create(&self) -> Result<Box<dyn HistoryStore>, StoreError> {
        self.connect(true)
    }

    /// The history there, which must be there.
    pub fn open(&self) -> Result<Box<dyn HistoryStore>, StoreError> {
        self.connect(false)
    }

    fn connect(&self, create: bool) -> Result<Box<dyn HistoryStore>, StoreError> {
        match (self, create) {
            (Db::Sqlite(path), true) => Ok(Box::new(SqliteStore::open_or_create(path)?)),
            (Db::Sqlite(path), false) => Ok(Box::new(SqliteStore::open(path)?)),
            #[cfg(feature = "postgres")]
            (Db::Postgres(url), true) => Ok(Box::new(
                super::postgres::PostgresStore::open_or_create(url)?,
            )),
            #[cfg(feature = "postgres")]
            (Db::Postgres(url), false) => Ok(Box::new(super::postgres::PostgresStore::open(url)?)),
            #[cfg(not(feature = "postgres"))]
            (Db::Postgres(_), _) => Err(StoreError::NoPostgres {
                url: self.to_string(),
            }),
        }
    }
}

/// The path, or the URL without its password.
impl fmt::Display for Db {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Db::Sqlite(path) => write!(f, "{}", path.display()),
            Db::Postgres(url) => f.write_str(&super::shown_url(url)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_postgres_and_anything_else_a_file() {
        for url in ["postgres://db/bench", "postgresql://ci@%2Ftmp%2Fpg/bench"] {
            assert_eq!(Db::parse(Path::new(url)), Db::Postgres(url.to_string()));
        }
        for path in [
            "results/history.sqlite",
            "postgres",
            "./postgres://x",
            "mysql://db/x",
        ] {
            assert_eq!(Db::parse(Path::new(path)), Db::Sqlite(PathBuf::from(path)));
        }
    }

    #[test]
    fn a_password_is_not_shown() {
        let shown = |url: &str| Db::parse(Path::new(url)).to_string();
        assert_eq!(
            shown("postgres://ci:s3cr:et@db.example:5432/bench?sslmode=disable"),
            "postgres://ci:***@db.example:5432/bench?sslmode=disable"
        );
        assert_eq!(
            shown("postgresql://ci@%2Ftmp%2Fpg/bench?password=s3cret&user=ci"),
            "postgresql://ci@%2Ftmp%2Fpg/bench?password=***&user=ci"
        );
        assert_eq!(shown("postgres://db/bench"), "postgres://db/bench");
    }

    #[cfg(not(feature = "postgres"))]
    #[test]
    fn without_the_feature_a_url_is_refused_saying_how_to_build_with_it() {
        let err = Db::parse(Path::new("postgres://ci:secret@db/bench"))
            .open_or_create()
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("postgres://ci:***@db/bench: "), "{err}");
        assert!(err.contains("--features postgres"), "{err}");
    }
}
