//! The help texts laid out for an 80-column terminal.
//!
//! Clap without its `wrap_help` feature (which needs a terminal-size crate) prints each
//! paragraph of a doc comment as one line, hundreds of columns wide. [`lay_out`] wraps every
//! about text and flag help of the command tree at 80 columns, keeping paragraph breaks, and
//! puts each flag's help under the flag, indented, so the width does not depend on the longest
//! flag name.

use clap::Command;

/// Columns of the help text.
const WIDTH: usize = 80;
/// Where clap indents a flag's help when it is put under the flag.
const FLAG_HELP_INDENT: usize = 10;

/// `cmd` and its subcommands with every help text wrapped to [`WIDTH`] columns.
pub(crate) fn lay_out(mut cmd: Command) -> Command {
    if let Some(about) = cmd.get_about().map(|t| wrap(&t.to_string(), WIDTH)) {
        cmd = cmd.about(about);
    }
    if let Some(about) = cmd.get_long_about().map(|t| wrap(&t.to_string(), WIDTH)) {
        cmd = cmd.long_about(about);
    }
    if let Some(text) = cmd.get_after_help().map(|t| wrap(&t.to_string(), WIDTH)) {
        cmd = cmd.after_help(text);
    }
    let leaf = cmd.get_subcommands().next().is_none();
    cmd = cmd
        .mut_args(|mut arg| {
            let width = WIDTH - FLAG_HELP_INDENT;
            // Clap appends " [default: N]" after the text, past any wrapping: the default goes
            // into the text instead, so that it is wrapped with it.
            let default = default_suffix(&arg);
            if default.is_some() {
                arg = arg.hide_default_value(true);
            }
            let suffix = default.unwrap_or_default();
            if let Some(help) = arg.get_help().map(|h| wrap(&format!("{h}{suffix}"), width)) {
                arg = arg.help(help);
            }
            if let Some(help) = arg
                .get_long_help()
                .map(|h| wrap(&format!("{h}{suffix}"), width))
            {
                arg = arg.long_help(help);
            }
            arg
        })
        .mut_subcommands(lay_out);
    // A command's flags: each help under its flag. The list of subcommands keeps one line each.
    if leaf {
        cmd = cmd.next_line_help(true);
    }
    cmd
}

/// `" [default: VALUE]"` as clap would print it after `arg`'s help, if it prints one.
fn default_suffix(arg: &clap::Arg) -> Option<String> {
    let values = arg.get_default_values();
    if values.is_empty() || arg.is_hide_default_value_set() || !arg.get_action().takes_values() {
        return None;
    }
    let values: Vec<_> = values.iter().map(|v| v.to_string_lossy()).collect();
    Some(format!(" [default: {}]", values.join(", ")))
}

/// `text` with every line longer than `width` broken at spaces (a word longer than `width`
/// stays whole); existing line breaks, blank lines included, are kept.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / width);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut column = 0;
        for word in line.split(' ').filter(|w| !w.is_empty()) {
            let len = word.chars().count();
            if column > 0 && column + 1 + len > width {
                out.push('\n');
                column = 0;
            } else if column > 0 {
                out.push(' ');
                column += 1;
            }
            out.push_str(word);
            column += len;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_long_lines_and_keeps_paragraphs() {
        let text = "one two three four five six\n\nseven eight";
        assert_eq!(
            wrap(text, 10),
            "one two\nthree four\nfive six\n\nseven\neight"
        );
        assert_eq!(
            wrap("averyveryverylongword x", 5),
            "averyveryverylongword\nx"
        );
        assert_eq!(wrap("", 10), "");
    }
}
