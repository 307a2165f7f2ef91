#![warn(missing_docs)]
//! sudoku-bench's rendering: what people read, drawn from the results of
//! `sudoku-bench-core` and the analyses of `sudoku-bench-analysis`. Every output format in
//! [`export`], one file each (the terminal table, Markdown, JSON, CSV, Bencher metric format,
//! the HTML page), for the run summary, the comparison and the history; the pages built on
//! it: the run report ([`report_page`]), the comparison's ([`compare_html`]) and `history
//! report`'s ([`history_page`]); `history check`'s report ([`history`]); one [`plot`]
//! module and one set of number and duration formats ([`numbers`]).

pub mod compare_html;
pub mod export;
pub mod history;
pub mod history_page;
pub mod numbers;
pub mod plot;
pub mod report_page;
