//! Change points in a series of measurements over commits: where a strategy got slower or
//! faster, and where its search changed.
//!
//! Times are judged with E-Divisive means (Matteson & James, "A Nonparametric Approach for
//! Multiple Change Point Analysis of Multivariate Data", JASA 2014), the method of MongoDB's
//! "Change Point Detection in Software Performance Testing" (ICPE 2020) and of Apache Otava
//! (formerly Hunter). Why this method:
//!
//! - It assumes no distribution. A run's rate is not Gaussian on a shared machine: a
//!   neighbour's burst or one preempted solve makes a slow outlier now and then. The
//!   statistic is an energy distance with exponent 1, defined for any distribution with a
//!   finite mean, and its significance comes from a permutation test, so the false-alarm
//!   probability is what [`Detection::p_value`] says whatever the noise looks like.
//! - It finds several changes and where each one happened, including a slow creep: ten
//!   steps of 1.5% make the commits before and after differ in distribution as one 16% step
//!   does, which a per-commit threshold never sees.
//! - It is deterministic here: the permutations are drawn from the crate's one generator
//!   ([`sudoku_bench_core::rng`]) with a fixed seed, and each test's stream is chosen by the segment it
//!   tests, so the same series gives the same answer on every machine.
//!
//! How: values are taken as logarithms (a rate that halves and one that doubles move as
//! far). In a segment, a split before point `t` with a second side ending at `e` is scored
//! `Q = m k / (m + k) * (2 B / (m k) - WL / C(m, 2) - WR / C(k, 2))`, the first side
//! holding the `m` points before `t` and the second the `k` from `t` to `e`, `B` the summed
//! distances between the two sides and `WL`, `WR` those within each (each side holds at
//! least two points; both ends lie between commits). The split's score is its best over
//! `e`, so that a change that is undone later (a slower stretch, then a fix) stands out as
//! well as one that lasts. The best split over all segments is tested: the segment's
//! values are permuted, its best score recomputed, and the p-value is the share of
//! permutations (plus the observed order) scoring as high. At or below
//! [`Detection::p_value`] the split is a change point and the segments on either side are
//! searched again; the first split that fails ends the search. Then changes smaller than
//! [`Detection::min_change`] are dropped, the smallest first, each drop merging two
//! segments (so the neighbours' sizes are measured again): a real but tiny change is not
//! worth a report.
//!
//! Cost: a permutation's best split is one pass over the pairs (split, end) with running
//! sums, kept in buffers of the segment's length (not a table of every pair's distance
//! made anew per permutation, which made a check of 2,000 commits take minutes: issue 38),
//! and a permutation that scores far below the observed split is told so from sums added
//! in any order, with no division; only one within rounding of it is scored exactly, as
//! the first version did, so the change points and p-values are the same to the last bit
//! (`changes/tests.rs` holds that version and checks it on random series). Before any of
//! that, `Scan::bound` bounds every split's score of a permutation in O(n log n): a
//! clear change is tested without scanning most permutations; a weak one, or one in the
//! last few runs, still scans each in O(n^2) (docs/measurements.md has figures).
//!
//! Several points may share a commit (runs recorded again): a split is only ever between
//! commits. An interval a point carries (an in-run A/B ratio's) is kept for the report but
//! does not weigh in: the permutation test measures the noise from the series itself.
//!
//! Node and guess counts are deterministic: [`exact_changes`] reports every change of
//! value between consecutive points, with no statistics.
//!
//! Its tests (`changes/tests.rs`) are the acceptance of issue 30, on simulated series whose
//! noise is drawn from the spread of `fast`'s median rate measured on this project's
//! machine: 2.3% to 2.7% (coefficient of variation) over 30 separate runs under load, 13%
//! to 17% for its mean-based rate (one preempted solve moves a mean of microseconds), which
//! is why `history check` judges the median rate. A 10% step is found at its commit, give
//! or take one, in 19 of 20 trials, a creep of ten 1.5% steps is reported in 20 of 20,
//! and a flat series raises nothing in 20 of 20.

use std::collections::BTreeMap;

use sudoku_bench_core::rng::{splitmix64, Rng};

/// One measurement: a value at a commit, the commits numbered in their order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// The commit's place in the series' order (0 first); points are given in that order,
    /// several per commit allowed.
    pub commit: usize,
    /// The value: a rate, a ratio, a count per puzzle.
    pub value: f64,
    /// An interval around `value` when the measurement has one (an in-run A/B ratio's
    /// bootstrap interval); carried, not used by the detection.
    pub interval: Option<(f64, f64)>,
}

impl Point {
    /// A point with no interval.
    pub fn new(commit: usize, value: f64) -> Point {
        Point {
            commit,
            value,
            interval: None,
        }
    }
}

/// The knobs of the detection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detection {
    /// The false-alarm probability of each split tested: a split is a change point when its
    /// permutation p-value is at most this. In (0, 1).
    pub p_value: f64,
    /// The smallest relative change reported: a change is kept when the ratio of means
    /// after / before is at least `1 + min_change` or at most `1 / (1 + min_change)` (a 2x
    /// slowdown and a 2x speed-up weigh alike, as `compare --threshold` has it). 0 or more.
    pub min_change: f64,
    /// The smallest change of an instruction count reported ([`threshold_changes`]), as
    /// `compare --count-threshold` has it. 0 or more.
    pub count_threshold: f64,
    /// The seed of the permutations.
    pub seed: u64,
}

impl Default for Detection {
    /// p 0.01, 5%, counts 1%: the defaults of `history check`.
    fn default() -> Self {
        Detection {
            p_value: 0.01,
            min_change: 0.05,
            count_threshold: 0.01,
            seed: 0x5EED_C4A6_E000_0001,
        }
    }
}

impl Detection {
    /// Permutations per test: enough that a p-value 20 times below the threshold can be
    /// seen (so a real change is not lost to the test's own resolution), bounded so that
    /// a tiny threshold stays quick.
    fn permutations(&self) -> usize {
        ((20.0 / self.p_value).ceil() as usize).clamp(199, 100_000)
    }
}

/// A change of level between two commits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangePoint {
    /// The last commit before the change (its place in the order).
    pub before: usize,
    /// The first commit after it: the change happened in `before + 1 ..= after`.
    pub after: usize,
    /// The mean of the values from the previous change point (or the start) to this one.
    pub mean_before: f64,
    /// The mean of the values from this change point to the next (or the end).
    pub mean_after: f64,
    /// The permutation test's p-value; `None` for an exact series.
    pub p_value: Option<f64>,
}

impl ChangePoint {
    /// `mean_after / mean_before`: above 1 the value went up.
    pub fn ratio(&self) -> f64 {
        self.mean_after / self.mean_before
    }
}

/// Why a series or the knobs cannot be judged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SeriesError {
    /// Points out of their commits' order.
    #[error("point {index}: commit {commit} comes after commit {previous}")]
    Unordered {
        /// The point's place in the series.
        index: usize,
        /// Its commit.
        commit: usize,
        /// The previous point's commit.
        previous: usize,
    },
    /// A value that cannot be a rate or a ratio: not positive, or not finite.
    #[error("point {index} (commit {commit}): value {value} is not a positive number")]
    NotPositive {
        /// The point's place in the series.
        index: usize,
        /// Its commit.
        commit: usize,
        /// Its value.
        value: f64,
    },
    /// A p-value outside (0, 1) or a negative minimal change.
    #[error(
        "p-value {p_value} (must be in (0, 1)) or minimal change {min_change} (must be 0 or more)"
    )]
    Knobs {
        /// The p-value asked for.
        p_value: f64,
        /// The minimal change asked for.
        min_change: f64,
    },
}

/// The fewest points each side of a split holds: with one, the spread within that side is
/// unknown and a single outlier would pass for a level.
const MIN_SIDE: usize = 2;

fn check_order(points: &[Point]) -> Result<(), SeriesError> {
    for (index, pair) in points.windows(2).enumerate() {
        if pair[1].commit < pair[0].commit {
            return Err(SeriesError::Unordered {
                index: index + 1,
                commit: pair[1].commit,
                previous: pair[0].commit,
            });
        }
    }
    Ok(())
}

/// The change points of a noisy series (rates, time ratios), by E-Divisive means with a
/// permutation test and the minimal change of `knobs` (see the module's documentation), in
/// commit order. The same series and knobs give the same answer every time.
pub fn detect(points: &[Point], knobs: &Detection) -> Result<Vec<ChangePoint>, SeriesError> {
    if !(knobs.p_value > 0.0 && knobs.p_value < 1.0 && knobs.min_change >= 0.0) {
        return Err(SeriesError::Knobs {
            p_value: knobs.p_value,
            min_change: knobs.min_change,
        });
    }
    check_order(points)?;
    if let Some((index, p)) = points
        .iter()
        .enumerate()
        .find(|(_, p)| !(p.value.is_finite() && p.value > 0.0))
    {
        return Err(SeriesError::NotPositive {
            index,
            commit: p.commit,
            value: p.value,
        });
    }
    let logs: Vec<f64> = points.iter().map(|p| p.value.ln()).collect();
    let commits: Vec<usize> = points.iter().map(|p| p.commit).collect();
    let mut scan = Scan::default();
    // Each segment's best split, by (from, to): a cut changes only the segment it falls in,
    // so the others' are not searched again.
    let mut best_of: BTreeMap<(usize, usize), Option<(usize, f64)>> = BTreeMap::new();
    // Each change point as (the index of its first point after, its p-value).
    let mut cuts: Vec<(usize, f64)> = Vec::new();
    loop {
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c.0).collect();
        bounds.push(0);
        bounds.push(points.len());
        bounds.sort_unstable();
        let best = bounds
            .windows(2)
            .filter_map(|w| {
                let (from, to) = (w[0], w[1]);
                let split = *best_of.entry((from, to)).or_insert_with(|| {
                    scan.load(&logs[from..to]);
                    scan.best(&commits[from..to], None)
                });
                split.map(|(t, q)| (from, to, t, q))
            })
            .max_by(|a, b| a.3.total_cmp(&b.3));
        let Some((from, to, t, q)) = best else { break };
        let p = permutation_p(
            &mut scan,
            &logs[from..to],
            &commits[from..to],
            q,
            knobs,
            from,
            to,
        );
        if p > knobs.p_value {
            break;
        }
        best_of.remove(&(from, to));
        cuts.push((from + t, p));
    }
    cuts.sort_unstable_by_key(|c| c.0);
    let limit = (1.0 + knobs.min_change).ln();
    loop {
        let changes = measured(points, &cuts);
        let smallest = changes
            .iter()
            .enumerate()
            .filter(|(_, c)| c.ratio().ln().abs() < limit)
            .min_by(|a, b| a.1.ratio().ln().abs().total_cmp(&b.1.ratio().ln().abs()));
        match smallest {
            Some((i, _)) => {
                cuts.remove(i);
            }
            None => return Ok(changes),
        }
    }
}

/// The change points at `cuts` (each the index of its first point after, with its
/// p-value), each measured against the segments on either side.
fn measured(points: &[Point], cuts: &[(usize, f64)]) -> Vec<ChangePoint> {
    let mean = |from: usize, to: usize| {
        points[from..to].iter().map(|p| p.value).sum::<f64>() / (to - from) as f64
    };
    (0..cuts.len())
        .map(|i| {
            let start = if i == 0 { 0 } else { cuts[i - 1].0 };
            let end = cuts.get(i + 1).map_or(points.len(), |c| c.0);
            let at = cuts[i].0;
            ChangePoint {
                before: points[at - 1].commit,
                after: points[at].commit,
                mean_before: mean(start, at),
                mean_after: mean(at, end),
                p_value: Some(cuts[i].1),
            }
        })
        .collect()
}

/// A segment's values in the order scanned (as recorded, or permuted), and the sums a scan
/// of their splits needs. Its buffers are reused from one permutation to the next: a
/// table of every pair's distances, made anew for each of thousands of permutations, was
/// what made a check of thousands of commits take minutes (issue 38).
#[derive(Debug, Default)]
struct Scan {
    /// The values, in the order scanned.
    values: Vec<f64>,
    /// `to_earlier[j]`: the summed distances from point `j` to the points before it.
    to_earlier: Vec<f64>,
    /// `to_left[j]`: the summed distances from point `j` to the first `t` points, for the
    /// split at `t` being scored.
    to_left: Vec<f64>,
    /// `within_first[t]`: the summed distances within the first `t` points, added in any
    /// order (for [`Scan::reaches`]).
    within_first: Vec<f64>,
    /// `between[j]`: the summed distances between the first `t` points and those from `t`
    /// to `j`, added in any order (for [`Scan::reaches`]).
    between: Vec<f64>,
    /// `1 / (k - 1)` by the second side's size `k`.
    per_size: Vec<f64>,
    /// `k` by `k`, as a float.
    sizes: Vec<f64>,
    /// Half the bar times the points up to each end: what a bound is compared with.
    bar_at: Vec<f64>,
    /// How many exact scans ([`Scan::best`]) were made: what a test of thousands of
    /// permutations must keep to a few.
    exact_scans: usize,
    /// The segment's values with each one's place in their sorted order, shuffled in place
    /// (what `values` is copied from); empty outside a permutation test.
    ranked: Vec<(f64, usize)>,
    /// The segment's values, sorted.
    sorted: Vec<f64>,
    /// Fenwick trees over the sorted places: how many of the points seen so far lie at or
    /// below each, and the sum of their [`Scan::bound`] tails.
    seen: Vec<f64>,
    seen_tails: Vec<f64>,
    /// `sum over gaps g at or above place r of width(g) * (g + 1) / n`, by `r`.
    tail_weighted: Vec<f64>,
}

impl Scan {
    /// Scan `values` next, in their order.
    fn load(&mut self, values: &[f64]) {
        self.values.clear();
        self.values.extend_from_slice(values);
    }

    /// The best split of the loaded values (its index of the first point after, and its
    /// score), over the splits between two commits with [`MIN_SIDE`] points or more on each
    /// side, the score of a split being its best over every end of the second side. With
    /// `enough`, the first split scoring at least that instead: a permutation only has to be
    /// told from the observed order, and stopping there changes no p-value. Every sum is
    /// added in the same order as the scores were first defined in (each distance to the
    /// points before, in their order), so scores and ties come out the same to the last bit.
    fn best(&mut self, commits: &[usize], enough: Option<f64>) -> Option<(usize, f64)> {
        let x = &self.values;
        let n = x.len();
        if n < 2 * MIN_SIDE {
            return None;
        }
        self.exact_scans += 1;
        self.to_earlier.clear();
        self.to_earlier.extend((0..n).map(|j| {
            let mut sum = 0.0;
            for &earlier in &x[..j] {
                sum += (earlier - x[j]).abs();
            }
            sum
        }));
        self.to_left.clear();
        self.to_left.resize(n, 0.0);
        let (to_earlier, to_left) = (&self.to_earlier, &mut self.to_left);
        let pairs = |k: usize| (k * (k - 1) / 2) as f64;
        // The summed distances within the first t points.
        let mut within_left = 0.0;
        let mut best: Option<(usize, f64)> = None;
        for t in 1..=n - MIN_SIDE {
            within_left += to_earlier[t - 1];
            let newest = x[t - 1];
            for (sum, &v) in to_left[t..].iter_mut().zip(&x[t..]) {
                *sum += (newest - v).abs();
            }
            if t < MIN_SIDE || commits[t - 1] == commits[t] {
                continue;
            }
            let m = t as f64;
            // The second side, t..end, grown one point at a time.
            let (mut between, mut within_right) = (0.0, 0.0);
            for end in t..n {
                between += to_left[end];
                within_right += to_earlier[end] - to_left[end];
                let k = end + 1 - t;
                if k < MIN_SIDE || (end + 1 < n && commits[end] == commits[end + 1]) {
                    continue;
                }
                let kf = k as f64;
                let e = 2.0 * between / (m * kf) - within_left / pairs(t) - within_right / pairs(k);
                let q = m * kf / (m + kf) * e;
                if enough.is_some_and(|bar| q >= bar) {
                    return Some((t, q));
                }
                if best.is_none_or(|b| q > b.1) {
                    best = Some((t, q));
                }
            }
        }
        best
    }
}

impl Scan {
    /// Whether some split of the loaded values scores `bar` or more: what a permutation
    /// asks. Most permutations score far below, and telling that does not need every score
    /// to the last bit: each split's score is first bounded with sums added in whatever
    /// order is quickest and no division, and only when a bound comes within the rounding
    /// of both ways of adding of `bar` are the exact scores of [`Scan::best`] made.
    fn reaches(&mut self, commits: &[usize], bar: f64) -> bool {
        let n = self.values.len();
        if n < 2 * MIN_SIDE {
            return false;
        }
        let x = &self.values;
        let (low, high) = x
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                (l.min(v), h.max(v))
            });
        // Every sum here and in `best` adds at most n^2 distances of at most `high - low`
        // each, so each is within n^2 * EPSILON of its own size, itself below n^2 * (high -
        // low); scaled to half a score times n. Wider by 64: a bound that errs is a rescan,
        // never a wrong answer.
        let nf = n as f64;
        let slack = 64.0 * nf.powi(4) * f64::EPSILON * (high - low);
        // The same rounding in a score's units (2 / n of the above), and the bound's own.
        if !self.ranked.is_empty() {
            let bound = self.bound();
            if bound * (1.0 + 1e-9) + 2.0 * slack / nf < bar {
                return false;
            }
        }
        self.prepare(bar);
        self.near_bar(commits, slack)
            && self.best(commits, Some(bar)).is_some_and(|(_, q)| q >= bar)
    }

    /// The tables [`Scan::near_bar`] reads, for the values and `bar`: the sums of distances
    /// within each prefix, and what does not change from one split to the next.
    fn prepare(&mut self, bar: f64) {
        let n = self.values.len();
        let x = &self.values;
        self.within_first.clear();
        self.within_first.push(0.0);
        let mut within = 0.0;
        for j in 0..n {
            within += distances(&x[..j], x[j]);
            self.within_first.push(within);
        }
        self.to_left.clear();
        self.to_left.resize(n, 0.0);
        self.between.resize(n, 0.0);
        // By the second side's size k, and by the end of the second side: what does not
        // change from one split to the next.
        self.per_size.clear();
        self.per_size
            .extend((0..=n).map(|k| if k < 2 { 0.0 } else { 1.0 / (k as f64 - 1.0) }));
        self.sizes.clear();
        self.sizes.extend((0..=n).map(|k| k as f64));
        self.bar_at.clear();
        self.bar_at
            .extend((0..n).map(|end| bar / 2.0 * (end + 1) as f64));
    }

    /// Whether any split between two commits scores within `slack` of the bar (set in
    /// [`Scan::prepare`]): only then is the exact best split worth finding.
    fn near_bar(&mut self, commits: &[usize], slack: f64) -> bool {
        let (n, x) = (self.values.len(), &self.values);
        let (to_left, between) = (&mut self.to_left, &mut self.between);
        let (within_first, per_size, sizes, bar_at) = (
            &self.within_first,
            &self.per_size,
            &self.sizes,
            &self.bar_at,
        );
        for t in 1..=n - MIN_SIDE {
            let newest = x[t - 1];
            let mut sum = 0.0;
            for ((to, b), &v) in to_left[t..].iter_mut().zip(&mut between[t..]).zip(&x[t..]) {
                *to += (newest - v).abs();
                sum += *to;
                *b = sum;
            }
            if t < MIN_SIDE || commits[t - 1] == commits[t] {
                continue;
            }
            // A split's score is 2 / (m + k) * (B - k WL / (m - 1) - m WR / (k - 1)).
            let m = t as f64;
            let left_term = within_first[t] / (m - 1.0);
            let within_before = within_first[t];
            let floor = -slack;
            let ends = between[t + 1..]
                .iter()
                .zip(&within_first[t + 2..])
                .zip(&per_size[MIN_SIDE..])
                .zip(&sizes[MIN_SIDE..])
                .zip(&bar_at[t + 1..]);
            // Or-ed rather than tested one by one: no branch in the loop, which the
            // compiler then does several ends at a time.
            let mut near = false;
            for ((((&b, &w), &inv), &k), &at) in ends {
                let within_right = w - within_before - b;
                let score = b - k * left_term - m * within_right * inv;
                near |= score - at >= floor;
            }
            if near {
                return true;
            }
        }
        false
    }
}

impl Scan {
    /// Scan `values` next, in their order, each with its place in their sorted order, for
    /// [`Scan::bound`].
    fn rank(&mut self, values: &[f64]) {
        self.load(values);
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
        self.sorted.clear();
        self.sorted.extend(order.iter().map(|&i| values[i]));
        self.ranked.clear();
        self.ranked.resize(values.len(), (0.0, 0));
        for (place, &i) in order.iter().enumerate() {
            self.ranked[i] = (values[i], place);
        }
        let n = values.len();
        let gaps = n.saturating_sub(1);
        self.tail_weighted.clear();
        self.tail_weighted.resize(n + 1, 0.0);
        for g in (0..gaps).rev() {
            let width = self.sorted[g + 1] - self.sorted[g];
            self.tail_weighted[g] = self.tail_weighted[g + 1] + width * (g + 1) as f64 / n as f64;
        }
    }

    /// An upper bound of every split's score of the ranked values in their present order,
    /// in O(n log n) where the scores take O(n^2): what tells most permutations of a
    /// segment with a clear change from the observed order without scoring them.
    ///
    /// With F the segment's distribution function, `G_i(z) = i (F_i(z) - F(z))` for the
    /// first `i` points' F_i, `g_i = ||G_i||` (L2 over z) and `w = int max(F, 1 - F)^2`:
    /// a score is `mk/(m+k) * 2 * int (F_L - F_R)^2` less two sums of distances within
    /// the sides (in one dimension), so at most `4 g_m^2 / m + 4 ||G_(m+k) - G_m||^2 / k`
    /// (as `mk/(m+k)` is at most m and k, and `(a - b)^2 <= 2a^2 + 2b^2`); and
    /// `||G_(m+k) - G_m||^2` is at most `k^2 w` and `(2 max g)^2`, so that term is at
    /// most `8 max(g) sqrt(w)` whatever k.
    fn bound(&mut self) -> f64 {
        let n = self.ranked.len();
        if n < 2 {
            return 0.0;
        }
        let nf = n as f64;
        let top = self.sorted[n - 1];
        // Over the gaps between sorted values: the sums of width * F^2 and of width *
        // max(F, 1 - F)^2.
        let (mut flat, mut widest) = (0.0, 0.0);
        for g in 0..n - 1 {
            let f = (g + 1) as f64 / nf;
            let width = self.sorted[g + 1] - self.sorted[g];
            flat += width * f * f;
            widest += width * f.max(1.0 - f).powi(2);
        }
        self.seen.clear();
        self.seen.resize(n + 1, 0.0);
        self.seen_tails.clear();
        self.seen_tails.resize(n + 1, 0.0);
        // Over the gaps, with c(g) the points seen at or below gap g: sum width * c^2
        // and sum width * F * c; g_i^2 = squares - 2 i crossed + i^2 flat.
        let (mut squares, mut crossed, mut all_tails) = (0.0f64, 0.0f64, 0.0f64);
        let (mut most, mut most_per_point) = (0.0f64, 0.0f64);
        for (i, &(_, place)) in self.ranked.iter().enumerate() {
            // The gaps at or above `place` each gain this point.
            let tail = top - self.sorted[place];
            let at_or_below = fenwick_sum(&self.seen, place + 1);
            let above_tails = all_tails - fenwick_sum(&self.seen_tails, place + 1);
            squares += 2.0 * (at_or_below * tail + above_tails) + tail;
            crossed += self.tail_weighted[place];
            fenwick_add(&mut self.seen, place + 1, 1.0);
            fenwick_add(&mut self.seen_tails, place + 1, tail);
            all_tails += tail;
            let seen = (i + 1) as f64;
            let g2 = (squares - 2.0 * seen * crossed + seen * seen * flat).max(0.0);
            most = most.max(g2);
            most_per_point = most_per_point.max(g2 / seen);
        }
        4.0 * most_per_point + 8.0 * most.sqrt() * widest.sqrt()
    }
}

/// The sum of a Fenwick tree's first `i` entries (1-based).
fn fenwick_sum(tree: &[f64], mut i: usize) -> f64 {
    let mut sum = 0.0;
    while i > 0 {
        sum += tree[i];
        i &= i - 1;
    }
    sum
}

/// Add `v` to a Fenwick tree's entry `i` (1-based).
fn fenwick_add(tree: &mut [f64], mut i: usize, v: f64) {
    while i < tree.len() {
        tree[i] += v;
        i += i & i.wrapping_neg();
    }
}

/// The summed distances from `v` to each of `xs`, in several sums at once (that the
/// compiler makes one vector operation).
fn distances(xs: &[f64], v: f64) -> f64 {
    let mut sums = [0.0; 8];
    let chunks = xs.chunks_exact(8);
    let rest: f64 = chunks.remainder().iter().map(|&a| (a - v).abs()).sum();
    for chunk in chunks {
        for (sum, &a) in sums.iter_mut().zip(chunk) {
            *sum += (a - v).abs();
        }
    }
    sums.iter().sum::<f64>() + rest
}

/// The permutation p-value of a segment's best score `observed`: (1 + permutations scoring
/// at least as high) / (1 + permutations). Stops early once the split cannot pass.
fn permutation_p(
    scan: &mut Scan,
    x: &[f64],
    commits: &[usize],
    observed: f64,
    knobs: &Detection,
    from: usize,
    to: usize,
) -> f64 {
    let runs = knobs.permutations();
    // More than this many as high and the p-value is above the threshold whatever follows.
    let fails = (knobs.p_value * (runs + 1) as f64).floor() as usize;
    // Each segment its own stream: the answer does not depend on the order tests are made.
    let mut rng = Rng::for_index(knobs.seed, splitmix64(from as u64) ^ to as u64);
    // Shuffled in place, one permutation after the other, as an order of indices would be.
    scan.rank(x);
    let mut as_high = 0usize;
    // A score equal to the observed one up to rounding counts as as high.
    let bar = observed - observed.abs() * 1e-12;
    for done in 1..=runs {
        rng.shuffle(&mut scan.ranked);
        scan.values.clear();
        scan.values.extend(scan.ranked.iter().map(|r| r.0));
        if scan.reaches(commits, bar) {
            as_high += 1;
            if as_high > fails {
                scan.ranked.clear();
                return (1 + as_high) as f64 / (1 + done) as f64;
            }
        }
    }
    scan.ranked.clear();
    (1 + as_high) as f64 / (1 + runs) as f64
}

/// The changes of a deterministic series (nodes, guesses per puzzle): every pair of
/// consecutive points whose values differ, in order. Values may be 0 (a ratio from 0 is
/// infinite).
pub fn exact_changes(points: &[Point]) -> Result<Vec<ChangePoint>, SeriesError> {
    check_order(points)?;
    Ok(points
        .windows(2)
        .filter(|w| w[0].value != w[1].value)
        .map(|w| ChangePoint {
            before: w[0].commit,
            after: w[1].commit,
            mean_before: w[0].value,
            mean_after: w[1].value,
            p_value: None,
        })
        .collect())
}

/// The changes of a series of instruction counts per puzzle: nearly exact (a solver that
/// allocates may vary by a few instructions in a million from run to run), so judged
/// against a threshold rather than by statistics. A level is set by the first point; a
/// point that departs from it by more than `threshold` either way (a ratio past
/// `1 + threshold` or under `1 / (1 + threshold)`) is a change from the point before it,
/// and sets the level anew. A point within it leaves the level where it was, so that a
/// creep of steps each under the threshold is reported once their sum passes it.
pub fn threshold_changes(
    points: &[Point],
    threshold: f64,
) -> Result<Vec<ChangePoint>, SeriesError> {
    check_order(points)?;
    let bar = (1.0 + threshold).ln();
    let mut changes = Vec::new();
    let Some(first) = points.first() else {
        return Ok(changes);
    };
    let mut level = first.value;
    for w in points.windows(2) {
        let moved = (w[1].value / level).ln().abs();
        if moved > bar {
            changes.push(ChangePoint {
                before: w[0].commit,
                after: w[1].commit,
                mean_before: level,
                mean_after: w[1].value,
                p_value: None,
            });
            level = w[1].value;
        }
    }
    Ok(changes)
}

#[cfg(test)]
mod tests;
