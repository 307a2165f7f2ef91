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
use crate::corpus::{FileIdentity, Identity};
use crate::results::Status;

/// Every group's accumulators, in the summary's order, and what was read of each corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryState {
    /// One per (corpus, strategy), in order of first appearance.
    pub groups: Vec<GroupState>,
    /// One per corpus read to its end: what was read of it (its part's, for a part).
    /// Absent in summaries written before it existed, and for a corpus whose read was
    /// stopped or failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub corpora: Vec<CorpusState>,
}

/// A corpus's [`Identity`] as the summary JSON holds it. Hashes are 16 hex digits: JSON
/// numbers lose precision past 2^53 in many readers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorpusState {
    /// The corpus, as named on the command line.
    pub corpus: String,
    /// Lines read (the part's own, for a part), comments, blanks and a header included.
    pub lines: u64,
    /// The number of the last line read.
    pub last_line: u64,
    /// Bytes of those lines, line endings included (of the text, decompressed).
    pub bytes: u64,
    /// The wrapping sum over those lines of XXH3-64(line, seed = its number), hex.
    pub hash: String,
    /// Of those lines, the puzzle, invalid and malformed ones: rows per strategy.
    pub entries: u64,
    /// The wrapping sum over the entry lines of SplitMix64(its number), hex.
    pub entry_lines: String,
    /// The file read, when a regular file (the whole file, for a part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<FileState>,
}

/// A corpus file's [`FileIdentity`] as the summary JSON holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// Its size in bytes, as stored.
    pub bytes: u64,
    /// XXH3-64 (seed = its size) of its first and last 64 KiB, hex.
    pub ends: String,
}

impl CorpusState {
    /// The identity of `corpus`, as the JSON holds it.
    pub fn of(corpus: &str, identity: &Identity) -> CorpusState {
        let hex = |n: u64| format!("{n:016x}");
        CorpusState {
            corpus: corpus.to_string(),
            lines: identity.lines,
            last_line: identity.last_line,
            bytes: identity.bytes,
            hash: hex(identity.hash),
            entries: identity.entries,
            entry_lines: hex(identity.entry_lines),
            file: identity.file.map(|f| FileState {
                bytes: f.bytes,
                ends: hex(f.ends),
            }),
        }
    }

    /// The identity it holds.
    pub fn identity(&self) -> Result<Identity, StateError> {
        let hex = |field: &'static str, value: &str| {
            let digits = value.len() == 16 && value.bytes().all(|b| b.is_ascii_hexdigit());
            digits
                .then(|| u64::from_str_radix(value, 16).ok())
                .flatten()
                .ok_or_else(|| StateError::Hex {
                    corpus: self.corpus.clone(),
                    field,
                    value: value.to_string(),
                })
        };
        let file = match &self.file {
            None => None,
            Some(f) => Some(FileIdentity {
                bytes: f.bytes,
                ends: hex("file.ends", &f.ends)?,
            }),
        };
        Ok(Identity {
            lines: self.lines,
            last_line: self.last_line,
            bytes: self.bytes,
            hash: hex("hash", &self.hash)?,
            entries: self.entries,
            entry_lines: hex("entry_lines", &self.entry_lines)?,
            file,
        })
    }
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
    /// Puzzles whose kept time other work may hold; `null` where not told.
    pub preemptions: Option<u64>,
    /// The solve-time histogram: HdrHistogram V2 with deflate, base64 (standard alphabet).
    pub times: String,
    /// Searches whose instructions were counted; absent when none was.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub instructions_counted: u64,
    /// Their summed instructions, decimal; absent when none was counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions_sum: Option<String>,
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
    /// A hash of a corpus's identity that is not 16 hex digits.
    #[error("corpus {corpus}: {field} is not 16 hex digits: {value:?}")]
    Hex {
        /// The corpus.
        corpus: String,
        /// The field.
        field: &'static str,
        /// What it held.
        value: String,
    },
    /// The same corpus's identity twice.
    #[error("corpus {corpus}: its identity is listed twice")]
    CorpusTwice {
        /// The corpus.
        corpus: String,
    },
}

/// A time histogram as a summary carries it: HdrHistogram V2 with deflate, base64.
pub fn write_times(times: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(times, &mut bytes)
        .expect("a histogram of u64 counts serializes into memory");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A time histogram as a summary carries it ([`GroupState::times`]: HdrHistogram V2 with
/// deflate, base64), read back with the bounds runs record with (3 significant digits from
/// 1 ns) and growing as recording does; why not, when it is not one.
pub fn read_times(times: &str) -> Result<Histogram<u64>, String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(times)
        .map_err(|e| e.to_string())?;
    let mut times: Histogram<u64> = Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| format!("{e:?}"))?;
    // Read back with the bounds it was written with; later times and merges must grow it
    // as recording does.
    times.auto(true);
    if times.sigfig() != 3 || times.low() != 1 {
        return Err(format!(
            "{} significant digits from {}, where runs record 3 from 1",
            times.sigfig(),
            times.low()
        ));
    }
    Ok(times)
}

impl Group {
    fn state(&self) -> GroupState {
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
            times: write_times(&self.times),
            instructions_counted: self.instructions_counted,
            instructions_sum: (self.instructions_counted > 0)
                .then(|| self.instructions_sum.to_string()),
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
        let times = read_times(&s.times).map_err(histogram_error)?;
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
            instructions_counted: s.instructions_counted,
            instructions_sum: match &s.instructions_sum {
                Some(sum) => number("instructions_sum", sum)?,
                None => 0,
            },
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
        self.instructions_counted += other.instructions_counted;
        self.instructions_sum += other.instructions_sum;
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
            corpora: self
                .identities
                .iter()
                .map(|(corpus, identity)| CorpusState::of(corpus, identity))
                .collect(),
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
        for c in &state.corpora {
            if summary.identity(&c.corpus).is_some() {
                return Err(StateError::CorpusTwice {
                    corpus: c.corpus.clone(),
                });
            }
            summary.set_identity(&c.corpus, c.identity()?);
        }
        Ok(summary)
    }

    /// Add `other` to this summary: as if this one had also seen every result `other` saw.
    /// Groups new to this one come after its own, in `other`'s order. A corpus's identity
    /// is the sum of both (the parts of a split run) when both know it; when only one
    /// saw the corpus, its; else unknown (one part's is not the whole's).
    pub fn merge(&mut self, other: &Summary) {
        let mut corpora: Vec<&str> = other.groups.iter().map(|g| g.corpus.as_str()).collect();
        corpora.extend(other.identities.iter().map(|(c, _)| c.as_str()));
        corpora.dedup();
        for (i, corpus) in corpora.iter().enumerate() {
            if corpora[..i].contains(corpus) {
                continue;
            }
            let saw =
                self.groups.iter().any(|g| g.corpus == *corpus) || self.identity(corpus).is_some();
            let mine = self.identities.iter().position(|(c, _)| c == corpus);
            match (saw, mine, other.identity(corpus)) {
                (false, _, Some(theirs)) => self.set_identity(corpus, *theirs),
                (true, Some(i), Some(theirs)) => self.identities[i].1.add(theirs),
                (true, Some(i), None) => {
                    self.identities.remove(i);
                }
                _ => {}
            }
        }
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

    fn identity(lines: u64, last_line: u64, seed: u64) -> Identity {
        Identity {
            lines,
            last_line,
            bytes: 82 * lines,
            hash: crate::rng::splitmix64(seed),
            entries: lines - 1,
            entry_lines: crate::rng::splitmix64(seed + 1),
            file: Some(FileIdentity {
                bytes: 82 * last_line,
                ends: u64::MAX - 7,
            }),
        }
    }

    #[test]
    fn identities_go_through_json_and_add_up_when_every_part_knows_them() {
        let mut parts = vec![Summary::default(), Summary::default(), Summary::default()];
        for (k, part) in parts.iter_mut().enumerate() {
            fill(part, &results()[k * 100..(k + 1) * 100]);
            part.set_identity("a.txt", identity(10 + k as u64, 40, k as u64));
        }
        parts[1].set_identity("b.txt", identity(5, 5, 9));
        let json = serde_json::to_value(parts[0].state()).unwrap();
        assert_eq!(json["corpora"][0]["corpus"], "a.txt");
        assert_eq!(json["corpora"][0]["file"]["ends"], "fffffffffffffff8");
        let mut merged = Summary::default();
        for part in &parts {
            let json = serde_json::to_string(&part.state()).unwrap();
            let back = Summary::from_state(&serde_json::from_str(&json).unwrap()).unwrap();
            assert_eq!(back.identities(), part.identities());
            merged.merge(&back);
        }
        let mut whole = identity(10, 40, 0);
        whole.add(&identity(11, 40, 1));
        whole.add(&identity(12, 40, 2));
        assert_eq!(merged.identity("a.txt"), Some(&whole));
        assert!(merged.identity("a.txt").unwrap().lines == 33);
        // b.txt's groups are in every part, its identity in one: not the whole's.
        assert_eq!(merged.identity("b.txt"), None);
        // A summary written before identities: still read, none known.
        let mut json = serde_json::to_value(parts[0].state()).unwrap();
        json.as_object_mut().unwrap().remove("corpora");
        let old: SummaryState = serde_json::from_value(json).unwrap();
        assert!(Summary::from_state(&old).unwrap().identities().is_empty());
        // A run's own end replaces what was said of the corpus (a resume reads it again).
        let mut s = Summary::default();
        s.set_identity("a.txt", identity(3, 3, 1));
        s.set_identity("a.txt", identity(4, 4, 1));
        assert_eq!(s.identities().len(), 1);
        assert_eq!(s.identity("a.txt").unwrap().lines, 4);
    }

    #[test]
    fn a_bad_identity_is_named() {
        let mut s = Summary::default();
        s.set_identity("a.txt", identity(3, 3, 1));
        let mut state = s.state();
        state.corpora[0].hash = "12".into();
        let err = Summary::from_state(&state).unwrap_err().to_string();
        assert!(err.contains("a.txt") && err.contains("hash"), "{err}");
        let mut state = s.state();
        state.corpora[0].file.as_mut().unwrap().ends = "+123456789abcdef".into();
        let err = Summary::from_state(&state).unwrap_err().to_string();
        assert!(err.contains("file.ends"), "{err}");
        let mut state = s.state();
        state.corpora.push(state.corpora[0].clone());
        assert!(matches!(
            Summary::from_state(&state),
            Err(StateError::CorpusTwice { .. })
        ));
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
