//! Heatmaps: per-cell counts of where agents waited or passed over a run, drawn over the map
//! with a colour bar and a title.

use std::io::Write;

use super::RenderError;
use super::font::{draw_text, text_width};
use super::raster::fit;
use crate::grid::Grid;
use crate::sim::{AgentState, Simulation};

/// What a [`Heatmap`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatOf {
    /// Agent-ticks spent waiting on the cell (wanted to step, another agent was in the way).
    Wait,
    /// Agent steps onto the cell (agents in state moving after a tick).
    Pass,
}

impl HeatOf {
    /// `"wait"` or `"pass"`.
    pub fn name(self) -> &'static str {
        match self {
            HeatOf::Wait => "wait",
            HeatOf::Pass => "pass",
        }
    }
}

/// Counts per cell, one `u32` by cell id, fed after each tick.
#[derive(Debug, Clone)]
pub struct Heatmap {
    of: HeatOf,
    width: u32,
    height: u32,
    counts: Vec<u32>,
    ticks: u64,
}

/// A drawn heatmap: RGB pixels and where the map lies in them.
#[derive(Debug, Clone)]
pub struct HeatmapImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 3 bytes per pixel, row by row.
    pub rgb: Vec<u8>,
    /// Left edge of the map, pixels.
    pub map_x: u32,
    /// Top edge of the map, pixels.
    pub map_y: u32,
    /// Pixels per cell.
    pub scale: u32,
    /// Cells per pixel.
    pub shrink: u32,
}

impl HeatmapImage {
    /// The colour of the pixel (top left one, when scaled up) that shows cell `(x, y)`.
    pub fn cell_colour(&self, x: u32, y: u32) -> [u8; 3] {
        let px = self.map_x + x / self.shrink * self.scale;
        let py = self.map_y + y / self.shrink * self.scale;
        let i = 3 * (py * self.width + px) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

const WALL: [u8; 3] = [60, 60, 68];
const FREE: [u8; 3] = [225, 225, 220];
const WHITE: [u8; 3] = [255, 255, 255];
const INK: [u8; 3] = [20, 20, 20];
/// Colour map stops, cold to hot.
const STOPS: [[u8; 3]; 5] = [
    [30, 20, 110],
    [120, 30, 150],
    [210, 50, 90],
    [250, 140, 20],
    [255, 250, 150],
];

/// The colour of `t` in 0..=1.
fn colour_at(t: f64) -> [u8; 3] {
    let t = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (t.floor() as usize).min(STOPS.len() - 2);
    let f = t - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    std::array::from_fn(|k| {
        (f64::from(a[k]) + (f64::from(b[k]) - f64::from(a[k])) * f).round() as u8
    })
}

impl Heatmap {
    /// Zero counts for every cell of `grid`.
    pub fn new(grid: &Grid, of: HeatOf) -> Heatmap {
        Heatmap {
            of,
            width: grid.width(),
            height: grid.height(),
            counts: vec![0; grid.len()],
            ticks: 0,
        }
    }

    /// Counts the tick `sim` has just played.
    pub fn record(&mut self, sim: &Simulation) {
        let want = match self.of {
            HeatOf::Wait => AgentState::Waiting,
            HeatOf::Pass => AgentState::Moving,
        };
        for (_, agent) in sim.agents().iter() {
            if agent.state() == want
                && let Some(c) = self.counts.get_mut(agent.position() as usize)
            {
                *c = c.saturating_add(1);
            }
        }
        self.ticks += 1;
    }

    /// The counts, by cell id.
    pub fn counts(&self) -> &[u32] {
        &self.counts
    }

    /// Ticks counted.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// What is counted.
    pub fn of(&self) -> HeatOf {
        self.of
    }

    /// Draws the counts over `grid` (the map at most `width_px` pixels wide; a shrunk pixel
    /// shows the largest count of its cells), on a log scale, with a title and a colour bar
    /// labelled with counts.
    ///
    /// # Errors
    /// [`RenderError::Invalid`] for a width of 0 or over 8192, or a grid of another size.
    pub fn draw(&self, grid: &Grid, width_px: u32) -> Result<HeatmapImage, RenderError> {
        if width_px == 0 || width_px > super::raster::MAX_WIDTH {
            return Err(RenderError::Invalid(format!(
                "picture width {width_px}: expected 1 to 8192 pixels"
            )));
        }
        if (grid.width(), grid.height()) != (self.width, self.height) {
            return Err(RenderError::Invalid(
                "the heatmap was made for another map".into(),
            ));
        }
        let (scale, shrink) = fit(self.width, width_px);
        let cols = self.width.div_ceil(shrink);
        let rows = self.height.div_ceil(shrink);
        // Largest count and wall majority per pixel of the map.
        let mut top = vec![0u32; (cols * rows) as usize];
        let mut walls = vec![0u32; (cols * rows) as usize];
        let mut cells = vec![0u32; (cols * rows) as usize];
        for y in 0..self.height {
            for x in 0..self.width {
                let c = y * self.width + x;
                let p = ((y / shrink) * cols + x / shrink) as usize;
                top[p] = top[p].max(self.counts[c as usize]);
                walls[p] += u32::from(!grid.is_walkable(c));
                cells[p] += 1;
            }
        }
        let max = self.counts.iter().copied().max().unwrap_or(0);
        let log_max = (1.0 + f64::from(max)).ln();
        let t_of = |count: u32| {
            if log_max > 0.0 {
                (1.0 + f64::from(count)).ln() / log_max
            } else {
                0.0
            }
        };
        // Layout: title band, map, colour bar and its labels on the right.
        let (map_w, map_h) = (
            u64::from(cols) * u64::from(scale),
            u64::from(rows) * u64::from(scale),
        );
        if map_w > 65535 || map_h > 65535 {
            return Err(RenderError::Invalid(format!(
                "a {} x {} map at {width_px} pixels wide is {map_w} x {map_h} pixels, over 65535",
                self.width, self.height
            )));
        }
        let (map_w, map_h) = (map_w as u32, map_h as u32);
        let font = 2;
        let labels = (0..=4)
            .map(|k| {
                let t = f64::from(k) / 4.0;
                let value = (t * log_max).exp() - 1.0;
                (t, format!("{}", value.round() as u64))
            })
            .collect::<Vec<_>>();
        let label_w = labels
            .iter()
            .map(|(_, s)| text_width(s, font))
            .max()
            .unwrap_or(0);
        let bar_x = map_w + 12;
        let bar_w = 16;
        let width = bar_x + bar_w + 6 + label_w + 8;
        let what = match self.of {
            HeatOf::Wait => "waits per cell",
            HeatOf::Pass => "steps per cell",
        };
        let title = [
            what.to_string(),
            format!("{} ticks", self.ticks),
            format!("max {max} (log scale)"),
        ];
        let (title, title_font) = title_lines(&title, width - 8, font);
        let title_h = title.len() as u32 * (5 * title_font + 3) + 9;
        let height = title_h + map_h.max(120) + 8;
        let (map_x, map_y) = (0, title_h);
        let mut rgb = vec![0u8; 3 * (width * height) as usize];
        for px in rgb.chunks_exact_mut(3) {
            px.copy_from_slice(&WHITE);
        }
        let fill = |rgb: &mut [u8], x0: u32, y0: u32, w: u32, h: u32, c: [u8; 3]| {
            for y in y0..y0 + h {
                for x in x0..x0 + w {
                    let i = 3 * (y * width + x) as usize;
                    rgb[i..i + 3].copy_from_slice(&c);
                }
            }
        };
        for py in 0..rows {
            for px in 0..cols {
                let p = (py * cols + px) as usize;
                let colour = if top[p] > 0 {
                    colour_at(t_of(top[p]))
                } else if walls[p] * 2 > cells[p] {
                    WALL
                } else {
                    FREE
                };
                fill(
                    &mut rgb,
                    map_x + px * scale,
                    map_y + py * scale,
                    scale,
                    scale,
                    colour,
                );
            }
        }
        // Colour bar: hot at the top.
        let bar_h = map_h.max(120);
        for y in 0..bar_h {
            let t = 1.0 - f64::from(y) / f64::from((bar_h - 1).max(1));
            fill(&mut rgb, bar_x, title_h + y, bar_w, 1, colour_at(t));
        }
        for (t, text) in &labels {
            let y = title_h + ((1.0 - t) * f64::from(bar_h - 1)).round() as u32;
            fill(&mut rgb, bar_x + bar_w, y, 4, 1, INK);
            let ty = y
                .saturating_sub(5 * font / 2)
                .max(title_h)
                .min(height - 5 * font);
            draw_text(&mut rgb, width, bar_x + bar_w + 6, ty, text, font, INK);
        }
        for (i, line) in title.iter().enumerate() {
            let y = 6 + i as u32 * (5 * title_font + 3);
            draw_text(&mut rgb, width, 4, y, line, title_font, INK);
        }
        Ok(HeatmapImage {
            width,
            height,
            rgb,
            map_x,
            map_y,
            scale,
            shrink,
        })
    }

    /// [`draw`](Self::draw), written to `out` as a PNG.
    ///
    /// # Errors
    /// As [`draw`](Self::draw); write and encoder errors.
    pub fn write_png<W: Write>(
        &self,
        out: W,
        grid: &Grid,
        width_px: u32,
    ) -> Result<(), RenderError> {
        let image = self.draw(grid, width_px)?;
        super::png::write_rgb_png(out, image.width, image.height, &image.rgb)
    }
}

/// The title's parts joined by ", " into as few lines as fit in `room` pixels at `font` (or,
/// when a part alone does not fit, at the smallest font), so that a narrow picture shows the
/// whole title rather than cutting it.
fn title_lines(parts: &[String], room: u32, font: u32) -> (Vec<String>, u32) {
    let font = if parts.iter().all(|p| text_width(p, font) <= room) {
        font
    } else {
        1
    };
    let mut lines: Vec<String> = Vec::new();
    for part in parts {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line}, {part}"), font) <= room => {
                line.push_str(", ");
                line.push_str(part);
            }
            _ => lines.push(part.clone()),
        }
    }
    (lines, font)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_run_from_cold_to_hot() {
        assert_eq!(colour_at(0.0), STOPS[0]);
        assert_eq!(colour_at(1.0), STOPS[4]);
        assert_eq!(colour_at(0.5), STOPS[2]);
    }

    #[test]
    fn a_narrow_picture_shows_the_whole_title_on_more_lines() {
        let parts = [
            "waits per cell".to_string(),
            "800 ticks".to_string(),
            "max 123456 (log scale)".to_string(),
        ];
        let (one, font) = title_lines(&parts, 1000, 2);
        assert_eq!((one.len(), font), (1, 2));
        assert_eq!(one[0], "waits per cell, 800 ticks, max 123456 (log scale)");
        // `--render-size 256`: the picture is about 300 pixels wide.
        let (lines, font) = title_lines(&parts, 300, 2);
        assert_eq!((lines.len(), font), (2, 2), "{lines:?}");
        assert!(lines.iter().all(|l| text_width(l, font) <= 300));
        assert_eq!(lines.join(", "), one[0], "nothing cut");
        let (lines, font) = title_lines(&parts, 100, 2);
        assert_eq!(font, 1);
        assert!(lines.iter().all(|l| text_width(l, font) <= 100));
        assert_eq!(lines.join(", "), one[0]);
        // A heatmap drawn 64 pixels wide keeps its title within the picture.
        let grid = Grid::from_ascii(&"........\n".repeat(8)).unwrap();
        let mut heat = Heatmap::new(&grid, HeatOf::Pass);
        heat.ticks = 800;
        let image = heat.draw(&grid, 64).unwrap();
        assert!(image.width < text_width("steps per cell, 800 ticks, max 0 (log scale)", 2));
    }
}
