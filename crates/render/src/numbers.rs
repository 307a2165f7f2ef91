//! The one set of number and duration formats every output uses. Three ways to write a
//! duration, each for its place: `duration` (the summary's fixed three decimals, "2.500
//! ms"), `short_duration` (three significant digits, for the terminal table and the report
//! page, "296 ms") and `tick_duration` (a plot axis's tick, as many decimals as the ticks'
//! step needs, "1.5 s").

/// A rate with thousands separators and no false precision.
pub fn rate(per_s: f64) -> String {
    if per_s >= 100.0 {
        thousands(per_s.round() as u64)
    } else {
        format!("{per_s:.1}")
    }
}

/// `n` with commas between groups of three digits.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Nanoseconds in the unit that keeps 3 significant digits.
pub fn duration(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.3} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.3} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

/// `x` with 3 significant digits, scaled by k, M or G past 999: "9.75", "647", "12.4k".
pub fn significant(x: f64) -> String {
    scaled(x, &[(1.0, ""), (1e3, "k"), (1e6, "M"), (1e9, "G")])
}

/// Nanoseconds with 3 significant digits in the unit that keeps them under 1000 (seconds
/// past that): "850 ns", "7.91 µs", "296 ms", "1.28 s".
pub fn short_duration(ns: f64) -> String {
    if ns < 999.5 {
        // Whole nanoseconds: the clock has no finer grain.
        return format!("{ns:.0} ns");
    }
    scaled(ns, &[(1.0, " ns"), (1e3, " µs"), (1e6, " ms"), (1e9, " s")])
}

/// `x` / the first scale that keeps it under 1000 once rounded to 3 significant digits,
/// with that scale's suffix; the last scale takes any size.
fn scaled(x: f64, scales: &[(f64, &str)]) -> String {
    for (k, (scale, suffix)) in scales.iter().enumerate() {
        let v = x / scale;
        // The bounds are where rounding would carry into one more digit.
        let digits = if v.abs() < 9.995 {
            2
        } else if v.abs() < 99.95 {
            1
        } else if v.abs() < 999.5 || k + 1 == scales.len() {
            0
        } else {
            continue;
        };
        return format!("{v:.digits$}{suffix}");
    }
    format!("{x}")
}

/// A tick's value (as many decimals as its `step` needs): 1,500,000 as "1.5M", 0.25 as "0.25", 1e-7 as "1e-7": short enough for a tick.
pub(crate) fn tick_number(value: f64, step: f64) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    if !value.is_finite() {
        return if value > 0.0 { "∞" } else { "-∞" }.to_string();
    }
    let size = value.abs();
    if !(1e-3..1e15).contains(&size) {
        return trim_zeros(&format!("{value:.2e}"));
    }
    let (unit, suffix) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(unit, _)| size >= *unit)
        .unwrap_or((1.0, ""));
    format!("{}{suffix}", step_scaled(value / unit, step / unit))
}

/// A tick's value in nanoseconds, in the largest unit it reaches (as many decimals as the
/// tick's `step` needs): "3 ns", "250 µs", "1.5 s".
pub(crate) fn tick_duration(nanos: f64, step: f64) -> String {
    if nanos == 0.0 {
        return "0".to_string();
    }
    let size = nanos.abs();
    if size >= 1e15 {
        return format!("{} s", tick_number(nanos / 1e9, step / 1e9));
    }
    let (unit, suffix) = [(1e9, "s"), (1e6, "ms"), (1e3, "µs")]
        .into_iter()
        .find(|(unit, _)| size >= *unit)
        .unwrap_or((1.0, "ns"));
    format!("{} {suffix}", step_scaled(nanos / unit, step / unit))
}

/// `value` with as many decimals as `step` needs (at most 6), trailing zeros dropped.
fn step_scaled(value: f64, step: f64) -> String {
    let decimals = if step > 0.0 && step.is_finite() {
        (-step.log10() - 1e-9).ceil().clamp(0.0, 6.0) as usize
    } else {
        3
    };
    trim_zeros(&format!("{value:.decimals$}"))
}

/// "2.50" as "2.5", "2.00" as "2", "1.50e3" as "1.5e3"; "-0" as "0".
fn trim_zeros(text: &str) -> String {
    let (mantissa, exponent) = match text.find('e') {
        Some(at) => text.split_at(at),
        None => (text, ""),
    };
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    let mantissa = if mantissa == "-0" { "0" } else { mantissa };
    format!("{mantissa}{exponent}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_readable() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
        assert_eq!(rate(12.345), "12.3");
        assert_eq!(rate(304_000.4), "304,000");
        assert_eq!(duration(850.0), "850 ns");
        assert_eq!(duration(12_345.0), "12.345 µs");
        assert_eq!(duration(2_500_000.0), "2.500 ms");
        assert_eq!(duration(3e9), "3.000 s");
        assert_eq!(short_duration(850.0), "850 ns");
        assert_eq!(short_duration(999.6), "1.00 µs");
        assert_eq!(short_duration(7_907.0), "7.91 µs");
        assert_eq!(short_duration(296_485_000.0), "296 ms");
        assert_eq!(short_duration(999_600_000.0), "1.00 s");
        assert_eq!(short_duration(1_283e6), "1.28 s");
        assert_eq!(short_duration(4_000e9), "4000 s");
        assert_eq!(significant(9.75), "9.75");
        assert_eq!(significant(9.996), "10.0");
        assert_eq!(significant(647.1), "647");
        assert_eq!(significant(999.7), "1.00k");
        assert_eq!(significant(12_388.5), "12.4k");
        assert_eq!(significant(426_864.2), "427k");
        assert_eq!(significant(2.5e12), "2500G");
    }
}
