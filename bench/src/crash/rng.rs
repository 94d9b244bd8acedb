//! The scenario's one source of randomness: SplitMix64 from the run's seed, so a run (the
//! workload, the kill points, the delays) is reproduced from its seed alone, whatever crate
//! versions are in the lock file.

#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut mixed = self.state;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        mixed ^ (mixed >> 31)
    }

    /// A number in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound.max(1)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_sequence_and_another_seed_another() {
        let first: Vec<u64> = (0..8)
            .map({
                let mut rng = Rng::new(42);
                move |_| rng.next_u64()
            })
            .collect();
        let again: Vec<u64> = (0..8)
            .map({
                let mut rng = Rng::new(42);
                move |_| rng.next_u64()
            })
            .collect();
        let other: Vec<u64> = (0..8)
            .map({
                let mut rng = Rng::new(43);
                move |_| rng.next_u64()
            })
            .collect();
        assert_eq!(first, again);
        assert_ne!(first, other);
    }

    #[test]
    fn below_stays_in_its_range() {
        let mut rng = Rng::new(7);
        assert!((0..1_000).all(|_| rng.below(13) < 13));
    }
}
