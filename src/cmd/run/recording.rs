//! What a run records besides its summary: the progress bar, the trace and the pictures
//! (`--trace`, `--render`, `--heatmap`, `--plots`), wired to the library's recorders.

use std::io::Write;

use super::*;
use crate::cmd::output_path::{OutputFile, ReadyOutputs};

/// What [`play_interleaved`] records besides the summaries.
pub(super) struct Recording {
    /// Draw a progress bar on stderr.
    pub(super) progress: bool,
    /// Keep every tick's plans and planning time ([`Played::ticks`]).
    pub(super) keep_ticks: bool,
    /// Stream the per-tick series of copy `.0` to the CSV output `.1` as the run goes.
    pub(super) csv: Option<(usize, output::Output)>,
    /// Record copy 0 to a trace file.
    pub(super) trace: Option<TraceTo>,
    /// Draw copy 0.
    pub(super) pictures: Option<PicturesTo>,
    /// Write copy 0's agent paths to this `--paths` file.
    pub(super) paths: Option<OutputFile>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum PictureKind {
    Gif,
    Png,
}

/// A picture file's kind by its extension.
pub(super) fn picture_kind(file: &Path) -> Option<PictureKind> {
    let ext = file.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "gif" => Some(PictureKind::Gif),
        "png" => Some(PictureKind::Png),
        _ => None,
    }
}

/// The pictures being made of copy 0 while it plays.
pub(super) struct Painter {
    to: PicturesTo,
    colouring: throng::render::Colouring,
    gif: Option<throng::render::GifRecorder<BufWriter<std::fs::File>>>,
    heatmap: Option<throng::render::Heatmap>,
    plots: Option<throng::render::TickPlots>,
    spent: std::time::Duration,
}

impl Painter {
    pub(super) fn new(
        mut to: PicturesTo,
        scenario: &Scenario,
        sim: &throng::sim::Simulation,
    ) -> anyhow::Result<Painter> {
        let t0 = Instant::now();
        let colouring = throng::render::Colouring {
            groups: agent_groups(scenario, sim.agents().slot_count()),
            goals: to.goals,
        };
        let gif = match &mut to.render {
            Some(file) if picture_kind(file.path()) == Some(PictureKind::Gif) => {
                let out = file.writer();
                let options = throng::render::GifOptions {
                    width: to.size,
                    every: to.every,
                    colouring: colouring.clone(),
                    ..Default::default()
                };
                Some(
                    throng::render::GifRecorder::new(out, sim, options)
                        .with_context(|| format!("--render {}", file.path().display()))?,
                )
            }
            _ => None,
        };
        Ok(Painter {
            heatmap: to
                .heatmap
                .as_ref()
                .map(|&(_, of)| throng::render::Heatmap::new(sim.grid(), of)),
            plots: to.plots.as_ref().map(|_| {
                throng::render::TickPlots::new(
                    throng::render::TickPlots::BUCKETS,
                    scenario.sim_config().lifelong,
                )
            }),
            to,
            colouring,
            gif,
            spent: t0.elapsed(),
        })
    }

    /// After each tick of copy 0.
    pub(super) fn tick(
        &mut self,
        sim: &throng::sim::Simulation,
        report: &TickReport,
    ) -> anyhow::Result<()> {
        let t0 = Instant::now();
        if let Some(gif) = &mut self.gif {
            gif.record(sim).with_context(|| {
                let file = self.to.render.as_ref().map(OutputFile::path);
                format!("writing {}", file.unwrap_or(Path::new("")).display())
            })?;
        }
        if let Some(h) = &mut self.heatmap {
            h.record(sim);
        }
        if let Some(p) = &mut self.plots {
            p.record(report);
        }
        self.spent += t0.elapsed();
        Ok(())
    }

    /// Writes what is left once the run is over, adding the files to `ready`.
    pub(super) fn finish(
        self,
        sim: &throng::sim::Simulation,
        loop_start: Instant,
        ready: &mut ReadyOutputs,
    ) -> anyhow::Result<PictureStats> {
        let t0 = Instant::now();
        let mut frames = 0;
        let mut size = (0, 0);
        let mut encode_s = 0.0;
        let mut bytes = 0;
        let PicturesTo {
            render,
            size: width,
            heatmap,
            plots,
            ..
        } = self.to;
        if let Some(mut file) = render {
            let shown = file.path().display().to_string();
            let what = || format!("writing {shown}");
            if let Some(gif) = self.gif {
                frames = gif.frames_when_finished();
                size = gif.size();
                let (mut out, _, encoding) = gif.finish_with_times(sim).with_context(what)?;
                encode_s = encoding.as_secs_f64();
                out.flush().with_context(what)?;
            } else {
                let mut raster = throng::render::Raster::new(sim.grid(), width)
                    .with_context(|| format!("--render {shown}"))?;
                raster.draw(sim, &self.colouring);
                size = (raster.width(), raster.height());
                let mut out = file.writer();
                throng::render::write_png(&mut out, &raster).with_context(what)?;
                out.flush().with_context(what)?;
            }
            bytes = file.len();
            ready.add(file);
        }
        if let (Some(h), Some((mut file, _))) = (&self.heatmap, heatmap) {
            let shown = file.path().display().to_string();
            let what = || format!("writing {shown}");
            let mut out = file.writer();
            h.write_png(&mut out, sim.grid(), width)
                .with_context(what)?;
            out.flush().with_context(what)?;
            drop(out);
            ready.add(file);
        }
        if let (Some(p), Some(folder)) = (&self.plots, plots) {
            for (name, svg) in p.charts() {
                let mut file = folder.file(name)?;
                file.fill(|w| w.write_all(svg.as_bytes()))?;
                ready.add(file);
            }
            ready.add_folder(folder);
        }
        Ok(PictureStats {
            frames,
            bytes,
            size,
            render_s: (self.spent + t0.elapsed()).as_secs_f64(),
            encode_s,
            loop_s: loop_start.elapsed().as_secs_f64(),
        })
    }
}
