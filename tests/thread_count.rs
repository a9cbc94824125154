//! One shared `&Grid`, one workspace per worker: the same batch planned on 1, 2 and 4 rayon
//! threads gives results identical to a serial run, path for path.

mod common;

use common::shipped;
use rayon::prelude::*;
use throng::grid::{CellId, Grid};
use throng::movingai::{ScenFile, load_map};
use throng::search::{SearchOutcome, SearchWorkspace};

type Answer = (
    Result<SearchOutcome, throng::search::QueryError>,
    Vec<CellId>,
    u64,
);

fn serial(grid: &Grid, queries: &[(CellId, CellId)]) -> Vec<Answer> {
    let mut ws = SearchWorkspace::new();
    queries
        .iter()
        .map(|&(s, g)| {
            let r = ws.find_path(grid, s, g);
            (r, ws.path().to_vec(), ws.stats().expanded)
        })
        .collect()
}

fn parallel(grid: &Grid, queries: &[(CellId, CellId)], threads: usize) -> Vec<Answer> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        queries
            .par_iter()
            .map_init(SearchWorkspace::new, |ws, &(s, g)| {
                let r = ws.find_path(grid, s, g);
                (r, ws.path().to_vec(), ws.stats().expanded)
            })
            .collect()
    })
}

#[test]
fn batch_is_identical_on_any_thread_count() {
    let scen = ScenFile::load(shipped("den520d.map.scen")).unwrap();
    let grid = load_map(scen.map_path().unwrap()).unwrap();
    let mut queries = scen.resolve(&grid).unwrap();
    // Add reversed and mixed pairs so the batch also holds unreachable queries between
    // components, not only the file's.
    let n = queries.len();
    for i in 0..n {
        let (a, _) = queries[i];
        let (_, b) = queries[(i * 7 + 3) % n];
        queries.push((b, a));
    }
    let expected = serial(&grid, &queries);
    assert!(
        expected
            .iter()
            .filter(|a| matches!(a.0, Ok(SearchOutcome::Found { .. })))
            .count()
            > n
    );
    for threads in [1, 2, 4] {
        let got = parallel(&grid, &queries, threads);
        assert_eq!(got.len(), expected.len());
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(g, e, "query {i} differs on {threads} threads");
        }
    }
}

#[test]
fn grid_and_workspace_are_thread_safe_types() {
    fn shared<T: Sync + Send>() {}
    fn owned<T: Send>() {}
    shared::<Grid>();
    owned::<SearchWorkspace>();
}
