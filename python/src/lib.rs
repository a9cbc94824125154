//! Python bindings of throng: `throng.load_map`, `throng.Grid`, `throng.plan` and
//! `throng.Simulation`.

use std::sync::Arc;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;
use throng_core::grid::Neighborhood;
use throng_core::sim::{ChangeSchedule, Scenario};
use throng_core::{CellId, PlannerKind, SearchOptions, SearchWorkspace};

/// A throng error as a Python exception: `OSError` for files that cannot be read, `ValueError`
/// for everything else, with the Rust message (which names the file and line).
fn to_py(err: throng_core::Error) -> PyErr {
    match err {
        throng_core::Error::Io { .. } => PyOSError::new_err(err.to_string()),
        _ => PyValueError::new_err(err.to_string()),
    }
}

fn pool(threads: usize) -> PyResult<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| PyValueError::new_err(format!("starting {threads} worker threads: {e}")))
}

/// Parses a serde value into Python objects through the `json` module.
fn to_dict<'py>(py: Python<'py>, value: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// A 2-D grid of passable and blocked cells, 8-connected without corner cutting.
#[pyclass(frozen, module = "throng")]
struct Grid {
    grid: Arc<throng_core::Grid>,
}

#[pymethods]
impl Grid {
    /// A grid from a 2-D numpy bool array of shape (height, width): True where passable.
    /// Raises ValueError for another dtype, another number of dimensions or an empty array.
    #[staticmethod]
    #[pyo3(signature = (array, neighbourhood = 8))]
    fn from_array(array: &Bound<'_, PyAny>, neighbourhood: u32) -> PyResult<Grid> {
        let neighbourhood = parse_neighbourhood(neighbourhood)?;
        let arr: PyReadonlyArray2<'_, bool> = array.extract().map_err(|_| {
            PyValueError::new_err("from_array expects a 2-D numpy array of dtype bool")
        })?;
        let view = arr.as_array();
        let (h, w) = view.dim();
        if h == 0 || w == 0 {
            return Err(PyValueError::new_err("from_array: the array is empty"));
        }
        let (w, h) = (
            u32::try_from(w).map_err(|_| PyValueError::new_err("array too wide"))?,
            u32::try_from(h).map_err(|_| PyValueError::new_err("array too tall"))?,
        );
        let walkable: Vec<bool> = view.iter().copied().collect();
        let grid = throng_core::Grid::from_walkable(w, h, walkable)
            .map_err(to_py)?
            .with_neighborhood(neighbourhood);
        Ok(Grid {
            grid: Arc::new(grid),
        })
    }

    /// 8 (straight and diagonal moves, no corner cutting) or 4 (straight moves only).
    #[getter]
    fn neighbourhood(&self) -> u32 {
        match self.grid.neighborhood() {
            Neighborhood::Four => 4,
            Neighborhood::Eight => 8,
        }
    }

    /// The same cells with another neighbourhood (4 or 8). Raises ValueError otherwise.
    fn with_neighbourhood(&self, neighbourhood: u32) -> PyResult<Grid> {
        let n = parse_neighbourhood(neighbourhood)?;
        Ok(Grid {
            grid: Arc::new((*self.grid).clone().with_neighborhood(n)),
        })
    }

    /// Connected areas: an int32 array of shape (height, width) with each passable cell's area
    /// number (0 is the largest area, then by size, ties by first cell) and -1 on blocked cells.
    fn components<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i32>>> {
        let g = &self.grid;
        let comps = g.components();
        let sizes = comps.sizes();
        let mut order: Vec<u32> = (0..sizes.len() as u32).collect();
        order.sort_by_key(|&c| std::cmp::Reverse(sizes[c as usize]));
        let mut rank = vec![0i32; sizes.len()];
        for (r, &c) in order.iter().enumerate() {
            rank[c as usize] = r as i32;
        }
        let labels: Vec<i32> = (0..g.len() as CellId)
            .map(|c| comps.of(c).map_or(-1, |l| rank[l as usize]))
            .collect();
        let array = Array2::from_shape_vec((g.height() as usize, g.width() as usize), labels)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// Width in cells.
    #[getter]
    fn width(&self) -> u32 {
        self.grid.width()
    }

    /// Height in cells.
    #[getter]
    fn height(&self) -> u32 {
        self.grid.height()
    }

    /// A numpy bool array of shape (height, width): True where the cell is passable.
    #[getter]
    fn passable<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let g = &self.grid;
        let cells: Vec<bool> = (0..g.len() as CellId).map(|c| g.is_walkable(c)).collect();
        let array = Array2::from_shape_vec((g.height() as usize, g.width() as usize), cells)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    fn __repr__(&self) -> String {
        format!(
            "Grid(width={}, height={}, passable={})",
            self.grid.width(),
            self.grid.height(),
            self.grid.walkable_count()
        )
    }
}

fn parse_neighbourhood(n: u32) -> PyResult<Neighborhood> {
    match n {
        4 => Ok(Neighborhood::Four),
        8 => Ok(Neighborhood::Eight),
        _ => Err(PyValueError::new_err(format!(
            "neighbourhood must be 4 or 8, not {n}"
        ))),
    }
}

/// Loads a Moving AI `.map` file. Raises OSError if it cannot be read, ValueError (naming the
/// file and line) if it is malformed.
#[pyfunction]
fn load_map(path: std::path::PathBuf) -> PyResult<Grid> {
    let grid = throng_core::movingai::load_map(&path).map_err(to_py)?;
    Ok(Grid {
        grid: Arc::new(grid),
    })
}

/// Reads an integer array of shape (k, 2) (x, then y) into cells, checking every row.
fn cells(
    py: Python<'_>,
    grid: &throng_core::Grid,
    what: &str,
    obj: &Bound<'_, PyAny>,
) -> PyResult<Vec<CellId>> {
    let np = py.import("numpy")?;
    let arr = np.call_method1("asarray", (obj,))?;
    let bad = || PyValueError::new_err(format!("{what} must be an integer array of shape (k, 2)"));
    let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind != "i" && kind != "u" {
        return Err(bad());
    }
    let arr = arr.call_method1("astype", ("int64",))?;
    let arr: PyReadonlyArray2<'_, i64> = arr.extract().map_err(|_| bad())?;
    if arr.shape()[1] != 2 {
        return Err(bad());
    }
    let view = arr.as_array();
    let mut out = Vec::with_capacity(view.nrows());
    for (row, xy) in view.outer_iter().enumerate() {
        let (x, y) = (xy[0], xy[1]);
        if x < 0 || y < 0 || x >= i64::from(grid.width()) || y >= i64::from(grid.height()) {
            return Err(PyValueError::new_err(format!(
                "{what} row {row}: ({x}, {y}) is outside the {} x {} grid",
                grid.width(),
                grid.height()
            )));
        }
        let cell = grid.cell(x as u32, y as u32).expect("checked");
        if !grid.is_walkable(cell) {
            return Err(PyValueError::new_err(format!(
                "{what} row {row}: ({x}, {y}) is blocked"
            )));
        }
        out.push(cell);
    }
    Ok(out)
}

/// What `plan` returns: the paths and their costs.
type Planned<'py> = (Vec<Bound<'py, PyArray2<i32>>>, Bound<'py, PyArray1<f64>>);

/// Plans the queries `starts[i] -> goals[i]` in parallel (one search workspace per worker,
/// the GIL released). `starts` and `goals` are integer arrays of shape (k, 2), x then y;
/// `planner` is "astar" or "jps" (both optimal); `threads` 0 means all cores. Returns
/// `(paths, costs)`: a list of (len, 2) int32 arrays (empty where unreachable) and a float64
/// array of path costs (NaN where unreachable). Raises ValueError naming the row for a cell
/// outside the grid or blocked.
#[pyfunction]
#[pyo3(signature = (grid, starts, goals, planner = "jps", threads = 0))]
fn plan<'py>(
    py: Python<'py>,
    grid: &Grid,
    starts: &Bound<'py, PyAny>,
    goals: &Bound<'py, PyAny>,
    planner: &str,
    threads: usize,
) -> PyResult<Planned<'py>> {
    let kind: PlannerKind = planner.parse().map_err(to_py)?;
    if !matches!(kind, PlannerKind::AStar | PlannerKind::Jps) {
        return Err(PyValueError::new_err(format!(
            "plan() supports the planners astar and jps, not {planner:?}"
        )));
    }
    let g = grid.grid.clone();
    let s = cells(py, &g, "starts", starts)?;
    let t = cells(py, &g, "goals", goals)?;
    if s.len() != t.len() {
        return Err(PyValueError::new_err(format!(
            "starts has {} rows but goals has {}",
            s.len(),
            t.len()
        )));
    }
    let pool = pool(threads)?;
    let results: Vec<Result<(f64, Vec<CellId>), String>> = py.detach(|| {
        pool.install(|| {
            s.par_iter()
                .zip(t.par_iter())
                .map_init(
                    || SearchWorkspace::for_grid(&g),
                    |ws, (&a, &b)| {
                        let outcome = match kind {
                            PlannerKind::Jps => {
                                ws.find_path_jps(&g, a, b, &SearchOptions::default())
                            }
                            _ => ws.find_path(&g, a, b),
                        }
                        .map_err(|e| e.to_string())?;
                        Ok(match outcome.cost() {
                            Some(c) => (c, ws.path().to_vec()),
                            None => (f64::NAN, Vec::new()),
                        })
                    },
                )
                .collect()
        })
    });
    let mut paths = Vec::with_capacity(results.len());
    let mut costs = Vec::with_capacity(results.len());
    for (row, r) in results.into_iter().enumerate() {
        let (cost, path) = r.map_err(|e| PyValueError::new_err(format!("query {row}: {e}")))?;
        let mut xy = Array2::<i32>::zeros((path.len(), 2));
        for (i, &c) in path.iter().enumerate() {
            let (x, y) = g.coords(c);
            xy[(i, 0)] = x as i32;
            xy[(i, 1)] = y as i32;
        }
        paths.push(xy.into_pyarray(py));
        costs.push(cost);
    }
    Ok((paths, costs.into_pyarray(py)))
}

/// A simulation built from a scenario file (the TOML files of `throng run`), played tick by
/// tick with its scripted map changes, on its own pool of worker threads.
#[pyclass(module = "throng")]
struct Simulation {
    scenario: Scenario,
    sim: throng_core::sim::Simulation,
    schedule: ChangeSchedule,
    pool: rayon::ThreadPool,
    setup_s: f64,
}

#[pymethods]
impl Simulation {
    /// Builds the scenario in the file `path`; `seed` and `threads` override the file's (threads
    /// 0 means all cores), and so does any other keyword: `agents`, `ticks`, `neighbourhood` or
    /// a key of the file's `[sim]` table (`conflicts="avoid"`, `node_budget=None`, ...), with
    /// the file's checks (`throng run --set` does the same). Raises OSError or ValueError with
    /// the Rust message (an unknown key or a bad value names the key).
    #[staticmethod]
    #[pyo3(signature = (path, seed = None, threads = None, **overrides))]
    fn from_scenario(
        py: Python<'_>,
        path: std::path::PathBuf,
        seed: Option<u64>,
        threads: Option<usize>,
        overrides: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<Simulation> {
        let mut scenario = Scenario::load(&path).map_err(to_py)?;
        if let Some(overrides) = overrides {
            let dumps = py.import("json")?.getattr("dumps")?;
            for (key, value) in overrides.iter() {
                let key: String = key.extract()?;
                let text: String = dumps.call1((&value,))?.extract().map_err(|_| {
                    PyValueError::new_err(format!("override {key}: not a JSON value"))
                })?;
                let value: serde_json::Value = serde_json::from_str(&text)
                    .map_err(|e| PyValueError::new_err(format!("override {key}: {e}")))?;
                scenario.set(&key, value).map_err(to_py)?;
            }
        }
        if let Some(seed) = seed {
            scenario.seed = seed;
        }
        if let Some(threads) = threads {
            scenario.threads = threads;
        }
        let t0 = std::time::Instant::now();
        let (sim, schedule) = py
            .detach(|| {
                let sim = scenario.build()?;
                let schedule = scenario.schedule(sim.grid())?;
                Ok((sim, schedule))
            })
            .map_err(to_py)?;
        let setup_s = t0.elapsed().as_secs_f64();
        let pool = pool(scenario.threads)?;
        Ok(Simulation {
            scenario,
            sim,
            schedule,
            pool,
            setup_s,
        })
    }

    /// Plays one tick (with the map changes due) and returns its report as a dict (the fields
    /// of the Rust `TickReport`, `tick` included).
    fn step<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let report = py.detach(|| {
            self.schedule.queue_due(&mut self.sim);
            self.pool.install(|| self.sim.step())
        });
        to_dict(py, &report)
    }

    /// Plays up to `ticks` ticks (default: the scenario's `ticks`; a one-shot run stops early
    /// once every agent is at its goal or has no path and no map change is left, as
    /// `throng run` does) and returns `summary()`.
    #[pyo3(signature = (ticks = None))]
    fn run<'py>(&mut self, py: Python<'py>, ticks: Option<u64>) -> PyResult<Bound<'py, PyAny>> {
        let ticks = ticks.unwrap_or(self.scenario.ticks);
        let lifelong = self.sim.config().lifelong;
        py.detach(|| {
            for _ in 0..ticks {
                self.schedule.queue_due(&mut self.sim);
                let report = self.pool.install(|| self.sim.step());
                if !lifelong
                    && self.schedule.is_finished()
                    && report.at_goal + report.no_path == report.agents
                {
                    break;
                }
            }
        });
        self.summary(py)
    }

    /// The run so far as a dict with the keys of `throng run --json`.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let summary = self.pool.install(|| self.sim.summary());
        to_dict(py, &self.scenario.run_json(&summary, self.setup_s))
    }

    /// The hash of the simulation state (positions, goals, tick), as in `throng run`.
    fn state_hash(&self) -> u64 {
        self.sim.state_hash()
    }

    /// The ticks played.
    #[getter]
    fn tick(&self) -> u64 {
        self.sim.tick()
    }

    /// The agents' positions, an (n, 2) int32 array of x, y, in agent order.
    fn positions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i32>> {
        self.xy(py, |a| Some(a.position()))
    }

    /// The agents' goals, an (n, 2) int32 array of x, y (-1, -1 for an agent without a goal).
    fn goals<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i32>> {
        self.xy(py, |a| a.goal())
    }
}

impl Simulation {
    fn xy<'py>(
        &self,
        py: Python<'py>,
        cell: impl Fn(&throng_core::sim::Agent) -> Option<CellId>,
    ) -> Bound<'py, PyArray2<i32>> {
        let grid = self.sim.grid();
        let agents: Vec<_> = self.sim.agents().iter().collect();
        let mut xy = Array2::<i32>::from_elem((agents.len(), 2), -1);
        for (i, (_, agent)) in agents.iter().enumerate() {
            if let Some(c) = cell(agent) {
                let (x, y) = grid.coords(c);
                xy[(i, 0)] = x as i32;
                xy[(i, 1)] = y as i32;
            }
        }
        xy.into_pyarray(py)
    }
}

/// Parallel crowd pathfinding on a shared 2D grid (Python bindings of the throng Rust crate).
#[pymodule]
#[pyo3(name = "_throng")]
fn throng_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Grid>()?;
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(load_map, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
