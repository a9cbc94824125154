//! A count written with its noun, singular for one: "1 free cell", "2 free cells". Messages
//! and summaries count things this way so that none says "1 components".

use std::fmt;

/// `n` and `noun` (singular; made plural by the regular English rules: "cells", "queries",
/// "boxes"), displayed as "1 cell" or "3 cells".
///
/// ```
/// use throng::cli::Counted;
///
/// assert_eq!(Counted(1, "free cell").to_string(), "1 free cell");
/// assert_eq!(Counted(0, "component").to_string(), "0 components");
/// assert_eq!(Counted(2, "query").to_string(), "2 queries");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Counted<'a>(pub u64, pub &'a str);

impl fmt::Display for Counted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Counted(n, noun) = *self;
        if n == 1 {
            return write!(f, "{n} {noun}");
        }
        let vowel_before_y = noun
            .strip_suffix('y')
            .and_then(|stem| stem.chars().last())
            .map(|c| "aeiou".contains(c));
        match vowel_before_y {
            Some(false) => write!(f, "{n} {}ies", &noun[..noun.len() - 1]),
            _ if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) => {
                write!(f, "{n} {noun}es")
            }
            _ => write!(f, "{n} {noun}s"),
        }
    }
}
