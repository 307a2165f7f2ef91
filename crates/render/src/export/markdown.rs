//! Markdown: the summary's table for READMEs and pull-request comments, the comparison for
//! a pull-request comment, and the one escaper both apply to what they did not write
//! themselves (corpus paths, strategy names, notes that quote them), in table cells and
//! prose alike.

use std::fmt::Write;

use super::comparison::{cells, headings, method, unpaired_line};
use super::summary::{grid, notes, NAME_COLUMNS};
use super::{CompareExporter, Exporter};
use crate::numbers::thousands;
use sudoku_bench_analysis::compare::{Comparison, Mode};
use sudoku_bench_core::summary::SummaryReport;

/// `text` as Markdown that renders as `text`: nothing in it may end a table cell, open a
/// tag, code, emphasis, a link or strikethrough, or end the line.
pub fn escape(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        match c {
            // Entities rather than backslashes: renderers that pass HTML through differ on
            // whether `\<` stops a tag, none on `&lt;`.
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // An underscore between two letters or digits never starts emphasis (CommonMark),
            // so paths such as `puzzles3_magictour_top1465` keep their plain spelling.
            '_' if i > 0
                && chars[i - 1].is_alphanumeric()
                && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric()) =>
            {
                out.push('_')
            }
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' | '~' => {
                out.push('\\');
                out.push(c);
            }
            // A line break would end the table row, or the paragraph.
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The summary as a Markdown table, for READMEs and pull-request comments, with the
/// machine and settings it was measured with.
pub struct MarkdownExporter;

/// `report` with every name in it that the user chose or the machine reported (corpus
/// paths, strategies, CPU models) escaped for Markdown, so that the table and the notes that
/// quote them show them as they are.
fn markdown_names(report: &SummaryReport) -> SummaryReport {
    let mut report = report.clone();
    for row in &mut report.rows {
        row.corpus = escape(&row.corpus);
        row.strategy = escape(&row.strategy);
    }
    for pipe in &mut report.pipes {
        pipe.strategy = escape(&pipe.strategy);
    }
    for solver in &mut report.resources {
        solver.strategy = escape(&solver.strategy);
    }
    for machine in std::iter::once(&mut report.machine).chain(&mut report.machines) {
        machine.cpu = escape(&machine.cpu);
    }
    report
}

impl Exporter for MarkdownExporter {
    fn export(&self, report: &SummaryReport) -> String {
        let report = &markdown_names(report);
        let (headings, cells) = grid(report);
        let mut out = String::new();
        let placement = report
            .placement
            .as_ref()
            .map_or(String::new(), |p| format!(" ({})", p.describe()));
        let _ = writeln!(
            out,
            "{} {} on {} ({} cores), {} threads{placement}, max {} solutions, node budget {}, {}\n",
            report.tool,
            report.version,
            report.machine.cpu,
            report.machine.cores,
            report.threads,
            report.max_solutions,
            report.max_nodes.map_or("none".to_string(), thousands),
            report.date
        );
        let _ = writeln!(out, "| {} |", headings.join(" | "));
        let rule: Vec<&str> = (0..headings.len())
            .map(|i| if i < NAME_COLUMNS { "---" } else { "---:" })
            .collect();
        let _ = writeln!(out, "|{}|", rule.join("|"));
        for row in cells {
            let _ = writeln!(out, "| {} |", row.join(" | "));
        }
        for (note, stressed) in notes(report) {
            let _ = match stressed {
                true => writeln!(out, "\n**{note}**"),
                false => writeln!(out, "\n{note}"),
            };
        }
        for warning in sudoku_bench_analysis::noise::warnings(report) {
            let _ = writeln!(out, "\n**warning:** {warning}");
        }
        out
    }
}

/// Exports the comparison as Markdown, for a pull-request comment: the outcome, the table,
/// the unpaired rows and how the verdicts were reached.
pub struct CompareMarkdownExporter;

impl CompareExporter for CompareMarkdownExporter {
    fn export(&self, cmp: &Comparison) -> String {
        let mut out = String::from(match cmp.mode {
            Mode::InRun => "### sudoku-bench compare (in-run)\n\n",
            _ => "### sudoku-bench compare\n\n",
        });
        let regressed = cmp.regressed();
        let _ = writeln!(
            out,
            "{}\n",
            if regressed {
                "**Regression**: a strategy is slower or its search changed."
            } else if !cmp.conclusive() {
                "**No verdict on time** (one run per side): see the note below."
            } else {
                "No regression."
            }
        );
        let head = headings(cmp);
        let _ = writeln!(out, "| {} |", head.join(" | "));
        let align: Vec<&str> = (0..head.len())
            .map(|i| {
                if i < 2 || i + 1 == head.len() {
                    "---"
                } else {
                    "---:"
                }
            })
            .collect();
        let _ = writeln!(out, "|{}|", align.join("|"));
        for r in &cmp.rows {
            // Corpus and strategy names are the user's: any of them may hold `|` or HTML.
            let mut c: Vec<String> = cells(cmp, r).iter().map(|v| escape(v)).collect();
            let last = c.len() - 1;
            if matches!(
                r.verdict,
                sudoku_bench_analysis::compare::Verdict::Slower
                    | sudoku_bench_analysis::compare::Verdict::SearchChanged
            ) {
                c[last] = format!("**{}**", c[last]);
            }
            let _ = writeln!(out, "| {} |", c.join(" | "));
        }
        if !cmp.unpaired.is_empty() {
            out.push_str("\nUnpaired:\n\n");
            for u in &cmp.unpaired {
                let _ = writeln!(out, "- {}", escape(&unpaired_line(u)));
            }
        }
        let _ = writeln!(out, "\n<sub>{}</sub>", method(cmp, escape));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn every_character_that_means_something_is_made_literal() {
        assert_eq!(escape("plain name-1.txt"), "plain name-1.txt");
        assert_eq!(escape("a|<b>&`c`"), "a\\|&lt;b&gt;&amp;\\`c\\`");
        assert_eq!(
            escape("*x* [y](z) ~w~ \\"),
            "\\*x\\* \\[y\\](z) \\~w\\~ \\\\"
        );
        assert_eq!(escape("line\nbreak\r"), "line break ");
        // Intraword underscores stay; one that could open or close emphasis does not.
        assert_eq!(
            escape("puzzles3_magictour_top1465"),
            "puzzles3_magictour_top1465"
        );
        assert_eq!(escape("_a_ b_ _c"), "\\_a\\_ b\\_ \\_c");
        assert_eq!(escape("µs_é"), "µs_é");
    }
}
