//! League of Robot Runners problems: the problem JSON, map, agents and tasks texts, separated
//! by NUL bytes in the input (text files hold none), loaded with `Problem::from_texts`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use throng::lorr::Problem;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(4, '\0');
    let (json, map, agents, tasks) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
    );
    match Problem::from_texts(json, map, agents, tasks, "dir/FUZZ.json") {
        Ok(problem) => {
            let grid = &problem.grid;
            assert!(!problem.starts.is_empty() && problem.reveal >= 1);
            assert!(problem.starts.iter().all(|&c| grid.is_walkable(c)));
            assert!(!problem.tasks.is_empty());
            assert!(problem.tasks.iter().flatten().all(|&c| grid.is_walkable(c)));
        }
        // Starts with a file name: the JSON's label, or a file it names (joined to "dir/"
        // unless the JSON gives an absolute path, as Path::join does). Not checked: that it is
        // one line, since a name in the JSON may hold a newline and is printed as given.
        Err(e) => {
            let message = e.to_string();
            assert!(
                message.starts_with("dir/") || message.starts_with('/'),
                "{message}"
            );
        }
    }
});
