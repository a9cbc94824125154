//! A small test harness for test files whose tests may have to be skipped (a tool missing on
//! this machine): libtest counts a test that returns early as passed and shows its notice only
//! with `--nocapture`, so such files set `harness = false` and run their tests here. A skipped
//! test is shown as skipped with its reason and counted in the summary; where `CI` is set a
//! skip is a failure, since CI must run every test.
//!
//! Arguments: a name filter (substring, as libtest's), `--exact`, `--list`; libtest's other
//! flags are accepted and ignored.

use std::cell::RefCell;
use std::io::Write;
use std::process::ExitCode;

/// One test: its name and body. The body panics to fail and calls [`skip`] (then returns) to
/// be skipped.
pub type Test = (&'static str, fn());

thread_local! {
    /// The reason the running test was skipped, if it was.
    static SKIPPED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Skips the running test for `why` (the caller returns right after). Panics where `CI` is set.
pub fn skip(why: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("this test cannot be skipped where CI is set: {why}");
    }
    SKIPPED.with(|s| *s.borrow_mut() = Some(why.to_string()));
}

/// libtest's flags that take a value, skipped with it.
const FLAGS_WITH_VALUES: [&str; 7] = [
    "--test-threads",
    "--skip",
    "--format",
    "--color",
    "--logfile",
    "--shuffle-seed",
    "-Z",
];

/// Runs the `tests` the command line selects, one after another, and prints each outcome and a
/// summary as libtest does, with the skips counted apart. Fails if one fails.
pub fn run(tests: &[Test]) -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut filter, mut exact, mut list) = (None, false, false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--exact" => exact = true,
            "--list" => list = true,
            flag if FLAGS_WITH_VALUES.contains(&flag) => {
                args.next();
            }
            flag if flag.starts_with('-') => {}
            name => filter = Some(name.to_string()),
        }
    }
    let chosen: Vec<&Test> = tests
        .iter()
        .filter(|(name, _)| {
            filter
                .as_deref()
                .is_none_or(|f| if exact { *name == f } else { name.contains(f) })
        })
        .collect();
    if list {
        for (name, _) in &chosen {
            println!("{name}: test");
        }
        return ExitCode::SUCCESS;
    }
    println!("\nrunning {} tests", chosen.len());
    let (mut passed, mut failed, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
    for &&(name, body) in &chosen {
        SKIPPED.with(|s| s.borrow_mut().take());
        let outcome = std::panic::catch_unwind(body);
        let skip = SKIPPED.with(|s| s.borrow_mut().take());
        match (outcome, skip) {
            (Err(_), _) => {
                println!("test {name} ... FAILED");
                failed.push(name);
            }
            (Ok(()), Some(why)) => {
                println!("test {name} ... SKIPPED: {why}");
                skipped.push(name);
            }
            (Ok(()), None) => {
                println!("test {name} ... ok");
                passed.push(name);
            }
        }
        let _ = std::io::stdout().flush();
    }
    if !failed.is_empty() {
        println!("\nfailures:");
        for name in &failed {
            println!("    {name}");
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed; {} skipped (not run here: see above)\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        passed.len(),
        failed.len(),
        skipped.len()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
