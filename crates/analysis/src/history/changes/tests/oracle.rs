//! The detection as it was before issue 38 (a table of n x n distances made anew for every
//! permutation), kept verbatim as the oracle the faster one must agree with exactly: same
//! change points, same p-values, with the same seed.

use super::super::*;

/// The change points of a noisy series (rates, time ratios), by E-Divisive means with a
/// permutation test and the minimal change of `knobs` (see the module's documentation), in
/// commit order. The same series and knobs give the same answer every time.
pub(super) fn detect(points: &[Point], knobs: &Detection) -> Result<Vec<ChangePoint>, SeriesError> {
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
                best_split(&logs[from..to], &commits[from..to]).map(|(t, q)| (from, to, t, q))
            })
            .max_by(|a, b| a.3.total_cmp(&b.3));
        let Some((from, to, t, q)) = best else { break };
        let p = permutation_p(&logs[from..to], &commits[from..to], q, knobs, from, to);
        if p > knobs.p_value {
            break;
        }
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

/// The best split of a segment (its index of the first point after, and its score), over
/// the splits between two commits with [`MIN_SIDE`] points or more on each side.
fn best_split(x: &[f64], commits: &[usize]) -> Option<(usize, f64)> {
    let order: Vec<usize> = (0..x.len()).collect();
    scores(x, &order, commits)
}

/// The best split of the values `x[order[0]], x[order[1]], ...` (the segment's values in
/// that order; splits are allowed where `commits` changes, whatever the order of values):
/// the first point after it, and its score over every end `k` of the second side.
fn scores(x: &[f64], order: &[usize], commits: &[usize]) -> Option<(usize, f64)> {
    let n = order.len();
    if n < 2 * MIN_SIDE {
        return None;
    }
    // before[j][i]: the summed distances from point j to the points before i (i <= j), so
    // that any block of distances is a few lookups.
    let mut before = vec![vec![0.0; n + 1]; n];
    for (j, row) in before.iter_mut().enumerate() {
        for i in 0..n {
            row[i + 1] = row[i] + (x[order[i]] - x[order[j]]).abs();
        }
    }
    // Within the first t points.
    let mut within_left = vec![0.0; n + 1];
    for t in 1..=n {
        within_left[t] = within_left[t - 1] + before[t - 1][t - 1];
    }
    let pairs = |k: usize| (k * (k - 1) / 2) as f64;
    let mut best: Option<(usize, f64)> = None;
    for t in (MIN_SIDE..=n - MIN_SIDE).filter(|&t| commits[t - 1] != commits[t]) {
        let m = t as f64;
        // The second side, t..end, grown one point at a time.
        let (mut between, mut within_right) = (0.0, 0.0);
        for end in t..n {
            between += before[end][t];
            within_right += before[end][end] - before[end][t];
            let k = end + 1 - t;
            if k < MIN_SIDE || (end + 1 < n && commits[end] == commits[end + 1]) {
                continue;
            }
            let kf = k as f64;
            let e = 2.0 * between / (m * kf) - within_left[t] / pairs(t) - within_right / pairs(k);
            let q = m * kf / (m + kf) * e;
            if best.is_none_or(|b| q > b.1) {
                best = Some((t, q));
            }
        }
    }
    best
}

/// The permutation p-value of a segment's best score `observed`: (1 + permutations scoring
/// at least as high) / (1 + permutations). Stops early once the split cannot pass.
fn permutation_p(
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
    let mut order: Vec<usize> = (0..x.len()).collect();
    let mut as_high = 0usize;
    // A score equal to the observed one up to rounding counts as as high.
    let bar = observed - observed.abs() * 1e-12;
    for done in 1..=runs {
        rng.shuffle(&mut order);
        if scores(x, &order, commits).is_some_and(|(_, q)| q >= bar) {
            as_high += 1;
            if as_high > fails {
                return (1 + as_high) as f64 / (1 + done) as f64;
            }
        }
    }
    (1 + as_high) as f64 / (1 + runs) as f64
}
