//! Text made literal for Markdown: the one escaper every Markdown output (the summary's,
//! compare's) applies to what it did not write itself (corpus paths, strategy names, notes
//! that quote them), in table cells and prose alike.

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
