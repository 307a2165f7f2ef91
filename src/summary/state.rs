//! A `Summary`'s accumulators as data: what a run's summary JSON carries so that the
//! summaries of the parts of a split run add up to the one a single run would have made,
//! quantiles included (the time histogram goes whole, in HdrHistogram's V2 deflate format,
//! base64), and `Summary::merge` which adds them.

use std::collections::BTreeMap;

use base64::Engine;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::{Group, Summary};
use crate::results::Status;

/// Every group's accumulators, in the summary's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryState {
    /// One per (corpus, strategy), in order of first appearance.
    pub groups: Vec<GroupState>,
}

/// One (corpus, strategy)'s accumulators. Sums that may pass 2^64 are decimal strings:
/// JSON numbers lose precision past 2^53 in many readers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupState {
    /// The corpus, as named on the command line.
    pub corpus: String,
    /// The strategy's name.
    pub strategy: String,
    /// Records per status name (`unique`, `aborted`, ...); statuses never seen are absent.
    pub counts: BTreeMap<String, u64>,
    /// Wrong answers.
    pub mismatches: u64,
    /// Searches the solver failed.
    pub failures: u64,
    /// Searches that found solutions but returned none.
    pub unreturned: u64,
    /// Timed searches.
    pub searched: u64,
    /// Summed solve time in ns, decimal.
    pub time_sum_ns: String,
    /// Longest solve.
    pub max_ns: u64,
    /// Summed nodes, decimal.
    pub nodes_sum: String,
    /// Searches whose strategy counts nodes.
    pub nodes_counted: u64,
    /// Finished searches whose strategy counts guesses.
    pub guessed: u64,
    /// Summed guesses, decimal.
    pub guesses_sum: String,
    /// Of `guessed`, those that needed no guess.
    pub no_guess: u64,
    /// Wall-clock time of the strategy's phases.
    pub wall_ns: u64,
    /// Of `searched`, those whose wall time `wall_ns` does not hold (kept by a resume of a
    /// run that left none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unwalled: u64,
    /// Involuntary context switches; `null` where not counted.
    pub preemptions: Option<u64>,
    /// The solve-time histogram: HdrHistogram V2 with deflate, base64 (standard alphabet).
    pub times: String,
}

/// Why a summary state cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// A count under a name that is no status.
    #[error("{corpus} / {strategy}: unknown status {name:?} in counts")]
    Status {
        /// The group's corpus.
        corpus: String,
        /// The group's strategy.
        strategy: String,
        /// The unknown name.
        name: String,
    },
    /// A sum that is not a decimal number.
    #[error("{corpus} / {strategy}: {field} is not a decimal number: {value:?}")]
    Number {
        /// The group's corpus.
        corpus: String,
        /// The group's strategy.
        strategy: String,
        /// The field.
        field: &'static str,
        /// What it held.
        value: String,
    },
    /// The histogram is not base64 of a V2 HdrHistogram.
    #[error("{corpus} / {strategy}: the time histogram cannot be read: {why}")]
    Histogram {
        /// The group's corpus.
        corpus: String,
        /// The group's strategy.
        strategy: String,
        /// What went wrong.
        why: String,
    },
    /// The same (corpus, strategy) twice.
    #[error("{corpus} / {strategy}: listed twice")]
    Duplicate {
        /// The group's corpus.
        corpus: String,
        /// The group's strategy.
        strategy: String,
    },
}

impl Group {
    fn state(&self) -> GroupState {
        let mut bytes = Vec::new();
        V2DeflateSerializer::new()
            .serialize(&self.times, &mut bytes)
            .expect("a histogram of u64 counts serializes into memory");
        GroupState {
            corpus: self.corpus.clone(),
            strategy: self.strategy.clone(),
            counts: Status::ALL
                .iter()
                .filter(|&&s| self.counts[s as usize] > 0)
                .map(|&s| (s.as_str().to_string(), self.counts[s as usize]))
                .collect(),
            mismatches: self.mismatches,
            failures: self.failures,
            unreturned: self.unreturned,
            searched: self.searched,
            time_sum_ns: self.time_sum_ns.to_string(),
            max_ns: self.max_ns,
            nodes_sum: self.nodes_sum.to_string(),
            nodes_counted: self.nodes_counted,
            guessed: self.guessed,
            guesses_sum: self.guesses_sum.to_string(),
            no_guess: self.no_guess,
            wall_ns: self.wall_ns,
            unwalled: self.unwalled,
            preemptions: self.preemptions,
            times: base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    }

    fn from_state(s: &GroupState) -> Result<Group, StateError> {
        let number = |field: &'static str, value: &str| {
            value.parse::<u128>().map_err(|_| StateError::Number {
                corpus: s.corpus.clone(),
                strategy: s.strategy.clone(),
                field,
                value: value.to_string(),
            })
        };
        let histogram_error = |why: String| StateError::Histogram {
            corpus: s.corpus.clone(),
            strategy: s.strategy.clone(),
            why,
        };
        let mut counts = [0; Status::ALL.len()];
        for (name, &n) in &s.counts {
            let status = Status::ALL
                .iter()
                .find(|st| st.as_str() == name)
                .ok_or_else(|| StateError::Status {
                    corpus: s.corpus.clone(),
                    strategy: s.strategy.clone(),
                    name: name.clone(),
                })?;
            counts[*status as usize] = n;
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&s.times)
            .map_err(|e| histogram_error(e.to_string()))?;
        let mut times: Histogram<u64> = Deserializer::new()
            .deserialize(&mut bytes.as_slice())
            .map_err(|e| histogram_error(format!("{e:?}")))?;
        // Read back with the bounds it was written with; later times and merges must grow
        // it as recording does.
        times.auto(true);
        if times.sigfig() != 3 || times.low() != 1 {
            return Err(histogram_error(format!(
                "{} significant digits from {}, where runs record 3 from 1",
                times.sigfig(),
                times.low()
            )));
        }
        Ok(Group {
            corpus: s.corpus.clone(),
            strategy: s.strategy.clone(),
            counts,
            mismatches: s.mismatches,
            failures: s.failures,
            unreturned: s.unreturned,
            searched: s.searched,
            time_sum_ns: number("time_sum_ns", &s.time_sum_ns)?,
            max_ns: s.max_ns,
            times,
            nodes_sum: number("nodes_sum", &s.nodes_sum)?,
            preemptions: s.preemptions,
            nodes_counted: s.nodes_counted,
            guessed: s.guessed,
            guesses_sum: number("guesses_sum", &s.guesses_sum)?,
            no_guess: s.no_guess,
            wall_ns: s.wall_ns,
            unwalled: s.unwalled,
        })
    }

    /// Add `other`'s accumulators (the same corpus and strategy) to this group's.
    fn merge(&mut self, other: &Group) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts) {
            *mine += theirs;
        }
        self.mismatches += other.mismatches;
        self.failures += other.failures;
        self.unreturned += other.unreturned;
        self.searched += other.searched;
        self.time_sum_ns += other.time_sum_ns;
        self.max_ns = self.max_ns.max(other.max_ns);
        // Both record from 1 with 3 digits and resize on their own: adding cannot fail.
        self.times
            .add(&other.times)
            .expect("auto-resizing histograms of the same precision add");
        self.nodes_sum += other.nodes_sum;
        self.nodes_counted += other.nodes_counted;
        self.guessed += other.guessed;
        self.guesses_sum += other.guesses_sum;
        self.no_guess += other.no_guess;
        self.wall_ns = self.wall_ns.saturating_add(other.wall_ns);
        self.unwalled += other.unwalled;
        self.preemptions = match (self.preemptions, other.preemptions) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            (a, b) => a.or(b),
        };
    }
}

impl Summary {
    /// The accumulators, to write into a summary JSON and merge later.
    pub fn state(&self) -> SummaryState {
        SummaryState {
            groups: self.groups.iter().map(Group::state).collect(),
        }
    }

    /// The summary whose accumulators `state` holds.
    pub fn from_state(state: &SummaryState) -> Result<Summary, StateError> {
        let mut summary = Summary::default();
        for g in &state.groups {
            let group = Group::from_state(g)?;
            if summary.find(&group.corpus, &group.strategy).is_some() {
                return Err(StateError::Duplicate {
                    corpus: group.corpus,
                    strategy: group.strategy,
                });
            }
            summary.groups.push(group);
        }
        Ok(summary)
    }

    /// Add `other` to this summary: as if this one had also seen every result `other` saw.
    /// Groups new to this one come after its own, in `other`'s order.
    pub fn merge(&mut self, other: &Summary) {
        for g in &other.groups {
            let i = self.group(&g.corpus, &g.strategy);
            self.groups[i].merge(g);
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Ending, PuzzleResult};

    /// A varied stream: statuses, failures, times over six orders of magnitude (so the
    /// histogram resizes), nodes and guesses for one strategy, none for the other.
    fn results() -> Vec<(&'static str, &'static str, PuzzleResult)> {
        let mut out = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..3000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let corpus = if i % 5 == 0 { "b.txt" } else { "a.txt" };
            let strategy = if i % 2 == 0 { "fast" } else { "naive" };
            let status = Status::ALL[(x % 7) as usize];
            let searched = !matches!(status, Status::Invalid | Status::Malformed);
            out.push((
                corpus,
                strategy,
                PuzzleResult {
                    status,
                    solutions: Some(1),
                    nodes: (strategy == "fast").then_some(x % 5000),
                    guesses: (strategy == "fast").then_some(x % 3),
                    time_ns: searched.then_some(1 + (x >> 20) % 10u64.pow(1 + i as u32 % 7)),
                    ended: if x.is_multiple_of(97) {
                        Some(Ending::Mismatch)
                    } else if x.is_multiple_of(89) {
                        Some(Ending::Failed)
                    } else {
                        None
                    },
                    ..PuzzleResult::default()
                },
            ));
        }
        out
    }

    fn fill(summary: &mut Summary, rows: &[(&str, &str, PuzzleResult)]) {
        for (corpus, strategy, result) in rows {
            let g = summary.group(corpus, strategy);
            summary.add(g, result);
            summary.add_wall(g, 1000);
        }
    }

    #[test]
    fn parts_merged_through_json_give_exactly_the_whole() {
        let all = results();
        let mut whole = Summary::default();
        fill(&mut whole, &all);
        whole.add_preemptions(0, Some(7));

        let mut parts = vec![Summary::default(), Summary::default(), Summary::default()];
        // Contiguous thirds: the first part sees the groups in the whole's order.
        for (i, chunk) in all.chunks(1000).enumerate() {
            fill(&mut parts[i], chunk);
        }
        parts[2].add_preemptions(0, Some(7));
        let mut merged = Summary::default();
        for part in &parts {
            let json = serde_json::to_string(&part.state()).unwrap();
            let back: SummaryState = serde_json::from_str(&json).unwrap();
            merged.merge(&Summary::from_state(&back).unwrap());
        }
        assert_eq!(merged.rows(), whole.rows());
        // Every bucket, not only the quantiles rows show (the serialized bytes may differ:
        // a histogram keeps the range it grew to).
        for (m, w) in merged.groups.iter().zip(&whole.groups) {
            assert_eq!(m.times, w.times, "{} / {}", w.corpus, w.strategy);
        }
        // Quantiles are worth comparing: the parts alone differ from the whole.
        let first = Summary::from_state(&parts[0].state()).unwrap();
        assert_ne!(first.rows()[0].p99_ns, 0);
        assert_ne!(first.rows(), whole.rows());
    }

    #[test]
    fn merging_adds_to_what_a_summary_already_saw() {
        let all = results();
        let mut whole = Summary::default();
        fill(&mut whole, &all);
        let (a, b) = all.split_at(1234);
        let mut left = Summary::default();
        fill(&mut left, a);
        let mut right = Summary::default();
        fill(&mut right, b);
        left.merge(&right);
        assert_eq!(left.rows(), whole.rows());
    }

    #[test]
    fn a_bad_state_is_named() {
        let mut s = Summary::default();
        fill(&mut s, &results()[..10]);
        let mut state = s.state();
        state.groups[0].times = "not base64!".into();
        let err = Summary::from_state(&state).unwrap_err().to_string();
        assert!(
            err.contains("b.txt / fast") && err.contains("histogram"),
            "{err}"
        );
        let mut state = s.state();
        state.groups[1].nodes_sum = "12x".into();
        let err = Summary::from_state(&state).unwrap_err().to_string();
        assert!(err.contains("nodes_sum"), "{err}");
        let mut state = s.state();
        state.groups[0].counts.insert("lost".into(), 1);
        assert!(matches!(
            Summary::from_state(&state),
            Err(StateError::Status { .. })
        ));
        let mut state = s.state();
        state.groups.push(state.groups[0].clone());
        assert!(matches!(
            Summary::from_state(&state),
            Err(StateError::Duplicate { .. })
        ));
    }
}
