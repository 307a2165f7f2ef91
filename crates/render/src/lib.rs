#![warn(missing_docs)]
//! sudoku-bench's rendering: what people read, drawn from the results of
//! `sudoku-bench-core` and the analyses of `sudoku-bench-analysis`. The summary as a table,
//! Markdown, JSON or CSV
//! ([`table`], [`json`], [`summary_csv`]), the HTML run report ([`report_page`]), the
//! comparison's exports ([`compare_export`], [`compare_html`]), `history check`'s
//! report ([`history`]), `history report`'s page ([`history_page`]) and `history export`'s
//! Bencher metric format ([`bmf`]), all drawn with one [`html`] page, one [`plot`] module,
//! one Markdown escaper ([`markdown`]) and one set of number and duration formats
//! ([`numbers`]).

pub mod bmf;
pub mod compare_export;
pub mod compare_html;
pub mod history;
pub mod history_page;
pub mod html;
pub mod json;
pub mod markdown;
pub mod numbers;
pub mod plot;
pub mod report_page;
pub mod summary_csv;
pub mod table;
