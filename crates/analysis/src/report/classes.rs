//! The breakdown by puzzle class: which strategy is fastest changes with the kind of
//! puzzle, so times are split by solution count, clues, guesses, or a corpus column.
//!
//! A `Classing` maps corpus lines to class labels; `breakdown` then walks each strategy's
//! rows (sorted by line, as the reader leaves them) alongside it.

use super::read::{CompactRow, Group};
use super::stats::quantile;
use sudoku_bench_core::results::Status;

/// Exact values are listed up to this many; more are put into ranges (numbers) or the
/// most common kept (text), so that a table stays readable.
pub const MAX_CLASSES: usize = 20;

/// Ranges numbers are put into when there are too many distinct values.
const RANGES: usize = 10;

/// How one property sorts the corpus's lines into classes.
#[derive(Debug, Clone, PartialEq)]
pub struct Classing {
    /// What the classes are of ("solution count", "clues", ...).
    pub title: String,
    /// Where the classes come from, for the reader.
    pub note: String,
    /// Class labels, in display order.
    pub labels: Vec<String>,
    /// (line, class index), ascending by line, one entry per line classed.
    pub by_line: Vec<(u64, u32)>,
}

/// One row of a breakdown table.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassRow {
    /// The class.
    pub label: String,
    /// Lines in it.
    pub lines: u64,
    /// Per group (in the order given): (median, mean) time over its finished searches of
    /// the class; `None` when it finished none. Aborted searches are left out: the time
    /// they gave up at says how long the limit was, not how fast the strategy is.
    pub times: Vec<Option<(u64, f64)>>,
    /// Per group: its aborted searches of the class.
    pub aborted: Vec<u64>,
    /// Among the groups that finished the most puzzles of the class, the one with the
    /// lowest median; `None` when none finished any.
    pub fastest: Option<usize>,
}

/// Each row's class, by walking `rows` and `by_line` (both ascending by line) together.
fn classes_of<'a>(
    rows: &'a [CompactRow],
    by_line: &'a [(u64, u32)],
) -> impl Iterator<Item = (&'a CompactRow, u32)> + 'a {
    let mut at = 0;
    rows.iter().filter_map(move |r| {
        while at < by_line.len() && by_line[at].0 < r.line {
            at += 1;
        }
        by_line
            .get(at)
            .filter(|(line, _)| *line == r.line)
            .map(|&(_, class)| (r, class))
    })
}

/// The table of `classing` over `groups` (one corpus's); classes with no line are left out.
pub fn breakdown(classing: &Classing, groups: &[&Group]) -> Vec<ClassRow> {
    let n = classing.labels.len();
    let mut lines = vec![0u64; n];
    for &(_, c) in &classing.by_line {
        lines[c as usize] += 1;
    }
    let per_group: Vec<(Vec<Vec<u64>>, Vec<u64>)> = groups
        .iter()
        .map(|g| {
            let mut times = vec![Vec::new(); n];
            let mut aborted = vec![0u64; n];
            for (row, class) in classes_of(&g.rows, &classing.by_line) {
                match row.time_ns() {
                    Some(t) if row.finished() => times[class as usize].push(t),
                    _ if row.status == Status::Aborted => aborted[class as usize] += 1,
                    _ => {}
                }
            }
            (times, aborted)
        })
        .collect();
    (0..n)
        .filter(|&c| lines[c] > 0)
        .map(|c| {
            let times: Vec<Option<(u64, f64)>> = per_group
                .iter()
                .map(|(classes, _)| {
                    let mut t = classes[c].clone();
                    if t.is_empty() {
                        return None;
                    }
                    t.sort_unstable();
                    let mean = t.iter().map(|&x| x as f64).sum::<f64>() / t.len() as f64;
                    Some((quantile(&t, 0.5), mean))
                })
                .collect();
            // Most finished first: a strategy that gave up on most of the class is not
            // the fastest on it, however quick its few finished searches were.
            let fastest = per_group
                .iter()
                .zip(&times)
                .enumerate()
                .filter_map(|(i, ((classes, _), t))| {
                    t.map(|(median, _)| (std::cmp::Reverse(classes[c].len()), median, i))
                })
                .min()
                .map(|(_, _, i)| i);
            ClassRow {
                label: classing.labels[c].clone(),
                lines: lines[c],
                times,
                aborted: per_group.iter().map(|(_, aborted)| aborted[c]).collect(),
                fastest,
            }
        })
        .collect()
}

/// Lines by their solution count (0, 1, 2+) over the finished searches of every group;
/// "disagree" where the strategies counted differently.
pub fn solution_count(groups: &[&Group]) -> Classing {
    const DISAGREE: u32 = 3;
    let mut counts: Vec<(u64, u32)> = groups
        .iter()
        .flat_map(|g| g.rows.iter())
        .filter(|r| r.finished())
        .filter_map(|r| r.solutions().map(|s| (r.line, s.min(2))))
        .collect();
    counts.sort_unstable();
    let mut by_line: Vec<(u64, u32)> = Vec::new();
    for (line, class) in counts {
        match by_line.last_mut() {
            Some((last, c)) if *last == line => {
                if *c != class {
                    *c = DISAGREE;
                }
            }
            _ => by_line.push((line, class)),
        }
    }
    Classing {
        title: "solution count".into(),
        note: "from the finished searches (capped at --max-solutions); \"disagree\": the \
               strategies counted differently"
            .into(),
        labels: ["0", "1", "2+", "disagree"].map(String::from).to_vec(),
        by_line,
    }
}

/// Lines by their number of givens.
pub fn clues(groups: &[&Group]) -> Classing {
    let mut pairs: Vec<(u64, f64)> = groups
        .iter()
        .flat_map(|g| g.rows.iter())
        .filter_map(|r| r.clues().map(|c| (r.line, c as f64)))
        .collect();
    pairs.sort_unstable_by_key(|&(line, _)| line);
    pairs.dedup_by_key(|&mut (line, _)| line);
    numeric("clues", "givens per puzzle".into(), pairs)
}

/// Lines by the guesses the first strategy that counts them made (finished searches):
/// 0, 1, 2-3, 4-7, ...; `None` when no strategy counts guesses.
pub fn guesses(groups: &[&Group]) -> Option<Classing> {
    let counter = groups
        .iter()
        .find(|g| g.rows.iter().any(|r| r.finished() && r.guesses().is_some()))?;
    let class = |g: u64| if g == 0 { 0 } else { 64 - g.leading_zeros() };
    let by_line: Vec<(u64, u32)> = counter
        .rows
        .iter()
        .filter(|r| r.finished())
        .filter_map(|r| r.guesses().map(|g| (r.line, class(g))))
        .collect();
    let top = by_line.iter().map(|&(_, c)| c).max().unwrap_or(0);
    let labels = (0..=top)
        .map(|c| match c {
            0 => "0".to_string(),
            1 => "1".to_string(),
            c => format!("{}–{}", 1u128 << (c - 1), (1u128 << c) - 1),
        })
        .collect();
    Some(Classing {
        title: "guesses".into(),
        note: format!("guesses {} made on each puzzle it finished", counter.label),
        labels,
        by_line,
    })
}

/// Lines by a corpus column's value: numbers as numbers (ranges when many), text as
/// text (the most common when many, the rest as "other").
/// Empty cells are a class of their own, "(empty)", last: one missing value must not turn
/// a column of numbers into text.
pub fn column(name: &str, note: String, values: Vec<(u64, String)>) -> Classing {
    let (empty, filled): (Vec<_>, Vec<_>) =
        values.into_iter().partition(|(_, v)| v.trim().is_empty());
    let mut classing = filled_column(name, note, filled);
    if !empty.is_empty() {
        let class = classing.labels.len() as u32;
        classing.labels.push("(empty)".into());
        classing
            .by_line
            .extend(empty.into_iter().map(|(line, _)| (line, class)));
        classing.by_line.sort_unstable_by_key(|&(line, _)| line);
    }
    classing
}

/// `column` of the cells that have a value.
fn filled_column(name: &str, note: String, mut values: Vec<(u64, String)>) -> Classing {
    values.sort_by_key(|&(line, _)| line);
    let numbers: Option<Vec<(u64, f64)>> = values
        .iter()
        .map(|(line, v)| {
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .map(|x| (*line, x))
        })
        .collect();
    if let Some(pairs) = numbers.filter(|p| !p.is_empty()) {
        return numeric(name, note, pairs);
    }
    let mut distinct: Vec<(String, u64)> = Vec::new();
    {
        let mut sorted: Vec<&str> = values.iter().map(|(_, v)| v.as_str()).collect();
        sorted.sort_unstable();
        for v in sorted {
            match distinct.last_mut() {
                Some((last, n)) if last == v => *n += 1,
                _ => distinct.push((v.to_string(), 1)),
            }
        }
    }
    let mut labels: Vec<String> = if distinct.len() <= MAX_CLASSES {
        distinct.iter().map(|(v, _)| v.clone()).collect()
    } else {
        let mut common = distinct.clone();
        common.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut kept: Vec<String> = common
            .into_iter()
            .take(MAX_CLASSES - 1)
            .map(|(v, _)| v)
            .collect();
        kept.sort();
        kept
    };
    let other = labels.len() as u32;
    let many = distinct.len() > labels.len();
    let by_line = values
        .iter()
        .map(|(line, v)| {
            let class = labels
                .binary_search_by(|l| l.as_str().cmp(v.as_str()))
                .map_or(other, |i| i as u32);
            (*line, class)
        })
        .collect();
    if many {
        labels.push("other".into());
    }
    Classing {
        title: name.to_string(),
        note,
        labels,
        by_line,
    }
}

/// Number labels: integers without a fraction, others with at most 3 decimals.
fn show(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        let text = format!("{x:.3}");
        text.trim_end_matches('0').to_string()
    }
}

/// Lines by a number: exact values when few, else `RANGES` ranges of equal width.
fn numeric(name: &str, note: String, pairs: Vec<(u64, f64)>) -> Classing {
    let mut distinct: Vec<f64> = pairs.iter().map(|&(_, x)| x).collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() <= MAX_CLASSES {
        let by_line = pairs
            .iter()
            .map(|&(line, x)| {
                let i = distinct.partition_point(|&d| d < x);
                (line, i as u32)
            })
            .collect();
        return Classing {
            title: name.to_string(),
            note,
            labels: distinct.iter().map(|&x| show(x)).collect(),
            by_line,
        };
    }
    let (lo, hi) = (distinct[0], distinct[distinct.len() - 1]);
    let integers = distinct.iter().all(|x| x.fract() == 0.0);
    // Integer ranges are whole numbers wide, so that "17–19" means 17, 18 and 19.
    let width = if integers {
        ((hi - lo + 1.0) / RANGES as f64).ceil()
    } else {
        (hi - lo) / RANGES as f64
    };
    let index = |x: f64| (((x - lo) / width).floor() as usize).min(RANGES - 1);
    let ranges = index(hi) + 1;
    let labels = (0..ranges)
        .map(|i| {
            let from = lo + i as f64 * width;
            if integers {
                let to = (from + width - 1.0).min(hi);
                if to == from {
                    show(from)
                } else {
                    format!("{}–{}", show(from), show(to))
                }
            } else if i + 1 == ranges {
                format!("{} – {}", show(from), show(hi))
            } else {
                format!("{} – <{}", show(from), show(from + width))
            }
        })
        .collect();
    let by_line = pairs
        .iter()
        .map(|&(line, x)| (line, index(x) as u32))
        .collect();
    Classing {
        title: name.to_string(),
        note: format!("{note}; {} values, in ranges", distinct.len()),
        labels,
        by_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (line, status, solutions, time, clues, guesses)
    type Spec = (u64, Status, u32, u64, u8, Option<u64>);

    fn group(label: &str, rows: &[Spec]) -> Group {
        let mut g = Group::new("c.txt", label, 0);
        for &(line, status, solutions, time, clues, guesses) in rows {
            let searched = !matches!(status, Status::Malformed | Status::Invalid);
            g.push(
                CompactRow::new(
                    line,
                    status,
                    searched.then_some(solutions),
                    searched.then_some(10),
                    guesses.filter(|_| searched),
                    searched.then_some(time),
                    Some(clues),
                    false,
                ),
                String::new,
            );
        }
        g
    }

    use Status::*;

    #[test]
    fn solution_counts_are_classed_by_hand_counted_values() {
        // Lines 1-2 unique for both, 3 multiple, 4 unsolvable, 5: a says 1, b says 2;
        // 6: a aborted, b unique (only b finished: class 1); 7 invalid (not classed).
        let a = group(
            "a",
            &[
                (1, Unique, 1, 100, 30, Some(0)),
                (2, Unique, 1, 300, 25, Some(3)),
                (3, Multiple, 2, 50, 20, Some(1)),
                (4, Unsolvable, 0, 70, 24, Some(0)),
                (5, Unique, 1, 10, 25, Some(9)),
                (6, Aborted, 0, 1000, 17, Some(40)),
                (7, Invalid, 0, 0, 30, None),
            ],
        );
        let b = group(
            "b",
            &[
                (1, Unique, 1, 200, 30, None),
                (2, Unique, 1, 200, 25, None),
                (3, Multiple, 2, 60, 20, None),
                (4, Unsolvable, 0, 40, 24, None),
                (5, Multiple, 2, 20, 25, None),
                (6, Unique, 1, 500, 17, None),
                (7, Invalid, 0, 0, 30, None),
            ],
        );
        let groups = [&a, &b];
        let classing = solution_count(&groups);
        let table = breakdown(&classing, &groups);
        let labels: Vec<&str> = table.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["0", "1", "2+", "disagree"]);
        let lines: Vec<u64> = table.iter().map(|r| r.lines).collect();
        assert_eq!(lines, [1, 3, 1, 1]);
        // Class "1": lines 1, 2, 6. a finished 100, 300 (median 100, mean 200) and gave up
        // on line 6 at 1000, which is left out; b finished 200, 200, 500.
        let one = &table[1];
        assert_eq!(one.times[0].map(|t| t.0), Some(100));
        assert_eq!(one.times[1].map(|t| t.0), Some(200));
        assert!((one.times[0].unwrap().1 - 200.0).abs() < 1e-9);
        assert_eq!(one.aborted, [1, 0]);
        // a's median is lower, but b finished all three and a only two.
        assert_eq!(one.fastest, Some(1));
        // Class "0": a 70, b 40.
        assert_eq!(table[0].fastest, Some(1));
        // Class "2+": a 50, b 60.
        assert_eq!(table[2].fastest, Some(0));

        let clue_table = breakdown(&clues(&groups), &groups);
        let by: Vec<(&str, u64)> = clue_table
            .iter()
            .map(|r| (r.label.as_str(), r.lines))
            .collect();
        assert_eq!(by, [("17", 1), ("20", 1), ("24", 1), ("25", 2), ("30", 2)]);
        // Invalid line 7 has clues but no time: counted as a line, no time from it.
        assert_eq!(clue_table[4].times[0].map(|t| t.0), Some(100));

        let g = guesses(&groups).expect("a counts guesses");
        assert_eq!(g.note, "guesses a made on each puzzle it finished");
        let guess_table = breakdown(&g, &groups);
        let by: Vec<(&str, u64)> = guess_table
            .iter()
            .map(|r| (r.label.as_str(), r.lines))
            .collect();
        // a's finished guesses: 0, 3, 1, 0, 9 (line 6 aborted).
        assert_eq!(by, [("0", 2), ("1", 1), ("2–3", 1), ("8–15", 1)]);
    }

    #[test]
    fn a_strategy_that_aborted_everything_is_not_the_fastest() {
        // naive gives up at once on every puzzle; dlx finishes them, slower.
        let naive = group(
            "naive",
            &[(1, Aborted, 0, 5, 25, None), (2, Aborted, 0, 6, 25, None)],
        );
        let dlx = group(
            "dlx",
            &[(1, Unique, 1, 900, 25, None), (2, Unique, 1, 700, 25, None)],
        );
        let groups = [&naive, &dlx];
        let table = breakdown(&clues(&groups), &groups);
        assert_eq!(table.len(), 1);
        assert_eq!(table[0].times[0], None);
        assert_eq!(table[0].aborted, [2, 0]);
        assert_eq!(table[0].times[1], Some((700, 800.0)));
        assert_eq!(table[0].fastest, Some(1));
        let none_finished = breakdown(&clues(&[&naive]), &[&naive]);
        assert_eq!(none_finished[0].fastest, None);
    }

    #[test]
    fn many_values_go_into_ranges_or_the_most_common() {
        let pairs: Vec<(u64, String)> = (1..=100).map(|i| (i, (i % 40).to_string())).collect();
        let c = column("x", String::new(), pairs);
        assert_eq!(c.labels.len(), RANGES);
        assert_eq!(c.labels[0], "0–3");
        assert_eq!(c.labels[9], "36–39");
        assert_eq!(c.by_line[38], (39, 9));

        let text: Vec<(u64, String)> = (1..=100)
            .map(|i| (i, format!("k{}", if i <= 50 { 0 } else { i })))
            .collect();
        let c = column("kind", String::new(), text);
        assert_eq!(c.labels.len(), MAX_CLASSES);
        assert_eq!(c.labels.last().unwrap(), "other");
        assert_eq!(c.by_line[0], (1, 0));
        assert!(c.labels.contains(&"k0".to_string()));

        let few: Vec<(u64, String)> =
            vec![(3, "hard".into()), (1, "easy".into()), (2, "easy".into())];
        let c = column("difficulty", String::new(), few);
        assert_eq!(c.labels, ["easy", "hard"]);
        assert_eq!(c.by_line, [(1, 0), (2, 0), (3, 1)]);

        // One empty cell among numbers: its own class, the numbers still sorted as numbers.
        let gappy: Vec<(u64, String)> = [(1, "10"), (2, " "), (3, "2"), (4, "1"), (5, "11")]
            .map(|(l, v)| (l, v.to_string()))
            .to_vec();
        let c = column("rating", String::new(), gappy);
        assert_eq!(c.labels, ["1", "2", "10", "11", "(empty)"]);
        assert_eq!(c.by_line, [(1, 2), (2, 4), (3, 1), (4, 0), (5, 3)]);
        let blank = column("rating", String::new(), vec![(1, String::new())]);
        assert_eq!(blank.labels, ["(empty)"]);
        assert_eq!(blank.by_line, [(1, 0)]);
    }
}
