//! `history`: runs recorded by commit, and the change points in each series they make.
//!
//! [`record`] turns summary JSONs (and in-run comparison JSONs) into what is stored,
//! refusing what cannot be placed; [`store`] is the one interface to storage and
//! [`sqlite`] its embedded implementation; [`mod@check`] builds the series (machines, settings
//! and corpora never mixed) and finds their change points with [`changes`].

pub mod changes;
pub mod check;
pub mod record;
pub mod sqlite;
pub mod store;

use std::time::{Duration, UNIX_EPOCH};

use crate::machine::Machine;

pub use check::{check, Change, CheckError, Checked, Measure};
pub use record::{read_runs, read_runs_taking, PlaceError, Taken};
pub use sqlite::SqliteStore;
pub use store::{HistoryStore, Placement, StoreError};

/// A machine as a series' key shows it: `CPU, N cores, OS ARCH`.
pub fn shown_machine(m: &Machine) -> String {
    format!("{}, {} cores, {} {}", m.cpu, m.cores, m.os, m.arch)
}

/// A commit's time as shown: RFC 3339 in UTC, or the Unix seconds before 1970.
pub fn shown_time(secs: i64) -> String {
    u64::try_from(secs).map_or_else(
        |_| format!("{secs} (Unix seconds)"),
        |s| humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(s)).to_string(),
    )
}

/// A time given for a commit, in Unix seconds: the seconds themselves (`git log
/// --format=%ct`), or RFC 3339 with `Z` or an offset such as `+01:00` (`--format=%cI`).
/// `None` when it is neither.
pub fn parse_time(given: &str) -> Option<i64> {
    let t = given.trim();
    if let Ok(secs) = t.parse::<i64>() {
        return Some(secs);
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
