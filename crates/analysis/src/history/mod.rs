//! `history`: runs recorded by commit, and the change points in each series they make.
//!
//! [`record`] turns summary JSONs (and in-run comparison JSONs) into what is stored,
//! refusing what cannot be placed; [`store`] is the one interface to storage, [`sqlite`]
//! its embedded implementation and `postgres` (the `postgres` feature) a shared one, both
//! over [`sql`]'s schema and statements; [`db`] parses `--db` into one of them;
//! [`mod@check`] builds the series (machines, settings and corpora never mixed) and finds
//! their change points with [`changes`]; [`median`] gives each run's median the interval a
//! page draws and an export sends.

pub mod changes;
pub mod check;
pub mod db;
pub mod median;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod record;
pub mod sql;
pub mod sqlite;
pub mod store;

use std::time::{Duration, UNIX_EPOCH};

use sudoku_bench_core::machine::Machine;

pub use check::{check, series, Change, CheckError, Findings, Measure, Series};
pub use db::Db;
pub use record::{read_runs, read_runs_taking, read_runs_with, PlaceError, Taken};
pub use sqlite::SqliteStore;
pub use store::{HistoryStore, Placement, StoreError};

/// `url` as messages show it: a password in it (`user:PASSWORD@`, `password=`) is
/// replaced by `***`, so that it does not reach a CI log.
pub fn shown_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = match authority.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => format!("{user}@{host}"),
        },
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some(("password", _)) => "password=***".to_string(),
                    _ => kv.to_string(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

/// A machine as a series' key shows it: `CPU, N cores, OS ARCH`.
pub fn shown_machine(m: &Machine) -> String {
    format!("{}, {} cores, {} {}", m.cpu, m.cores, m.os, m.arch)
}

/// The last second RFC 3339 can write, the end of year 9999 (formatting one later panics).
const LAST_RFC3339_SECOND: i64 = 253_402_300_799;

/// A commit's time as shown: RFC 3339 in UTC, or the Unix seconds outside what it can
/// write (before 1970, after 9999: a history written before such times were refused).
pub fn shown_time(secs: i64) -> String {
    match u64::try_from(secs) {
        Ok(s) if secs <= LAST_RFC3339_SECOND => {
            humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(s)).to_string()
        }
        _ => format!("{secs} (Unix seconds)"),
    }
}

/// A time given for a commit, in Unix seconds: the seconds themselves (`git log
/// --format=%ct`), or RFC 3339 with `Z` or an offset such as `+01:00` (`--format=%cI`).
/// `None` when it is neither, or past the end of year 9999.
pub fn parse_time(given: &str) -> Option<i64> {
    let t = given.trim();
    if let Ok(secs) = t.parse::<i64>() {
        return (secs <= LAST_RFC3339_SECOND).then_some(secs);
    }
    // An offset follows the time of day: the last + or - past the date.
    let (local, offset) = match t.get(10..).and_then(|rest| rest.rfind(['+', '-'])) {
        Some(i) => {
            let (local, off) = t.split_at(10 + i);
            let (h, m) = off[1..].split_once(':')?;
            let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
            if !(0..24).contains(&h) || !(0..60).contains(&m) {
                return None;
            }
            let secs = h * 3600 + m * 60;
            (local, if off.starts_with('-') { -secs } else { secs })
        }
        None => (t.strip_suffix('Z').unwrap_or(t), 0),
    };
    let at = humantime::parse_rfc3339_weak(local).ok()?;
    let secs = i64::try_from(at.duration_since(UNIX_EPOCH).ok()?.as_secs()).ok()?;
    Some(secs - offset)
}

#[cfg(test)]
mod tests;
