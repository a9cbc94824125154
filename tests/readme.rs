//! The READMEs and the pages under `docs/` cannot drift from the binary or from each other:
//! every `throng ...` command they show (the synopsis, the `cargo run --release -- ...` lines,
//! inline commands) names a real subcommand and real flags, its literal values are accepted,
//! the files it names exist; every page under `docs/` is linked from the README, every
//! relative link and `#anchor` resolves, the README stays short, and every shipped scenario
//! file is listed in `sims/README.md`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn throng(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .output()
        .expect("run throng")
}

/// The `throng` arguments of a command line (`throng ...`, `cargo run --release -- ...`,
/// `target/release/throng ...`), without a trailing `# comment`; `None` for other lines.
fn throng_args(line: &str) -> Option<&str> {
    let line = line.trim();
    let line = match line.find(" #") {
        Some(i) => &line[..i],
        None => line,
    };
    [
        "throng ",
        "cargo run --release -- ",
        "target/release/throng ",
    ]
    .iter()
    .find_map(|prefix| line.strip_prefix(prefix))
    .map(str::trim)
}

/// Every command shown in `text` (a markdown file): lines of code blocks, and inline code spans,
/// each with its 1-based line number.
fn commands(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line, in_block) in markdown_lines(text) {
        if in_block {
            if let Some(args) = throng_args(line) {
                out.push((n, args.to_string()));
            }
            continue;
        }
        // Inline spans: the odd pieces between backticks.
        for span in line.split('`').skip(1).step_by(2) {
            if let Some(args) = throng_args(span) {
                out.push((n, args.to_string()));
            }
        }
    }
    out
}

/// The lines of a markdown text with their 1-based numbers and whether they are inside a
/// fenced code block; the fence lines themselves are left out.
fn markdown_lines(text: &str) -> Vec<(usize, &str, bool)> {
    let mut in_block = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
        } else {
            out.push((i + 1, line, in_block));
        }
    }
    out
}

/// A placeholder (`N`, `FILE.map`, `OUT.json`, `SCENARIO.toml`) rather than a value to try.
fn is_placeholder(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_uppercase()) && !word.contains('/')
}

/// Checks one shown command; returns what is wrong with it.
fn check(args: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let words: Vec<&str> = args
        .split(|c: char| c.is_whitespace() || c == '[' || c == ']')
        .filter(|w| !w.is_empty() && *w != "|" && *w != "...")
        .collect();
    let Some((&sub, rest)) = words.split_first() else {
        return vec!["no subcommand".into()];
    };
    let help = throng(&[sub, "--help"]);
    if !help.status.success() {
        return vec![format!("`throng {sub} --help` fails: not a subcommand")];
    }
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let mut i = 0;
    while i < rest.len() {
        let word = rest[i];
        i += 1;
        if let Some(name) = word.strip_prefix("--") {
            if !help.contains(&format!("--{name} ")) && !help.contains(&format!("--{name}\n")) {
                problems.push(format!("`--{name}` is not in `throng {sub} --help`"));
                continue;
            }
            let Some(&value) = rest.get(i).filter(|v| !v.starts_with('-')) else {
                continue;
            };
            i += 1;
            if is_placeholder(value) {
                continue;
            }
            // A literal value (or `a|b|c`): each must be accepted. clap checks values before
            // it prints the help, so nothing runs.
            for alt in value.split('|') {
                let o = throng(&[sub, word, alt, "--help"]);
                if !o.status.success() {
                    problems.push(format!(
                        "`{word} {alt}` is refused: {}",
                        String::from_utf8_lossy(&o.stderr).trim()
                    ));
                }
            }
        } else if is_placeholder(word) {
            continue;
        } else if word.contains('/') || word.contains('.') {
            // A file shown by its path from the repository root.
            if !root().join(word).exists() {
                problems.push(format!("{word} does not exist"));
            }
        } else {
            // A literal positional value, e.g. the map kind of `gen`.
            for alt in word.split('|') {
                let o = throng(&[sub, alt, "--help"]);
                if !o.status.success() {
                    problems.push(format!(
                        "`throng {sub} {alt}` is refused: {}",
                        String::from_utf8_lossy(&o.stderr).trim()
                    ));
                }
            }
        }
    }
    problems
}

/// The markdown pages under `docs/`, as paths from the repository root, sorted.
fn doc_pages() -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.sort();
    pages
}

/// Every markdown file whose commands and links are checked: the READMEs and the docs pages.
fn markdown_files() -> Vec<String> {
    let mut files: Vec<String> = [
        "README.md",
        "sims/README.md",
        "sims/lorr/README.md",
        "sims/maps/README.md",
        "examples/README.md",
    ]
    .iter()
    .map(|f| f.to_string())
    .collect();
    files.extend(doc_pages());
    for f in &files {
        assert!(root().join(f).is_file(), "{f} is missing");
    }
    files
}

/// GitHub's anchor for a heading: lower case, spaces to hyphens, other punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c.to_lowercase().next().unwrap_or(c)),
            _ => None,
        })
        .collect()
}

/// The anchors of a markdown text's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    markdown_lines(text)
        .into_iter()
        .filter(|&(_, line, in_block)| !in_block && line.starts_with('#'))
        .map(|(_, line, _)| anchor(line.trim_start_matches('#')))
        .collect()
}

/// The targets of the inline links `[text](target)` of a markdown text, outside code blocks
/// and code spans, with their 1-based line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line, in_block) in markdown_lines(text) {
        if in_block {
            continue;
        }
        // Prose only: drop code spans (the even pieces between backticks are prose).
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_docs_page_is_linked_from_the_readme() {
    let readme = read("README.md");
    let pages = doc_pages();
    assert!(pages.len() >= 5, "{pages:?}");
    for page in pages {
        assert!(
            readme.contains(&format!("]({page})")),
            "README.md does not link {page}"
        );
    }
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut problems = Vec::new();
    let mut seen = 0;
    for file in markdown_files() {
        let dir = Path::new(&file).parent().unwrap_or(Path::new(""));
        let text = read(&file);
        for (line, target) in links(&text) {
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            seen += 1;
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path).to_string_lossy().into_owned()
            };
            if !root().join(&linked).exists() {
                problems.push(format!(
                    "{file}:{line}: `{target}`: {linked} does not exist"
                ));
                continue;
            }
            if let Some(fragment) = fragment
                && !anchors(&read(&linked)).iter().any(|a| a == fragment)
            {
                problems.push(format!("{file}:{line}: `{target}`: no heading #{fragment}"));
            }
        }
    }
    assert!(seen >= 20, "only {seen} links found");
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_page_with_rust_code_is_a_doctest() {
    let lib = read("src/lib.rs");
    for page in doc_pages() {
        if read(&page).contains("```rust") {
            assert!(
                lib.contains(&format!("include_str!(\"../{page}\")")),
                "{page} shows Rust code but src/lib.rs does not include it as a doctest"
            );
        }
    }
}

/// Every file under `dir` (recursively), as paths from the repository root.
fn files_under(dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![root().join(dir)];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let rel = path.strip_prefix(root()).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_layout_names_every_source_file() {
    let readme = read("README.md");
    let layout = readme
        .split("\n## Layout")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a Layout section");
    let files = files_under("src");
    assert!(files.len() > 50, "{files:?}");
    // A file is named by its path, its path below src/, or its name within its folder's row.
    let missing: Vec<&String> = files
        .iter()
        .filter(|path| {
            let below_src = path.trim_start_matches("src/");
            let name = path.rsplit('/').next().unwrap();
            ![path.as_str(), below_src, name]
                .iter()
                .any(|n| layout.contains(&format!("`{n}`")) || layout.contains(&format!("/{n}`")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "the Layout section of README.md names none of {missing:?}"
    );
}

#[test]
fn the_readme_stays_short() {
    let lines = read("README.md").lines().count();
    assert!(
        lines < 400,
        "README.md has {lines} lines: move reference material into a page under docs/"
    );
}

#[test]
fn every_command_shown_in_the_readmes_parses() {
    let mut problems = Vec::new();
    let mut seen = 0;
    for file in markdown_files() {
        let file = file.as_str();
        for (line, args) in commands(&read(file)) {
            seen += 1;
            for p in check(&args) {
                problems.push(format!("{file}:{line}: `throng {args}`: {p}"));
            }
        }
    }
    // The synopsis alone has six lines; fewer means the extraction broke, not the README.
    assert!(seen >= 10, "only {seen} commands found");
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_synopsis_covers_every_subcommand() {
    let readme = read("README.md");
    let help = throng(&["--help"]);
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    // Subcommands are the indented first words of the "Commands:" section.
    let subs: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .expect("a Commands section")
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|s| *s != "help")
        .collect();
    assert!(subs.len() >= 6, "{subs:?}");
    for sub in subs {
        assert!(
            readme.contains(&format!("\nthrong {sub} ")),
            "README.md has no synopsis line for `throng {sub}`"
        );
    }
}

#[test]
fn every_shipped_scenario_is_in_the_sims_table() {
    let table = read("sims/README.md");
    let mut files: Vec<String> = std::fs::read_dir(root().join("sims"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| `")).collect();
    for f in &files {
        assert!(
            rows.iter().any(|r| r.starts_with(&format!("| `{f}`"))),
            "sims/{f} is not in the table of sims/README.md"
        );
    }
    // And the other way: no row for a file that is gone.
    for r in rows {
        let name = r.trim_start_matches("| `").split('`').next().unwrap();
        if name.ends_with(".toml") {
            assert!(
                Path::new(&root().join("sims").join(name)).is_file(),
                "sims/README.md lists {name}, which does not exist"
            );
        }
    }
}

#[test]
fn anchors_and_links_are_read_as_github_does() {
    assert_eq!(anchor(" One-shot MAPF: LaCAM"), "one-shot-mapf-lacam");
    assert_eq!(
        anchor("Cooperative movement (PIBT)"),
        "cooperative-movement-pibt"
    );
    assert_eq!(
        anchor("Peers: `cargo bench --bench peers`"),
        "peers-cargo-bench---bench-peers"
    );
    let text = "# Top\nsee [a](docs/a.md#x) and `[no](code.md)`\n```\n[no](block.md)\n# not\n```\n";
    assert_eq!(links(text), vec![(2, "docs/a.md#x".to_string())]);
    assert_eq!(anchors(text), vec!["top".to_string()]);
}

#[test]
fn command_extraction_finds_blocks_and_inline_spans() {
    let text = "intro `throng run --ticks 3` and `cargo test`\n```sh\n\
                cargo run --release -- scen   # all\nthrong gen rooms --out X.map\n```\n\
                prose throng nav, not code\n";
    assert_eq!(
        commands(text),
        vec![
            (1, "run --ticks 3".to_string()),
            (3, "scen".to_string()),
            (4, "gen rooms --out X.map".to_string()),
        ]
    );
    // The checker finds a flag that does not exist and a value that is refused.
    assert!(!check("run --no-such-flag").is_empty());
    assert!(!check("scen --planner teleport").is_empty());
    assert!(!check("gen spiral --out X.map").is_empty());
    assert!(check("scen --planner astar|dstar --budget N").is_empty());
}
