//! Pictures of a run: an animated GIF or a PNG of the agents on the map ([`GifRecorder`],
//! [`write_png`]), a heatmap of where agents waited or passed ([`Heatmap`]) and SVG charts of
//! the per-tick series ([`TickPlots`]).
//!
//! Everything here is fed after each [`crate::sim::Simulation::step`], like
//! [`crate::trace::TraceRecorder`], and keeps its memory flat over a run: GIF frames are
//! written as they are drawn, the heatmap is one counter per cell and the charts keep a fixed
//! number of buckets however long the run.

mod font;
mod gif;
mod heatmap;
mod plots;
mod png;
mod raster;

pub use self::gif::{GifOptions, GifRecorder};
pub use self::heatmap::{HeatOf, Heatmap, HeatmapImage};
pub use self::plots::{Point, TickPlots};
pub use self::png::write_png;
pub use self::raster::{Colouring, MAX_WIDTH, PALETTE, Paint, Raster};

/// Why a picture could not be made or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// Writing the output failed.
    #[error("writing the picture: {0}")]
    Io(#[from] std::io::Error),
    /// The encoder refused the picture (too large, bad parameters).
    #[error("encoding the picture: {0}")]
    Encode(String),
    /// A rendering option is out of range.
    #[error("{0}")]
    Invalid(String),
}

impl From<::gif::EncodingError> for RenderError {
    fn from(e: ::gif::EncodingError) -> Self {
        match e {
            ::gif::EncodingError::Io(e) => RenderError::Io(e),
            other => RenderError::Encode(other.to_string()),
        }
    }
}

impl From<::png::EncodingError> for RenderError {
    fn from(e: ::png::EncodingError) -> Self {
        match e {
            ::png::EncodingError::IoError(e) => RenderError::Io(e),
            other => RenderError::Encode(other.to_string()),
        }
    }
}
