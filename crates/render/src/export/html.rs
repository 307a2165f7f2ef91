//! One self-contained HTML page: inline CSS and SVG, no script, nothing fetched from the
//! network, so a report opens offline from a CI artifact. `report` and `compare --format
//! html` both build theirs with this, so the two look alike.

use std::fmt::Write;

/// Text made safe for HTML element content and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(ch),
        }
    }
    out
}

/// Prose made safe for HTML, with what it quotes between backticks (a command, an option:
/// the same text a terminal shows) set as `<code>`; a backtick with no partner on its line
/// stays as it is.
pub(crate) fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`').filter(|&c| !after[..c].contains('\n')) else {
            out.push_str(&escape(&rest[..open + 1]));
            rest = after;
            continue;
        };
        out.push_str(&escape(&rest[..open]));
        out.push_str("<code>");
        out.push_str(&escape(&after[..close]));
        out.push_str("</code>");
        rest = &after[close + 1..];
    }
    out.push_str(&escape(rest));
    out
}

/// How a table column's cells line up: names left, numbers right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
    /// Monospace text that keeps its columns: a Sudoku grid.
    Mono,
}

/// A page being written, section after section.
#[derive(Debug)]
pub struct Page {
    body: String,
    title: String,
}

/// Readable on screen and in a PNG: system sans-serif (no font file), tables with light
/// rules, numbers in tabular figures so columns line up.
const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',Arial,sans-serif;\
margin:24px auto;max-width:1400px;padding:0 16px;color:#1a1a1a;background:#fff}\
h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.3em;margin:28px 0 8px;\
border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:1.05em;margin:18px 0 6px}\
p.meta{color:#555;margin:2px 0}\
table{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums}\
div.t{overflow-x:auto}th,td{padding:3px 8px;border-bottom:1px solid #e4e4e4;font-size:0.94em}\
th{background:#f4f4f4;text-align:left}td{overflow-wrap:anywhere}\
td.r,th.r{text-align:right;white-space:nowrap}td.grid{white-space:nowrap}\
code,.grid{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:0.92em}\
.plots{display:flex;flex-wrap:wrap;gap:12px}.plots svg{border:1px solid #eee}\
.warn{color:#8a4b00}.bad{color:#b00020;font-weight:600}";

impl Page {
    /// A page titled `title` (the `<title>` and the first heading).
    pub fn new(title: &str) -> Page {
        let mut page = Page {
            body: String::new(),
            title: title.to_string(),
        };
        let _ = writeln!(page.body, "<h1>{}</h1>", escape(title));
        page
    }

    /// A line of small grey text under the title: the machine, the settings.
    pub fn meta(&mut self, text: &str) {
        let _ = writeln!(self.body, "<p class=\"meta\">{}</p>", prose(text));
    }

    /// A section heading (`level` 2 or 3).
    pub fn heading(&mut self, level: u8, text: &str) {
        let level = level.clamp(2, 4);
        let _ = writeln!(self.body, "<h{level}>{}</h{level}>", escape(text));
    }

    /// A paragraph of text, with `code` between backticks.
    pub fn paragraph(&mut self, text: &str) {
        let _ = writeln!(self.body, "<p>{}</p>", prose(text));
    }

    /// A paragraph styled as a warning.
    pub fn warning(&mut self, text: &str) {
        let _ = writeln!(self.body, "<p class=\"warn\">{}</p>", prose(text));
    }

    /// Warnings folded under one line that says how many there are; the reader opens it.
    pub fn warnings(&mut self, summary: &str, lines: &[String]) {
        let _ = writeln!(
            self.body,
            "<details class=\"warn\"><summary>{}</summary>",
            prose(summary)
        );
        for line in lines {
            let _ = writeln!(self.body, "<p>{}</p>", prose(line));
        }
        self.body.push_str("</details>\n");
    }

    /// A table; `align` has one entry per heading (missing ones are left-aligned).
    pub fn table(&mut self, headings: &[&str], align: &[Align], rows: &[Vec<String>]) {
        let class = |i: usize| match align.get(i) {
            Some(Align::Right) => " class=\"r\"",
            Some(Align::Mono) => " class=\"grid\"",
            _ => "",
        };
        // A table wider than the window scrolls on its own rather than widening the page.
        self.body.push_str("<div class=\"t\"><table><thead><tr>");
        for (i, h) in headings.iter().enumerate() {
            let _ = write!(self.body, "<th{}>{}</th>", class(i), escape(h));
        }
        self.body.push_str("</tr></thead><tbody>\n");
        for row in rows {
            self.body.push_str("<tr>");
            for (i, cell) in row.iter().enumerate() {
                let _ = write!(self.body, "<td{}>{}</td>", class(i), escape(cell));
            }
            self.body.push_str("</tr>\n");
        }
        self.body.push_str("</tbody></table></div>\n");
    }

    /// Charts side by side, wrapping on a narrow window; each is an SVG document as
    /// `plot::Chart::svg` makes it.
    pub fn plots<'a>(&mut self, svgs: impl IntoIterator<Item = &'a str>) {
        self.body.push_str("<div class=\"plots\">\n");
        for svg in svgs {
            self.body.push_str(svg);
            self.body.push('\n');
        }
        self.body.push_str("</div>\n");
    }

    /// The whole document.
    pub fn finish(self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{}</body>\n</html>\n",
            escape(&self.title),
            self.body
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_cannot_open_a_tag_or_end_an_attribute() {
        assert_eq!(
            escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn backticks_in_text_become_code_escaped_and_a_lone_one_stays() {
        let mut page = Page::new("t");
        page.paragraph("run `report a.csv -o <r>.html` & `x`");
        page.meta("`--max-nodes`");
        page.warning("a`b");
        page.warnings("`1` warning", &["see `--repeat 3`".into()]);
        let html = page.finish();
        for part in [
            "<p>run <code>report a.csv -o &lt;r&gt;.html</code> &amp; <code>x</code></p>",
            "<p class=\"meta\"><code>--max-nodes</code></p>",
            "<p class=\"warn\">a`b</p>",
            "<summary><code>1</code> warning</summary>",
            "<p>see <code>--repeat 3</code></p>",
        ] {
            assert!(html.contains(part), "{part} not in\n{html}");
        }
        assert_eq!(html.matches('`').count(), 1, "{html}");
    }

    #[test]
    fn a_page_holds_its_parts_in_order_with_no_external_reference() {
        let mut page = Page::new("run <1>");
        page.meta("AMD EPYC, 2 cores");
        page.heading(2, "corpus a.txt");
        page.table(
            &["strategy", "puzzles"],
            &[Align::Left, Align::Right],
            &[vec!["fast".into(), "1,465".into()]],
        );
        page.plots(["<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>"]);
        page.warnings("2 warnings", &["first <a>".into(), "second".into()]);
        let html = page.finish();
        assert!(html.contains(
            "<details class=\"warn\"><summary>2 warnings</summary>\n<p>first &lt;a&gt;</p>\n\
             <p>second</p>\n</details>"
        ));
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<title>run &lt;1&gt;</title>"));
        let order = [
            "AMD EPYC",
            "corpus a.txt",
            "<td class=\"r\">1,465</td>",
            "<svg",
        ];
        let at: Vec<usize> = order.iter().map(|s| html.find(s).unwrap()).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{html}");
        // Nothing to fetch: the SVG namespace is an identifier, not a request.
        for external in ["<script", "<link", "src=", "@import", "url("] {
            assert!(!html.contains(external), "{external}");
        }
    }
}
