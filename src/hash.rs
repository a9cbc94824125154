//! SplitMix64, the one source of cheap deterministic pseudo-randomness for the planners: seeded
//! tie-breaks (PIBT's, the LoRR planners') and the seeded sequences of the neighbourhood search.
//! Well mixed, a few multiplications, the same on every machine and thread count.

/// The increment of a SplitMix64 sequence (the golden ratio in 64 bits).
pub(crate) const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finaliser: every bit of `x` moves about half the bits of the result.
#[inline]
pub(crate) fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The first number of the SplitMix64 sequence seeded with `seed`: a well-mixed hash of `seed`
/// that differs from [`mix64`] of it (0 does not map to 0).
#[inline]
pub(crate) fn splitmix64_first(seed: u64) -> u64 {
    mix64(seed.wrapping_add(GOLDEN_GAMMA))
}

/// The next number of the SplitMix64 sequence whose state is `state` (advanced).
#[inline]
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(GOLDEN_GAMMA);
    mix64(*state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_the_reference_splitmix64() {
        // The first outputs of SplitMix64 seeded with 0 (Vigna's reference implementation).
        let mut state = 0;
        assert_eq!(splitmix64(&mut state), 0xe220_a839_7b1d_cdaf);
        assert_eq!(splitmix64(&mut state), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(splitmix64(&mut state), 0x06c4_5d18_8009_454f);
        assert_eq!(state, GOLDEN_GAMMA.wrapping_mul(3));
        assert_eq!(splitmix64_first(0), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn the_finaliser_spreads_one_bit() {
        for bit in 0..64 {
            let flipped = (mix64(0) ^ mix64(1 << bit)).count_ones();
            assert!((16..=48).contains(&flipped), "bit {bit}: {flipped}");
        }
    }
}
