//! Value parsers for the numeric flags of every subcommand, with the flag's real bounds.
//!
//! Each flag that takes a number uses one of these; negative numbers reach them (the command
//! line takes a negative number as an option's value, see `command_line` in main.rs), so that
//! `--ticks -1` says "--ticks -1: must be at least 1". The messages give the bound the command
//! really needs, not the type's.

use std::fmt::Display;

/// A whole number from `min` to `max` (both included), of any unsigned type.
pub(crate) fn whole_in<T>(min: T, max: T) -> impl Fn(&str) -> Result<T, String> + Clone
where
    T: Copy + Display + TryFrom<i128> + Into<u128> + Send + Sync + 'static,
{
    move |text: &str| {
        let value: i128 = text
            .trim()
            .parse()
            .map_err(|_| "must be a whole number".to_string())?;
        if value < 0 || (value as u128) < min.into() {
            return Err(format!("must be at least {min}"));
        }
        if value as u128 > max.into() {
            return Err(format!("must be at most {max}"));
        }
        T::try_from(value).map_err(|_| format!("must be at most {max}"))
    }
}

/// A whole number of at least `min`, up to the largest of its type.
pub(crate) fn whole_from<T>(min: T) -> impl Fn(&str) -> Result<T, String> + Clone
where
    T: Copy + Display + TryFrom<i128> + Into<u128> + Bounded + Send + Sync + 'static,
{
    whole_in(min, T::MAX)
}

/// The largest value of an unsigned type.
pub(crate) trait Bounded {
    /// The largest value.
    const MAX: Self;
}

macro_rules! bounded {
    ($($t:ty),*) => {$(impl Bounded for $t { const MAX: Self = <$t>::MAX; })*};
}
bounded!(u16, u32, u64);

/// `usize` has no `Into<u128>`: counts of things (agents, queries, threads) parse as `u64` and
/// are converted here, after the check.
pub(crate) fn count_from(min: u64) -> impl Fn(&str) -> Result<usize, String> + Clone {
    let parse = whole_from(min);
    move |text: &str| {
        let v = parse(text)?;
        usize::try_from(v).map_err(|_| format!("must be at most {}", usize::MAX))
    }
}

/// A count from `min` to `max` (both included), as [`count_from`] parses it.
pub(crate) fn count_in(min: u64, max: usize) -> impl Fn(&str) -> Result<usize, String> + Clone {
    let parse = whole_in(min, max as u64);
    move |text: &str| parse(text).map(|v| v as usize)
}

/// A positive, finite number of seconds.
pub(crate) fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err("must be a positive number of seconds".to_string()),
    }
}

/// A fraction from 0 (included) to 1 (excluded).
pub(crate) fn fraction_below_one(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if (0.0..1.0).contains(&v) => Ok(v),
        _ => Err("must be a number from 0 to below 1".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_name_the_real_bound() {
        let ticks = whole_from(1u64);
        assert_eq!(ticks("7"), Ok(7));
        assert_eq!(ticks("-1").unwrap_err(), "must be at least 1");
        assert_eq!(ticks("0").unwrap_err(), "must be at least 1");
        assert_eq!(ticks("x").unwrap_err(), "must be a whole number");
        assert_eq!(ticks("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            ticks("18446744073709551616").unwrap_err(),
            "must be at most 18446744073709551615"
        );
        let size = whole_in(16u32, 8192);
        assert_eq!(size("15").unwrap_err(), "must be at least 16");
        assert_eq!(size("8193").unwrap_err(), "must be at most 8192");
        assert_eq!(whole_from(0u16)("-3").unwrap_err(), "must be at least 0");
        assert_eq!(count_from(1)("12"), Ok(12usize));
        assert_eq!(count_from(1)("0").unwrap_err(), "must be at least 1");
    }

    #[test]
    fn fractions_and_seconds() {
        assert_eq!(positive_seconds("2.5"), Ok(2.5));
        for bad in ["0", "-1", "inf", "NaN", "x"] {
            assert!(positive_seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(fraction_below_one("0"), Ok(0.0));
        for bad in ["1", "1.0", "-0.1", "NaN"] {
            assert!(fraction_below_one(bad).is_err(), "{bad}");
        }
    }
}
