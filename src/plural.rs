//! A count written with its noun, singular for one: "1 free cell", "2 free cells". Messages
//! and summaries count things this way so that none says "1 components".

use std::fmt;

/// `n` and `noun` (singular, made plural with an `s`), displayed as "1 cell" or "3 cells".
///
/// ```
/// use throng::cli::Counted;
///
/// assert_eq!(Counted(1, "free cell").to_string(), "1 free cell");
/// assert_eq!(Counted(0, "component").to_string(), "0 components");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Counted<'a>(pub u64, pub &'a str);

impl fmt::Display for Counted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Counted(n, noun) = *self;
        write!(f, "{n} {noun}{}", if n == 1 { "" } else { "s" })
    }
}
