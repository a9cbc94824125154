//! MAPF instances of our own for any Moving AI map: a `.scen` file of N agents with random
//! distinct starts and random distinct goals in the map's largest connected area, seeded.
//! The instances of docs/benchmarks.md's large-map comparison were made with it.
//!
//! ```text
//! cargo run --release --example mapf_scen -- MAP.map N SEED > MAP-seedSEED.scen
//! ```
//!
//! Line k + 1 of the file is agent k (the first N lines make an instance of N agents), in the
//! MAPF benchmark's columns; the last column (the optimal length in the benchmark's files) is
//! the 4-connected distance from start to goal, which `throng mapf` and lacam3 ignore.

use std::path::Path;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use throng::grid::Neighborhood;
use throng::mapf::GoalDistances;
use throng::movingai::load_map;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [map, n, seed] = args.as_slice() else {
        return Err("usage: mapf_scen MAP.map N SEED".into());
    };
    let (n, seed): (usize, u64) = (n.parse()?, seed.parse()?);
    let grid = load_map(map)?.with_neighborhood(Neighborhood::Four);
    let components = grid.components();
    let largest = components.largest().ok_or("the map has no walkable cell")?;
    let area: Vec<u32> = (0..grid.len() as u32)
        .filter(|&c| components.of(c) == Some(largest))
        .collect();
    if n > area.len() {
        return Err(format!("{n} agents do not fit in {} cells", area.len()).into());
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // A partial Fisher-Yates shuffle each: the first n cells are distinct and uniform.
    let pick = |rng: &mut ChaCha8Rng| {
        let mut cells = area.clone();
        for i in 0..n {
            let j = rng.random_range(i..cells.len());
            cells.swap(i, j);
        }
        cells.truncate(n);
        cells
    };
    let starts = pick(&mut rng);
    let goals = pick(&mut rng);
    let distances = GoalDistances::new(&grid, &goals);
    let name = Path::new(map)
        .file_name()
        .map_or_else(|| map.clone(), |f| f.to_string_lossy().into_owned());
    let mut out = String::from("version 1\n");
    for (a, (&s, &g)) in starts.iter().zip(&goals).enumerate() {
        let ((sx, sy), (gx, gy)) = (grid.coords(s), grid.coords(g));
        let length = distances.get(a as u32, s);
        out.push_str(&format!(
            "{}\t{name}\t{}\t{}\t{sx}\t{sy}\t{gx}\t{gy}\t{length}\n",
            length / 4,
            grid.width(),
            grid.height()
        ));
    }
    print!("{out}");
    Ok(())
}
