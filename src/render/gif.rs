//! Animated GIF output: frames streamed to the writer as the run goes.

use std::borrow::Cow;
use std::io::Write;
use std::time::{Duration, Instant};

use ::gif::{DisposalMethod, Encoder, Frame, Repeat};
use crossbeam_channel::{Receiver, Sender};

use super::RenderError;
use super::raster::{Colouring, PALETTE, Raster, TRANSPARENT};
use crate::sim::Simulation;

/// How [`GifRecorder`] draws.
#[derive(Debug, Clone)]
pub struct GifOptions {
    /// Picture width in pixels, at most (see [`Raster::new`]).
    pub width: u32,
    /// A frame every `every` ticks (at least 1).
    pub every: u64,
    /// Hundredths of a second each frame shows (the last one shows 2 s).
    pub delay_cs: u16,
    /// How agents are coloured.
    pub colouring: Colouring,
}

impl Default for GifOptions {
    fn default() -> Self {
        GifOptions {
            width: 512,
            every: 4,
            delay_cs: 4,
            colouring: Colouring::default(),
        }
    }
}

/// Writes an animated GIF of a [`Simulation`]: made from the simulation before its first
/// tick (frame 0), then [`record`](Self::record) after every [`Simulation::step`] (a frame
/// when the ticks played are a multiple of [`GifOptions::every`]), then
/// [`finish`](Self::finish) (a frame of the final state when the last tick had none). A run of
/// `T` ticks thus has `1 + T / every` frames, plus one when `every` does not divide `T`.
///
/// Frames are written as they come, each as the rectangle that changed since the previous one
/// with unchanged pixels transparent (small files; memory stays a few frames however long the
/// run). The palette is fixed: [`PALETTE`]. The frames are compressed (LZW) and written on a
/// thread of the recorder's own, so that the caller's thread only draws them; at most two
/// frames wait for it.
pub struct GifRecorder<W: Write + Send + 'static> {
    /// Frames to the encoder thread; `None` once finished.
    to_encoder: Option<Sender<Job>>,
    /// Spent frame buffers back from it, for reuse.
    spare: Receiver<Vec<u8>>,
    encoder: Option<std::thread::JoinHandle<Result<(W, Duration), RenderError>>>,
    options: GifOptions,
    raster: Raster,
    /// The frame before `pending`, as shown.
    shown: Vec<u8>,
    /// The newest frame, written when the next one comes (or at the end, with a longer delay).
    pending: Vec<u8>,
    first: bool,
    frames: u64,
    last_tick_drawn: bool,
    spent: Duration,
    encode_spent: Duration,
}

/// One frame for the encoder thread.
struct Job {
    delay: u16,
    transparent: Option<u8>,
    rect: (u16, u16, u16, u16),
    pixels: Vec<u8>,
}

/// The encoder thread: writes each frame it is sent, hands the buffer back.
fn encode_all(
    encoder: &mut Encoder<impl Write>,
    jobs: &Receiver<Job>,
    spare: &Sender<Vec<u8>>,
) -> Result<Duration, RenderError> {
    let mut spent = Duration::ZERO;
    for job in jobs {
        let t0 = Instant::now();
        let (left, top, width, height) = job.rect;
        let frame = Frame {
            delay: job.delay,
            dispose: DisposalMethod::Keep,
            transparent: job.transparent,
            left,
            top,
            width,
            height,
            buffer: Cow::Borrowed(&job.pixels),
            ..Frame::default()
        };
        encoder.write_frame(&frame)?;
        spent += t0.elapsed();
        let _ = spare.try_send(job.pixels);
    }
    Ok(spent)
}

impl<W: Write + Send + 'static> GifRecorder<W> {
    /// Starts a GIF of `sim` as it is now, written to `out` (give it a `BufWriter` for a file).
    ///
    /// # Errors
    /// [`RenderError::Invalid`] for a width out of range or `every` of 0; write errors.
    /// [`RenderError::Io`] when the encoder thread cannot start.
    pub fn new(out: W, sim: &Simulation, options: GifOptions) -> Result<Self, RenderError> {
        let t0 = Instant::now();
        if options.every == 0 {
            return Err(RenderError::Invalid(
                "a frame every 0 ticks: expected at least 1".into(),
            ));
        }
        let mut raster = Raster::new(sim.grid(), options.width)?;
        let palette: Vec<u8> = PALETTE.iter().flatten().copied().collect();
        let mut encoder =
            Encoder::new(out, raster.width() as u16, raster.height() as u16, &palette)?;
        encoder.set_repeat(Repeat::Infinite)?;
        raster.draw(sim, &options.colouring);
        let pending = raster.pixels().to_vec();
        let (to_encoder, jobs) = crossbeam_channel::bounded::<Job>(2);
        let (give_back, spare) = crossbeam_channel::bounded::<Vec<u8>>(4);
        let encoder = std::thread::Builder::new()
            .name("gif encoder".into())
            .spawn(move || {
                let spent = encode_all(&mut encoder, &jobs, &give_back)?;
                Ok((encoder.into_inner()?, spent))
            })?;
        Ok(GifRecorder {
            to_encoder: Some(to_encoder),
            spare,
            encoder: Some(encoder),
            encode_spent: Duration::ZERO,
            shown: vec![0; pending.len()],
            pending,
            first: true,
            frames: 1,
            last_tick_drawn: true,
            raster,
            options,
            spent: t0.elapsed(),
        })
    }

    /// After a tick: draws a frame when the ticks played are a multiple of `every`.
    ///
    /// # Errors
    /// Write errors.
    pub fn record(&mut self, sim: &Simulation) -> Result<(), RenderError> {
        if !sim.tick().is_multiple_of(self.options.every) {
            self.last_tick_drawn = false;
            return Ok(());
        }
        let t0 = Instant::now();
        let result = self.frame(sim);
        self.spent += t0.elapsed();
        result
    }

    fn frame(&mut self, sim: &Simulation) -> Result<(), RenderError> {
        self.raster.draw(sim, &self.options.colouring);
        self.write_pending(self.options.delay_cs)?;
        self.pending.copy_from_slice(self.raster.pixels());
        self.frames += 1;
        self.last_tick_drawn = true;
        Ok(())
    }

    /// Writes `pending` as the rectangle that differs from `shown`.
    fn write_pending(&mut self, delay: u16) -> Result<(), RenderError> {
        let (w, h) = (self.raster.width() as usize, self.raster.height() as usize);
        let (mut x0, mut y0, mut x1, mut y1) = (0, 0, w, h);
        if !self.first {
            // The bounding box of the changed pixels (at least one pixel).
            let (mut bx0, mut by0, mut bx1, mut by1) = (w, h, 0, 0);
            for y in 0..h {
                let (a, b) = (
                    &self.shown[y * w..(y + 1) * w],
                    &self.pending[y * w..(y + 1) * w],
                );
                if a == b {
                    continue;
                }
                let first = a.iter().zip(b).position(|(p, q)| p != q).unwrap_or(0);
                let last = w - a
                    .iter()
                    .rev()
                    .zip(b.iter().rev())
                    .position(|(p, q)| p != q)
                    .unwrap_or(0);
                bx0 = bx0.min(first);
                bx1 = bx1.max(last);
                by0 = by0.min(y);
                by1 = y + 1;
            }
            if bx1 == 0 {
                (bx0, by0, bx1, by1) = (0, 0, 1, 1);
            }
            (x0, y0, x1, y1) = (bx0, by0, bx1, by1);
        }
        let mut scratch = self.spare.try_recv().unwrap_or_default();
        scratch.clear();
        for y in y0..y1 {
            let row = y * w;
            if self.first {
                scratch.extend_from_slice(&self.pending[row + x0..row + x1]);
            } else {
                let old = &self.shown[row + x0..row + x1];
                let new = &self.pending[row + x0..row + x1];
                scratch.extend(
                    old.iter()
                        .zip(new)
                        .map(|(&o, &n)| if o == n { TRANSPARENT } else { n }),
                );
            }
        }
        let job = Job {
            delay,
            transparent: (!self.first).then_some(TRANSPARENT),
            rect: (x0 as u16, y0 as u16, (x1 - x0) as u16, (y1 - y0) as u16),
            pixels: scratch,
        };
        let sent = self.to_encoder.as_ref().map(|tx| tx.send(job).is_ok());
        if sent != Some(true) {
            // The encoder thread stopped: its error says why.
            return Err(self
                .join()
                .err()
                .unwrap_or_else(|| RenderError::Encode("the GIF encoder stopped".into())));
        }
        self.first = false;
        self.shown.copy_from_slice(&self.pending);
        Ok(())
    }

    /// Frames so far (the one waiting to be written included).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Frames the file holds once [`finish`](Self::finish)ed now: [`frames`](Self::frames),
    /// plus the final state's when the last tick recorded had no frame.
    pub fn frames_when_finished(&self) -> u64 {
        self.frames + u64::from(!self.last_tick_drawn)
    }

    /// Width and height of the frames in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.raster.width(), self.raster.height())
    }

    /// Time the caller's thread spent drawing frames so far.
    pub fn time_spent(&self) -> Duration {
        self.spent
    }

    /// Stops the encoder thread once it has written what it was sent; returns the writer, or
    /// the thread's error.
    fn join(&mut self) -> Result<W, RenderError> {
        self.to_encoder = None;
        let handle = self
            .encoder
            .take()
            .ok_or_else(|| RenderError::Encode("the GIF encoder stopped".into()))?;
        let (out, spent) = handle
            .join()
            .map_err(|_| RenderError::Encode("the GIF encoder thread panicked".into()))??;
        self.encode_spent = spent;
        Ok(out)
    }

    /// Draws the final state of `sim` when the last tick had no frame, writes the last frame
    /// (shown 2 s) and the trailer, and returns the writer.
    ///
    /// # Errors
    /// Write errors.
    pub fn finish(self, sim: &Simulation) -> Result<W, RenderError> {
        self.finish_with_times(sim).map(|(out, _, _)| out)
    }

    /// [`finish`](Self::finish), also returning the time the caller's thread spent drawing
    /// (finishing included) and the time the encoder thread spent compressing and writing.
    ///
    /// # Errors
    /// Write errors.
    pub fn finish_with_times(
        mut self,
        sim: &Simulation,
    ) -> Result<(W, Duration, Duration), RenderError> {
        let t0 = Instant::now();
        if !self.last_tick_drawn {
            self.frame(sim)?;
        }
        self.write_pending(200)?;
        let out = self.join()?;
        Ok((out, self.spent + t0.elapsed(), self.encode_spent))
    }
}
