//! The crate's one random number generator: xoshiro256** seeded by SplitMix64, written
//! out rather than taken from a crate so that its streams never change with a dependency
//! upgrade. Generated corpora, `--permute`'s grids and `compare`'s bootstrap all draw from
//! it, so the same seed gives the same bytes and the same intervals on every machine.

/// SplitMix64's output function: a bijective 64-bit mixer.
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// xoshiro256**: small, fast, and fully specified, so its streams never change.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The stream for item `index` (a generated puzzle, a corpus line) of `seed`: each
    /// item its own stream, whatever order the items are met in.
    pub fn for_index(seed: u64, index: u64) -> Rng {
        Rng::from_seed(seed ^ splitmix64(index))
    }

    /// Seed the four state words from SplitMix64, as the xoshiro authors recommend (never
    /// all zero).
    pub fn from_seed(seed: u64) -> Rng {
        let mut x = seed;
        let mut s = [0u64; 4];
        for word in &mut s {
            *word = splitmix64(x);
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        }
        Rng { s }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..n` (`n > 0`), by Lemire's multiply-and-reject: no modulo bias.
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        let n = n as u64;
        loop {
            let m = (self.next_u64() >> 32) * n;
            if (m as u32 as u64) >= (1u64 << 32) % n {
                return (m >> 32) as u32;
            }
        }
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_values() {
        // First outputs of the reference SplitMix64 generator seeded with 0.
        let mut x = 0u64;
        let mut next = || {
            let out = splitmix64(x);
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            out
        };
        assert_eq!(next(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(next(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = Rng::from_seed(7);
        let mut seen = [0u32; 9];
        for _ in 0..9000 {
            seen[rng.below(9) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
    }
}
