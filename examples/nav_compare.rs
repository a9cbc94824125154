//! Navigation points vs A* on Moving AI scenario files, measured in one process, interleaved:
//! build time and memory, mean µs per query overall and on the longest quarter of the queries
//! (by optimal length), mean and max length / optimal.
//!
//! `cargo run --release --example nav_compare -- [CLUSTER_SIZE] [--weight=W] [FILE.map.scen ...]`
//! (`--weight`: [`NavGraph::set_heuristic_weight`], default 1).

use std::time::Instant;

use throng::movingai::{ScenFile, load_map};
use throng::nav::{NavGraph, NavOptions, NavWorkspace};
use throng::search::SearchWorkspace;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut weight = 1.0;
    args.retain(|a| match a.strip_prefix("--weight=") {
        Some(w) => {
            weight = w.parse().expect("--weight=W takes a number");
            false
        }
        None => true,
    });
    let size = match args.first().and_then(|a| a.parse::<u32>().ok()) {
        Some(s) => {
            args.remove(0);
            s
        }
        None => NavOptions::DEFAULT_CLUSTER_SIZE,
    };
    if args.is_empty() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/sims/maps");
        args = ["random512-10-0", "8room_000", "den520d", "arena"]
            .iter()
            .map(|m| format!("{dir}/{m}.map.scen"))
            .collect();
    }
    println!(
        "| map | cluster | build ms | memory KiB | points | nav µs | A* µs | speed-up | longest 25%: nav µs | A* µs | speed-up | mean len/opt | max len/opt |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for file in &args {
        let scen = ScenFile::load(file)?;
        let grid = load_map(scen.map_path()?)?;
        let queries = scen.resolve(&grid)?;
        let t0 = Instant::now();
        let mut nav = NavGraph::build(&grid, &NavOptions { cluster_size: size })?;
        nav.set_heuristic_weight(weight)?;
        let build_ms = t0.elapsed().as_secs_f64() * 1e3;
        let mut nws = NavWorkspace::new();
        let mut aws = SearchWorkspace::for_grid(&grid);
        let rounds = 3;
        let mut nav_ns = vec![u64::MAX; queries.len()];
        let mut astar_ns = vec![u64::MAX; queries.len()];
        let mut expanded = 0u64;
        let mut direct = 0usize;
        let (mut ratio_sum, mut ratio_max, mut counted) = (0.0f64, 0.0f64, 0usize);
        for round in 0..rounds {
            for (i, (&(s, g), q)) in queries.iter().zip(&scen.queries).enumerate() {
                let t = Instant::now();
                let o = nav.find_path(&grid, &mut nws, s, g)?;
                nav_ns[i] = nav_ns[i].min(t.elapsed().as_nanos() as u64);
                if round == 0 && nws.was_direct() {
                    direct += 1;
                }
                let t = Instant::now();
                let a = aws.find_path(&grid, s, g)?;
                astar_ns[i] = astar_ns[i].min(t.elapsed().as_nanos() as u64);
                if round == 0 {
                    expanded += nws.stats().expanded;
                    let cost = grid.path_cost(nws.path()).expect("legal nav path");
                    assert_eq!(nws.path().first(), Some(&s));
                    assert_eq!(nws.path().last(), Some(&g));
                    assert!((cost - o.cost().unwrap()).abs() < 1e-6);
                    assert!(a.is_found());
                    if q.optimal > 0.0 {
                        let r = cost / q.optimal;
                        ratio_sum += r;
                        ratio_max = ratio_max.max(r);
                        counted += 1;
                    }
                }
            }
        }
        let mut order: Vec<usize> = (0..queries.len()).collect();
        order.sort_by(|&a, &b| scen.queries[b].optimal.total_cmp(&scen.queries[a].optimal));
        let top = &order[..queries.len().div_ceil(4)];
        let mean = |v: &[u64], idx: &mut dyn Iterator<Item = usize>| {
            let (mut s, mut n) = (0u64, 0u64);
            for i in idx {
                s += v[i];
                n += 1;
            }
            s as f64 / n as f64 / 1e3
        };
        let (na, aa) = (
            mean(&nav_ns, &mut (0..queries.len())),
            mean(&astar_ns, &mut (0..queries.len())),
        );
        let (nt, at) = (
            mean(&nav_ns, &mut top.iter().copied()),
            mean(&astar_ns, &mut top.iter().copied()),
        );
        let name = std::path::Path::new(file)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".map.scen", "");
        println!(
            "| {name} | {size} | {build_ms:.1} | {} | {} | {na:.1} | {aa:.1} | {:.1}x | {nt:.1} | {at:.1} | {:.1}x | {:.4} | {:.4} |",
            nav.memory_bytes() / 1024,
            nav.node_count(),
            aa / na,
            at / nt,
            ratio_sum / counted.max(1) as f64,
            ratio_max
        );
        println!(
            "  direct {direct} edges {} mean nav expanded {:.0}",
            nav.edge_count(),
            expanded as f64 / queries.len() as f64
        );
    }
    Ok(())
}
