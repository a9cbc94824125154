//! What a run records besides its summary: the progress bar, the trace and the pictures
//! (`--trace`, `--render`, `--heatmap`, `--plots`), wired to the library's recorders.

use std::io::Write;

use super::*;

/// What [`play_interleaved`] records besides the summaries.
pub(super) struct Recording<'a> {
    /// Draw a progress bar on stderr.
    pub(super) progress: bool,
    /// Keep every tick's plans and planning time ([`Played::ticks`]).
    pub(super) keep_ticks: bool,
    /// Stream the per-tick series of copy `.0` to the CSV file `.1` as the run goes.
    pub(super) csv: Option<(usize, &'a Path)>,
    /// Record copy 0 to a trace file.
    pub(super) trace: Option<TraceTo<'a>>,
    /// Draw copy 0.
    pub(super) pictures: Option<PicturesTo<'a>>,
    /// Write copy 0's agent paths to this `--paths` file.
    pub(super) paths: Option<&'a Path>,
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
pub(super) struct Painter<'a> {
    to: PicturesTo<'a>,
    colouring: throng::render::Colouring,
    gif: Option<throng::render::GifRecorder<BufWriter<std::fs::File>>>,
    heatmap: Option<throng::render::Heatmap>,
    plots: Option<throng::render::TickPlots>,
    spent: std::time::Duration,
}

impl<'a> Painter<'a> {
    pub(super) fn new(
        to: PicturesTo<'a>,
        scenario: &Scenario,
        sim: &throng::sim::Simulation,
    ) -> anyhow::Result<Painter<'a>> {
        let t0 = Instant::now();
        let colouring = throng::render::Colouring {
            groups: agent_groups(scenario, sim.agents().slot_count()),
            goals: to.goals,
        };
        let gif = match to.render {
            Some(file) if picture_kind(file) == Some(PictureKind::Gif) => {
                let out = std::fs::File::create(file)
                    .with_context(|| format!("writing {}", file.display()))?;
                let options = throng::render::GifOptions {
                    width: to.size,
                    every: to.every,
                    colouring: colouring.clone(),
                    ..Default::default()
                };
                Some(
                    throng::render::GifRecorder::new(
                        BufWriter::with_capacity(1 << 16, out),
                        sim,
                        options,
                    )
                    .with_context(|| format!("--render {}", file.display()))?,
                )
            }
            _ => None,
        };
        Ok(Painter {
            heatmap: to
                .heatmap
                .map(|(_, of)| throng::render::Heatmap::new(sim.grid(), of)),
            plots: to.plots.map(|_| {
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
                format!(
                    "writing {}",
                    self.to.render.unwrap_or(Path::new("")).display()
                )
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

    /// Writes what is left once the run is over.
    pub(super) fn finish(
        self,
        sim: &throng::sim::Simulation,
        loop_start: Instant,
    ) -> anyhow::Result<PictureStats> {
        let t0 = Instant::now();
        let mut frames = 0;
        let mut size = (0, 0);
        let mut encode_s = 0.0;
        if let Some(gif) = self.gif {
            frames = gif.frames_when_finished();
            size = gif.size();
            let file = self.to.render.unwrap_or(Path::new(""));
            let (mut out, _, encoding) = gif
                .finish_with_times(sim)
                .with_context(|| format!("writing {}", file.display()))?;
            encode_s = encoding.as_secs_f64();
            out.flush()
                .with_context(|| format!("writing {}", file.display()))?;
        } else if let Some(file) = self.to.render {
            let mut raster = throng::render::Raster::new(sim.grid(), self.to.size)
                .with_context(|| format!("--render {}", file.display()))?;
            raster.draw(sim, &self.colouring);
            size = (raster.width(), raster.height());
            let out = std::fs::File::create(file)
                .with_context(|| format!("writing {}", file.display()))?;
            let mut out = BufWriter::new(out);
            throng::render::write_png(&mut out, &raster)
                .with_context(|| format!("writing {}", file.display()))?;
            out.flush()
                .with_context(|| format!("writing {}", file.display()))?;
        }
        if let (Some(h), Some((file, _))) = (&self.heatmap, self.to.heatmap) {
            let out = std::fs::File::create(file)
                .with_context(|| format!("writing {}", file.display()))?;
            let mut out = BufWriter::new(out);
            h.write_png(&mut out, sim.grid(), self.to.size)
                .with_context(|| format!("writing {}", file.display()))?;
            out.flush()
                .with_context(|| format!("writing {}", file.display()))?;
        }
        if let (Some(p), Some(dir)) = (&self.plots, self.to.plots) {
            p.write_svgs(dir)?;
        }
        let bytes = self
            .to
            .render
            .and_then(|f| std::fs::metadata(f).ok())
            .map_or(0, |m| m.len());
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
