//! Which corpus of one run is which corpus of the other. A corpus is known by what was
//! solved on each of its lines, whatever it was called: `run a.txt` and `run ./a.txt`, or a
//! corpus read once from a file and once from `-`, are one corpus; two different corpora
//! both read from `-` are two. Names (with their lexical noise removed) pair only what
//! content cannot, such as a corpus that lost or changed some lines; the lines that then
//! hold different puzzles are reported, not compared.

use std::collections::{BTreeMap, BTreeSet};

use super::load::{normal_name, Sample, Samples};
use super::{Unpaired, Why};

/// A baseline corpus and the current corpus matched with it, by their names in the CSVs;
/// `None` on the side with no match. Every corpus of either side appears exactly once.
pub fn corpora<'a>(b: &'a Samples, c: &'a Samples) -> Vec<(Option<&'a str>, Option<&'a str>)> {
    let mut taken: BTreeSet<&str> = BTreeSet::new();
    let mut pairs = Vec::new();
    let mut by_name = Vec::new();
    for (bn, brows) in b {
        let same: Vec<&str> = c
            .iter()
            .filter(|(cn, crows)| !taken.contains(cn.as_str()) && crows.puzzles == brows.puzzles)
            .map(|(cn, _)| cn.as_str())
            .collect();
        // Two copies of one corpus on each side: let the names decide which is which.
        let pick = same
            .iter()
            .find(|cn| normal_name(cn) == normal_name(bn))
            .or(same.first());
        match pick {
            Some(cn) => {
                taken.insert(cn);
                pairs.push((Some(bn.as_str()), Some(*cn)));
            }
            None => by_name.push(bn.as_str()),
        }
    }
    for bn in by_name {
        let found = c
            .keys()
            .map(String::as_str)
            .find(|cn| !taken.contains(cn) && normal_name(cn) == normal_name(bn));
        if let Some(cn) = found {
            taken.insert(cn);
        }
        pairs.push((Some(bn), found));
    }
    for cn in c.keys() {
        if !taken.contains(cn.as_str()) {
            pairs.push((None, Some(cn.as_str())));
        }
    }
    pairs
}

/// How a pair of corpora is named in the report: one name when both runs called it the
/// same, else both.
pub fn label(b: &str, c: &str) -> String {
    let (nb, nc) = (normal_name(b), normal_name(c));
    if nb == nc {
        nb
    } else {
        format!("{nb} (current: {nc})")
    }
}

/// One strategy's rows (line -> sample) in one corpus of one side.
pub type Rows = BTreeMap<u64, Sample>;

/// A strategy's rows on both sides. When one side has none, the other side's rows go to
/// `out` as unpaired, the whole strategy (made by `unpaired(why, true, lines)`), and the
/// answer is `None`.
pub(crate) fn both_sides<'a>(
    baseline: Option<&'a Rows>,
    current: Option<&'a Rows>,
    unpaired: impl Fn(Why, bool, Vec<u64>) -> Unpaired,
    out: &mut Vec<Unpaired>,
) -> Option<(&'a Rows, &'a Rows)> {
    let (why, rows) = match (baseline, current) {
        (Some(b), Some(c)) => return Some((b, c)),
        (Some(rows), None) => (Why::OnlyInBaseline, rows),
        (None, Some(rows)) => (Why::OnlyInCurrent, rows),
        (None, None) => return None,
    };
    out.push(unpaired(why, true, rows.keys().copied().collect()));
    None
}

/// The lines of a strategy that one side has and the other lacks.
pub(crate) fn one_sided(baseline: &Rows, current: &Rows) -> [(Why, Vec<u64>); 2] {
    let only = |x: &Rows, y: &Rows| x.keys().filter(|l| !y.contains_key(l)).copied().collect();
    [
        (Why::OnlyInBaseline, only(baseline, current)),
        (Why::OnlyInCurrent, only(current, baseline)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::load::CorpusRows;

    fn side(corpora: &[(&str, &[&str])]) -> Samples {
        corpora
            .iter()
            .map(|(name, puzzles)| {
                let rows = CorpusRows {
                    puzzles: (1..).zip(puzzles.iter().map(|p| p.to_string())).collect(),
                    ..CorpusRows::default()
                };
                (name.to_string(), rows)
            })
            .collect()
    }

    #[test]
    fn content_first_then_names() {
        let b = side(&[
            ("a.txt", &["x", "y"]),
            ("b.txt", &["x", "y"]),
            ("c", &["z"]),
        ]);
        let c = side(&[
            ("./b.txt", &["x", "y"]),
            ("a.txt", &["x", "y"]),
            ("-", &["z"]),
            ("./c", &["w"]),
        ]);
        assert_eq!(
            corpora(&b, &c),
            [
                (Some("a.txt"), Some("a.txt")),
                (Some("b.txt"), Some("./b.txt")),
                (Some("c"), Some("-")),
                (None, Some("./c")),
            ]
        );
        let c = side(&[("./c", &["w"]), ("-", &["v"])]);
        assert_eq!(
            corpora(&b, &c),
            [
                (Some("a.txt"), None),
                (Some("b.txt"), None),
                (Some("c"), Some("./c")),
                (None, Some("-")),
            ]
        );
        assert_eq!(label("./a", "a"), "a");
        assert_eq!(label("a", "-"), "a (current: -)");
    }
}
