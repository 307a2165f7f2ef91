//! Reading a solver's answer line, and quoting what it said in errors.

use std::borrow::Cow;

use sudoku_bench_core::grid::Grid;

/// Characters of a bad answer quoted in its error.
const QUOTE_CHARS: usize = 100;

/// One answer line, read.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Answer {
    pub(super) count: u32,
    pub(super) solution: Option<Grid>,
    pub(super) guesses: Option<u64>,
}

/// The word a solver ends its first answer with to ask for request ids.
pub(super) const IDS: &str = "id";

impl Answer {
    /// `COUNT SOLUTION GUESSES`, the count at most `limit`, then the request's `id` when
    /// the copy asked for ids; `Err` says what is wrong, quoting the line.
    pub(super) fn parse(line: &[u8], limit: u32, id: Option<u64>) -> Result<Answer, String> {
        let text = String::from_utf8_lossy(line);
        let bad = |what: String| format!("answered {}: {what}", quote(line));
        let mut fields = text.split_ascii_whitespace();
        let (Some(count), Some(solution), Some(guesses)) =
            (fields.next(), fields.next(), fields.next())
        else {
            return Err(bad(wrong_fields(&text, id)));
        };
        match (id, fields.next(), fields.next()) {
            (None, None, _) => {}
            (Some(id), Some(echoed), None) => {
                if echoed.parse() != Ok(id) {
                    return Err(bad(format!(
                        "ID {echoed:?} is not this request's, {id}: its answers are out of \
                         step with the requests"
                    )));
                }
            }
            _ => return Err(bad(wrong_fields(&text, id))),
        }
        Answer::fields(count, solution, guesses, limit).map_err(bad)
    }

    /// The answer to a copy's first request (sent without an id), and whether it asks
    /// for ids from then on: a fourth field, [`IDS`].
    pub(super) fn parse_first(line: &[u8], limit: u32) -> Result<(Answer, bool), String> {
        let text = String::from_utf8_lossy(line);
        let fields: Vec<&str> = text.split_ascii_whitespace().collect();
        match fields[..] {
            [count, solution, guesses, IDS] => Answer::fields(count, solution, guesses, limit)
                .map(|answer| (answer, true))
                .map_err(|what| format!("answered {}: {what}", quote(line))),
            _ => Answer::parse(line, limit, None).map(|answer| (answer, false)),
        }
    }

    fn fields(count: &str, solution: &str, guesses: &str, limit: u32) -> Result<Answer, String> {
        let count: u32 = count
            .parse()
            .map_err(|_| format!("COUNT {count:?} is not a number"))?;
        if count > limit {
            return Err(format!("COUNT {count} is above the limit {limit}"));
        }
        let solution = match solution {
            "-" => None,
            digits if digits.len() == 81 && digits.bytes().all(|b| (b'1'..=b'9').contains(&b)) => {
                Some(digits.parse().map_err(|e| format!("SOLUTION: {e}"))?)
            }
            _ => return Err("SOLUTION is neither 81 digits 1-9 nor `-`".to_string()),
        };
        if count == 0 && solution.is_some() {
            return Err("a SOLUTION with COUNT 0".to_string());
        }
        let guesses = match guesses {
            "-" => None,
            n => Some(
                n.parse()
                    .map_err(|_| format!("GUESSES {n:?} is neither a number nor `-`"))?,
            ),
        };
        Ok(Answer {
            count,
            solution,
            guesses,
        })
    }
}

/// What is wrong with a line of too few or too many fields.
fn wrong_fields(text: &str, id: Option<u64>) -> String {
    let (n, names) = match id {
        None => (3, "COUNT SOLUTION GUESSES"),
        Some(_) => (4, "COUNT SOLUTION GUESSES ID"),
    };
    format!(
        "{} fields, not {n} ({names})",
        text.split_ascii_whitespace().count()
    )
}

/// What a solver said, quoted for a message, its line end left out and cut short when long.
pub(super) fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let shown: Cow<str> = match text.char_indices().nth(QUOTE_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]).into(),
        None => text.into(),
    };
    format!("{shown:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use sudoku_bench_core::strategy::testkit::{self, grid};

    #[test]
    fn answers_are_read_and_every_fault_named() {
        let sol = testkit::EASY_SOLUTION;
        assert_eq!(
            Answer::parse(format!("1 {sol} 7\n").as_bytes(), 2, None),
            Ok(Answer {
                count: 1,
                solution: Some(grid(sol)),
                guesses: Some(7),
            })
        );
        assert_eq!(
            Answer::parse(b"0 - -\r\n", 2, None),
            Ok(Answer {
                count: 0,
                solution: None,
                guesses: None,
            })
        );
        let fault = |line: String, limit| Answer::parse(line.as_bytes(), limit, None).unwrap_err();
        for (line, limit, says) in [
            (format!("1 {sol}"), 2, "2 fields, not 3"),
            (format!("1 {sol} 0 x"), 2, "4 fields, not 3"),
            (String::new(), 2, "0 fields, not 3"),
            (format!("one {sol} 0"), 2, "COUNT \"one\" is not a number"),
            (format!("-1 {sol} 0"), 2, "COUNT \"-1\" is not a number"),
            (format!("2 {sol} 0"), 1, "COUNT 2 is above the limit 1"),
            (format!("1 {} 0", &sol[1..]), 2, "neither 81 digits"),
            (format!("1 {}0 0", &sol[1..]), 2, "neither 81 digits"),
            (format!("1 {}. 0", &sol[1..]), 2, "neither 81 digits"),
            (format!("0 {sol} 0"), 2, "a SOLUTION with COUNT 0"),
            (format!("1 {sol} many"), 2, "GUESSES \"many\" is neither"),
        ] {
            let why = fault(line.clone(), limit);
            assert!(why.contains(says), "{line:?}: {why}");
            assert!(why.starts_with("answered \""), "{line:?}: {why}");
        }
    }

    #[test]
    fn with_ids_the_fourth_field_must_be_the_request_s_id() {
        let sol = testkit::EASY_SOLUTION;
        let answer = Answer::parse(format!("1 {sol} 7 42\n").as_bytes(), 2, Some(42));
        assert_eq!(answer.map(|a| a.count), Ok(1));
        for (line, says) in [
            (
                "1 - 7 41",
                "ID \"41\" is not this request's, 42: its answers are out of step",
            ),
            ("1 - 7 x", "ID \"x\" is not this request's, 42"),
            ("1 - 7", "3 fields, not 4 (COUNT SOLUTION GUESSES ID)"),
            ("1 - 7 42 0", "5 fields, not 4 (COUNT SOLUTION GUESSES ID)"),
        ] {
            let why = Answer::parse(line.as_bytes(), 2, Some(42)).unwrap_err();
            assert!(why.contains(says), "{line:?}: {why}");
        }
        let why = Answer::parse(b"1 - 7 42", 2, None).unwrap_err();
        assert!(
            why.contains("4 fields, not 3 (COUNT SOLUTION GUESSES)"),
            "{why}"
        );
    }

    #[test]
    fn a_first_answer_ending_in_id_asks_for_ids() {
        let first = |line: &str| Answer::parse_first(line.as_bytes(), 1).map(|(_, ids)| ids);
        assert_eq!(first("1 - 0 id\n"), Ok(true));
        assert_eq!(first("1 - -\n"), Ok(false));
        assert!(first("1 - 0 ids").unwrap_err().contains("4 fields, not 3"));
        assert!(first("2 - 0 id")
            .unwrap_err()
            .contains("COUNT 2 is above the limit 1"));
    }

    #[test]
    fn quotes_are_escaped_and_cut_short() {
        assert_eq!(quote(b"a\tb\n"), r#""a\tb""#);
        assert_eq!(quote(b"\xff\n"), "\"\u{fffd}\"");
        let long = "é".repeat(QUOTE_CHARS + 5);
        let expected = format!("{}...", "é".repeat(QUOTE_CHARS));
        assert_eq!(quote(long.as_bytes()), format!("{expected:?}"));
    }
}
