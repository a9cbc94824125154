//! Command-line mistakes (an unknown flag, a missing argument, a value out of range) in one line,
//! as every other error of `throng` is, instead of clap's block of error, tip, usage and "for
//! more information" lines.

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// Whether `err` is help or version output (printed as clap prints it) rather than a mistake.
pub(crate) fn is_help(err: &clap::Error) -> bool {
    matches!(
        err.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    )
}

/// The mistake in one line, without the leading `error: `: `--ticks -1: must be at least 1` for a
/// value a flag's parser refused, otherwise clap's message with its indented details and tips
/// joined on.
pub(crate) fn one_line(err: &clap::Error) -> String {
    if err.kind() == ErrorKind::ValueValidation
        && let (Some(ContextValue::String(arg)), Some(ContextValue::String(value)), Some(why)) = (
            err.get(ContextKind::InvalidArg),
            err.get(ContextKind::InvalidValue),
            std::error::Error::source(err),
        )
    {
        let flag = arg.split_whitespace().next().unwrap_or(arg);
        return format!("{flag} {value}: {why}");
    }
    let text = err.render().to_string();
    let mut line = String::new();
    let mut tips = Vec::new();
    for raw in text.lines() {
        let l = raw.trim();
        if l.is_empty() || l.starts_with("Usage:") || l.starts_with("For more information") {
            continue;
        }
        if let Some(tip) = l.strip_prefix("tip: ") {
            tips.push(tip.to_string());
        } else if line.is_empty() {
            line = l.strip_prefix("error: ").unwrap_or(l).to_string();
        } else {
            let sep = if line.ends_with(':') || l.starts_with('[') {
                " "
            } else {
                ", "
            };
            line.push_str(sep);
            line.push_str(l);
        }
    }
    if !tips.is_empty() {
        line.push_str(&format!(" ({})", tips.join("; ")));
    }
    line
}
