//! `throng run --render/--heatmap/--plots`: the GIF and PNG decode with the `gif` and `png`
//! crates and show the map and the agents, the heatmap is hot where agents wait, the charts
//! are well-formed SVG, every shipped scenario renders, and bad output paths fail before the
//! run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;
use throng::grid::Grid;
use throng::render::{HeatOf, Heatmap};
use throng::scenario::Scenario;
use throng::sim::{ConflictMode, SimConfig, Simulation};

fn throng(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .output()
        .expect("run throng")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(args: &[&str]) -> String {
    let o = throng(args);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    text(&o.stdout)
}

/// 50 agents on a generated 64 x 64 map, 50 ticks, lifelong (every run plays all its ticks).
fn small_scenario() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.toml");
    std::fs::write(
        &path,
        "name = \"small\"\nseed = 3\nticks = 50\nagents = 50\n[map]\n\
         generator = { kind = \"random\", width = 64, height = 64, density = 0.2 }\n\
         [sim]\nlifelong = true\nmax_plans_per_tick = 20\n",
    )
    .unwrap();
    (dir, path)
}

fn grid_of(scenario: &Path) -> Grid {
    Scenario::load(scenario).unwrap().load_grid().unwrap()
}

/// Palette indices of agents (arrived, moving, crowds, waiting, no path).
fn is_agent(index: u8) -> bool {
    (3..=14).contains(&index)
}

/// The GIF's frames composited: (frame count, width, height, the picture after each frame).
fn decode_gif(file: &Path) -> (usize, u32, u32, Vec<Vec<u8>>) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options
        .read_info(std::fs::File::open(file).unwrap())
        .unwrap();
    let (w, h) = (u32::from(decoder.width()), u32::from(decoder.height()));
    let mut canvas = vec![0u8; (w * h) as usize];
    let mut pictures = Vec::new();
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        for y in 0..usize::from(frame.height) {
            for x in 0..usize::from(frame.width) {
                let p = frame.buffer[y * usize::from(frame.width) + x];
                if Some(p) != frame.transparent {
                    let (cx, cy) = (usize::from(frame.left) + x, usize::from(frame.top) + y);
                    canvas[cy * w as usize + cx] = p;
                }
            }
        }
        pictures.push(canvas.clone());
    }
    (pictures.len(), w, h, pictures)
}

#[test]
fn gif_has_the_documented_frames_walls_and_agents() {
    let (dir, path) = small_scenario();
    let grid = grid_of(&path);
    let gif = dir.path().join("run.gif");
    let out = ok(&[
        "run",
        path.to_str().unwrap(),
        "--render",
        gif.to_str().unwrap(),
        "--render-every",
        "4",
    ]);
    // 50 ticks, a frame every 4: the start, ticks 4..48 (12), and the last tick.
    let (frames, w, h, pictures) = decode_gif(&gif);
    assert_eq!(frames, 1 + 50 / 4 + 1);
    assert!(out.contains("pictures     14 frames"), "{out}");
    // 64 cells at 512 pixels: 8 pixels per cell.
    assert_eq!((w, h), (512, 512));
    for picture in &pictures {
        let agents = picture.iter().filter(|&&p| is_agent(p)).count();
        assert_eq!(agents, 50 * 64, "every agent an 8 x 8 square");
        for cell in 0..grid.len() as u32 {
            let (x, y) = grid.coords(cell);
            let p = picture[(y * 8 * w + x * 8) as usize];
            if grid.is_walkable(cell) {
                assert!(p == 0 || is_agent(p), "cell {cell}: {p}");
            } else {
                assert_eq!(p, 1, "wall at cell {cell}");
            }
        }
    }
    // Agents move: the last picture differs from the first.
    assert_ne!(pictures[0], pictures[frames - 1]);

    // Every frame a tick, 8 ticks: 9 frames (the last tick has its own frame).
    ok(&[
        "run",
        path.to_str().unwrap(),
        "--ticks",
        "8",
        "--render",
        gif.to_str().unwrap(),
        "--render-every",
        "1",
        "--render-size",
        "32",
    ]);
    let (frames, w, h, _) = decode_gif(&gif);
    assert_eq!((frames, w, h), (9, 32, 32), "64 cells shrunk 2 to a pixel");
}

#[test]
fn png_of_the_last_tick_shows_every_agent_and_wall() {
    let (dir, path) = small_scenario();
    let grid = grid_of(&path);
    let png_file = dir.path().join("last.png");
    ok(&[
        "run",
        path.to_str().unwrap(),
        "--quiet",
        "--render",
        png_file.to_str().unwrap(),
        "--render-size",
        "128",
        "--render-goals",
    ]);
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png_file).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (128, 128));
    assert_eq!(info.color_type, png::ColorType::Indexed);
    let pixels = &buf[..info.buffer_size()];
    // 2 pixels per cell: 50 agents of 4 pixels.
    assert_eq!(pixels.iter().filter(|&&p| is_agent(p)).count(), 50 * 4);
    // Goals marked (index 2) where no agent stands on them.
    assert!(pixels.contains(&2), "goals drawn");
    for cell in 0..grid.len() as u32 {
        let (x, y) = grid.coords(cell);
        if !grid.is_walkable(cell) {
            assert_eq!(pixels[(y * 2 * 128 + x * 2) as usize], 1);
        }
    }
}

#[test]
fn heatmap_is_hot_where_agents_wait_and_cold_where_nobody_goes() {
    // A corridor: agent 0 parks on its goal at x = 3; agent 1, from x = 0 to x = 5, is stuck
    // behind it (conflict mode avoid: no pushing, no way around).
    let grid = Grid::from_ascii("........\n").unwrap();
    let config = SimConfig {
        conflicts: ConflictMode::Avoid,
        ..SimConfig::default()
    };
    let mut sim = Simulation::new(grid.clone(), config).unwrap();
    sim.add_agent(3, Some(3)).unwrap();
    sim.add_agent(0, Some(5)).unwrap();
    let mut heat = Heatmap::new(&grid, HeatOf::Wait);
    for _ in 0..20 {
        sim.step();
        heat.record(&sim);
    }
    let counts = heat.counts();
    assert!(
        counts[2] > 0,
        "agent 1 waits in front of agent 0: {counts:?}"
    );
    assert_eq!(counts[7], 0, "nobody near x = 7");
    let image = heat.draw(&grid, 64).unwrap();
    let (hot, cold) = (image.cell_colour(2, 0), image.cell_colour(7, 0));
    assert_ne!(hot, cold);
    assert_eq!(
        cold,
        [225, 225, 220],
        "an unused free cell keeps the map's colour"
    );
    // Hotter: further along the colour bar, which brightens (sum of channels) as it heats.
    let passes = Heatmap::new(&grid, HeatOf::Pass);
    assert_eq!(passes.counts().iter().sum::<u32>(), 0);

    // The same through the command line: a PNG with a title and colour bar around the map.
    let (dir, path) = small_scenario();
    let file = dir.path().join("heat.png");
    let out = ok(&[
        "run",
        path.to_str().unwrap(),
        "--heatmap",
        file.to_str().unwrap(),
        "--heatmap-of",
        "pass",
    ]);
    assert!(out.contains("pictures"), "{out}");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&file).unwrap()));
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    assert!(
        info.width > 512 && info.height > 512,
        "map, title and colour bar"
    );
}

/// Checks that every tag of `svg` is closed in order; returns the texts of `<text>` elements.
fn well_formed(svg: &str) -> Vec<String> {
    let mut stack = Vec::new();
    let mut texts = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').expect("tag closed") + start;
        let tag = &rest[start + 1..end];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "closing {name}");
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap().to_string();
            if name == "text" {
                let close = rest[end..].find("</text>").unwrap() + end;
                texts.push(rest[end + 1..close].to_string());
            }
            stack.push(name);
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    texts
}

#[test]
fn plots_are_well_formed_svg_with_labels_and_a_point_per_tick() {
    let (dir, path) = small_scenario();
    let plots = dir.path().join("plots");
    ok(&[
        "run",
        path.to_str().unwrap(),
        "--quiet",
        "--plots",
        plots.to_str().unwrap(),
    ]);
    for (file, title, y_label, lines) in [
        ("tick-time.svg", "Tick time by phase", "ms", 4),
        ("plans.svg", "Plans per tick", "plans", 1),
        ("waiting.svg", "Waiting agents", "agents", 1),
        ("goals.svg", "Goals reached per tick", "goals", 1),
    ] {
        let svg = std::fs::read_to_string(plots.join(file)).unwrap();
        let texts = well_formed(&svg);
        for want in [title, y_label, "tick", "0"] {
            assert!(
                texts.iter().any(|t| t == want),
                "{file}: {want:?} in {texts:?}"
            );
        }
        let series: Vec<&str> = svg
            .lines()
            .filter(|l| l.starts_with("<polyline class=\"series\""))
            .collect();
        assert_eq!(series.len(), lines, "{file}");
        for line in series {
            let points = line
                .split("points=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            assert_eq!(points.split(' ').count(), 50, "{file}: one point per tick");
        }
    }
    assert!(
        !plots.join("arrivals.svg").exists(),
        "lifelong: goals, not arrivals"
    );
}

#[test]
fn every_shipped_scenario_renders_traces_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let sims = Path::new(env!("CARGO_MANIFEST_DIR")).join("sims");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&sims)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        // A million agents need about 10 GB: parsed only (tests/scenario_files.rs).
        .filter(|p| !p.ends_with("crowd-1m.toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    for file in &files {
        let gif = dir.path().join("s.gif");
        let trace = dir.path().join("s.trace");
        let heat = dir.path().join("s-heat.png");
        let plots = dir.path().join("plots");
        ok(&[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--ticks",
            "3",
            "--render",
            gif.to_str().unwrap(),
            "--render-every",
            "1",
            "--render-size",
            "128",
            "--trace",
            trace.to_str().unwrap(),
            "--heatmap",
            heat.to_str().unwrap(),
            "--plots",
            plots.to_str().unwrap(),
        ]);
        // The trace of the same run reads back whole: 3 ticks, the agents the GIF shows.
        let bytes = std::fs::read(&trace).unwrap();
        let mut reader = throng::trace::TraceReader::new(&bytes[..]).unwrap();
        while reader.next_tick().unwrap().is_some() {}
        assert_eq!(reader.ticks(), 3, "{}: trace ticks", file.display());
        assert!(!reader.live().is_empty(), "{}: live agents", file.display());
        assert!(
            heat.is_file() && plots.join("plans.svg").is_file(),
            "{}",
            file.display()
        );
        let (frames, w, _, pictures) = decode_gif(&gif);
        assert_eq!(frames, 4, "{}", file.display());
        assert!(w <= 128, "{}", file.display());
        assert!(
            pictures[3].iter().any(|&p| is_agent(p)),
            "{}: agents drawn",
            file.display()
        );
    }
}

#[test]
fn bad_output_paths_fail_before_the_run_with_status_2() {
    let (dir, path) = small_scenario();
    let scenario = path.to_str().unwrap();
    let folder = dir.path().to_str().unwrap().to_string();
    let missing = dir.path().join("no/such/run.gif");
    let not_a_dir = path.clone();
    for (args, want) in [
        (vec!["--render", folder.as_str()], "is a directory"),
        (
            vec!["--render", missing.to_str().unwrap()],
            "does not exist",
        ),
        (vec!["--render", "run.bmp"], "expected a .gif"),
        (vec!["--heatmap", folder.as_str()], "is a directory"),
        (vec!["--heatmap", "heat.gif"], "expected a .png"),
        (
            vec!["--plots", not_a_dir.to_str().unwrap()],
            "is not a directory",
        ),
        (vec!["--plots", missing.to_str().unwrap()], "does not exist"),
    ] {
        let mut all = vec!["run", scenario];
        all.extend(&args);
        let o = throng(&all);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: the run did not start");
    }
    assert!(!dir.path().join("no").exists());
}
