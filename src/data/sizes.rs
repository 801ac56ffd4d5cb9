//! Size arithmetic for the loaders' memory estimates.

/// The product of `factors` in bytes, saturating (for size estimates that
/// are then compared with a limit).
pub(crate) fn product(factors: &[u64]) -> u128 {
    factors
        .iter()
        .fold(1u128, |a, &f| a.saturating_mul(u128::from(f)))
}

/// What a feature name costs, roughly (a `String` and its text).
pub(crate) const NAME_BYTES: u64 = 32;
