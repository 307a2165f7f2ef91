//! `Shard`: the K-th of N parts of a corpus, K counted from 1 (as `cargo nextest
//! --partition count:K/N` counts). Every line of a corpus belongs to exactly one part,
//! whatever N, and keeps its line number in it.

use serde::{Deserialize, Serialize};

/// The `index`-th of `count` parts (1 <= index <= count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shard {
    /// K, from 1.
    pub index: u32,
    /// N, at least 1.
    pub count: u32,
}

impl Shard {
    /// The whole corpus: part 1 of 1.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Part `index` of `count`; `None` unless 1 <= index <= count.
    pub fn new(index: u32, count: u32) -> Option<Shard> {
        (1..=count)
            .contains(&index)
            .then_some(Shard { index, count })
    }

    /// True when 1-based `line` is in this part of a round-robin split: line L goes to
    /// part ((L - 1) mod N) + 1.
    #[inline(always)]
    pub fn holds(self, line: u64) -> bool {
        line.saturating_sub(1) % u64::from(self.count.max(1))
            == u64::from(self.index.saturating_sub(1))
    }

    /// The byte range [start, end) of this part of `size` bytes: part K takes the lines
    /// whose first byte lies in [floor((K-1)S/N), floor(KS/N)).
    pub fn byte_range(self, size: u64) -> (u64, u64) {
        // Fields are public (and deserialised): a part out of range must not panic here.
        let at = |k: u32| (u128::from(size) * u128::from(k) / u128::from(self.count.max(1))) as u64;
        (at(self.index.saturating_sub(1)), at(self.index))
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `K/N`, as `--shard` takes it.
    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("{s:?} is not K/N (e.g. 3/8: the third of 8 parts)"))?;
        let number = |what: &str, text: &str| {
            text.trim()
                .parse::<u32>()
                .map_err(|e| format!("{s:?}: {what} {text:?} is not a whole number ({e})"))
        };
        let (k, n) = (number("K", k)?, number("N", n)?);
        Shard::new(k, n).ok_or_else(|| match n {
            0 => format!("{s:?}: N must be 1 or more (the number of parts)"),
            _ => format!("{s:?}: K must be from 1 to N (parts are counted from 1, as in 1/{n})"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k_of_n_from_one() {
        assert_eq!("3/8".parse(), Ok(Shard { index: 3, count: 8 }));
        assert_eq!("1/1".parse(), Ok(Shard::WHOLE));
        for bad in ["0/8", "9/8", "0/0", "3", "a/8", "3/", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(
            "1/0".parse::<Shard>(),
            Err("\"1/0\": N must be 1 or more (the number of parts)".to_string())
        );
        assert!("9/8".parse::<Shard>().unwrap_err().contains("as in 1/8"));
        assert_eq!(Shard { index: 2, count: 7 }.to_string(), "2/7");
    }
}
