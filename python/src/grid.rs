//! `throng.Grid`, `throng.load_map` and `throng.generate_map`.

use std::sync::Arc;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use throng_core::grid::CellId;
use throng_core::grid::Neighborhood;
use throng_core::grid::procgen::MapGenerator;

use crate::{py_to_json, to_py};

/// A 2-D grid of passable and blocked cells; moves are 8-connected without corner cutting, or
/// 4-connected (`neighbourhood`). Immutable: `Simulation.change_map` makes a new one.
#[pyclass(frozen, module = "throng")]
pub(crate) struct Grid {
    pub(crate) grid: Arc<throng_core::grid::Grid>,
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
        let grid = throng_core::grid::Grid::from_walkable(w, h, walkable)
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
pub(crate) fn load_map(path: std::path::PathBuf) -> PyResult<Grid> {
    let grid = throng_core::movingai::load_map(&path).map_err(to_py)?;
    Ok(Grid {
        grid: Arc::new(grid),
    })
}

/// A procedural map: `kind` is "random" (cells blocked with probability `density`, default
/// 0.2), "rooms" (square rooms of `room` cells, default 31, joined by doors `door` cells wide,
/// default 3) or "maze" (a perfect maze with corridors `corridor` cells wide, default 2), the
/// generators of `throng gen` and of scenario files. The same arguments and seed give the same
/// map on every platform. Raises ValueError naming an unknown kind or parameter, or a value out
/// of range.
#[pyfunction]
#[pyo3(signature = (kind, width, height, seed = 0, **params))]
pub(crate) fn generate_map(
    py: Python<'_>,
    kind: &str,
    width: u32,
    height: u32,
    seed: u64,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<Grid> {
    let mut recipe = serde_json::Map::new();
    recipe.insert("kind".into(), kind.into());
    recipe.insert("width".into(), width.into());
    recipe.insert("height".into(), height.into());
    let defaults: &[(&str, serde_json::Value)] = match kind {
        "random" => &[("density", serde_json::json!(0.2))],
        "rooms" => &[
            ("room", serde_json::json!(31)),
            ("door", serde_json::json!(3)),
        ],
        "maze" => &[("corridor", serde_json::json!(2))],
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown map kind {kind:?} (expected random, rooms or maze)"
            )));
        }
    };
    for (key, value) in defaults {
        recipe.insert((*key).into(), value.clone());
    }
    if let Some(params) = params {
        for (key, value) in params.iter() {
            let key: String = key.extract()?;
            if !defaults.iter().any(|(k, _)| *k == key) {
                let known: Vec<&str> = defaults.iter().map(|(k, _)| *k).collect();
                return Err(PyValueError::new_err(format!(
                    "{kind} maps have no parameter {key:?} (they have: {})",
                    known.join(", ")
                )));
            }
            let value = py_to_json(py, &key, &value)?;
            recipe.insert(key, value);
        }
    }
    let generator: MapGenerator = serde_json::from_value(serde_json::Value::Object(recipe))
        .map_err(|e| PyValueError::new_err(format!("{kind} map: {e}")))?;
    let grid = py.detach(|| generator.generate(seed)).map_err(to_py)?;
    Ok(Grid {
        grid: Arc::new(grid),
    })
}
