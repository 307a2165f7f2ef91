//! `history`: a store of runs keyed by commit, and the change points in each series it holds
//! (see [`changes`]).

pub mod changes;
