//! `history`: runs recorded by commit, and the change points in each series they make.
//!
//! [`record`] turns summary JSONs (and in-run comparison JSONs) into what is stored,
//! refusing what cannot be placed; [`store`] is the one interface to storage and
//! [`sqlite`] its embedded implementation; [`changes`] finds change points in a series.

pub mod changes;
pub mod record;
pub mod sqlite;
pub mod store;

use crate::machine::Machine;

pub use record::{read_runs, PlaceError};
pub use sqlite::SqliteStore;
pub use store::{HistoryStore, Placement, StoreError};

/// A machine as a series' key shows it: `CPU, N cores, OS ARCH`.
pub fn shown_machine(m: &Machine) -> String {
    format!("{}, {} cores, {} {}", m.cpu, m.cores, m.os, m.arch)
}
