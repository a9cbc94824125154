//! SVG charts of the per-tick series, with a small SVG writer of its own. Each series keeps a
//! fixed number of buckets (min, mean, max) and merges neighbours when they are full, so
//! memory stays flat however long the run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::sim::TickReport;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    min: f64,
    max: f64,
    sum: f64,
    n: u64,
}

impl Bucket {
    fn merge(a: Bucket, b: Bucket) -> Bucket {
        Bucket {
            min: a.min.min(b.min),
            max: a.max.max(b.max),
            sum: a.sum + b.sum,
            n: a.n + b.n,
        }
    }
}

/// A series of values summarised in at most a fixed number of buckets of equal width: every
/// bucket but the last holds [`per`](Self::per) consecutive values. When all are full, pairs
/// of neighbours merge and `per` doubles.
#[derive(Debug, Clone)]
pub struct Buckets {
    cap: usize,
    per: u64,
    data: Vec<Bucket>,
    count: u64,
}

/// One bucket of a series of [`TickPlots`], as plotted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Index (0-based) of the middle value of the bucket in the series.
    pub x: f64,
    /// Smallest value.
    pub min: f64,
    /// Mean value.
    pub mean: f64,
    /// Largest value.
    pub max: f64,
}

impl Buckets {
    /// An empty series of at most `cap` buckets (rounded up to an even number, at least 2).
    pub fn new(cap: usize) -> Buckets {
        let cap = cap.max(2).next_multiple_of(2);
        Buckets {
            cap,
            per: 1,
            data: Vec::with_capacity(cap),
            count: 0,
        }
    }

    /// Adds the next value.
    pub fn push(&mut self, v: f64) {
        self.count += 1;
        if let Some(last) = self.data.last_mut()
            && last.n < self.per
        {
            *last = Bucket::merge(
                *last,
                Bucket {
                    min: v,
                    max: v,
                    sum: v,
                    n: 1,
                },
            );
            return;
        }
        if self.data.len() == self.cap {
            let merged: Vec<Bucket> = self
                .data
                .chunks(2)
                .map(|p| {
                    if p.len() == 2 {
                        Bucket::merge(p[0], p[1])
                    } else {
                        p[0]
                    }
                })
                .collect();
            self.data.clear();
            self.data.extend(merged);
            self.per *= 2;
        }
        self.data.push(Bucket {
            min: v,
            max: v,
            sum: v,
            n: 1,
        });
    }

    /// Values in each full bucket.
    pub fn per(&self) -> u64 {
        self.per
    }

    /// Values pushed.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Buckets in use.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.data.len()
    }

    /// The buckets in order.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        self.data.iter().enumerate().map(|(i, b)| Point {
            x: (i as u64 * self.per) as f64 + (b.n - 1) as f64 / 2.0,
            min: b.min,
            mean: b.sum / b.n as f64,
            max: b.max,
        })
    }

    fn max(&self) -> f64 {
        self.data.iter().map(|b| b.max).fold(0.0, f64::max)
    }

    /// The largest value but for one outlying bucket: when the largest bucket's max is over 4
    /// times the next largest (the first tick, where every agent plans), the next largest;
    /// else the largest. Returns `(scale top, the outlier if any)`.
    fn robust_max(&self) -> (f64, Option<f64>) {
        let (mut first, mut second) = (0.0f64, 0.0f64);
        for b in &self.data {
            if b.max > first {
                second = first;
                first = b.max;
            } else if b.max > second {
                second = b.max;
            }
        }
        if second > 0.0 && first > 4.0 * second {
            (second, Some(first))
        } else {
            (first, None)
        }
    }
}

/// The per-tick series of a run, fed with each [`TickReport`], written as SVG charts.
#[derive(Debug, Clone)]
pub struct TickPlots {
    lifelong: bool,
    wall: Buckets,
    commands: Buckets,
    planning: Buckets,
    movement: Buckets,
    plans: Buckets,
    waiting: Buckets,
    arrivals: Buckets,
}

/// One line of a chart.
struct Line<'a> {
    name: &'a str,
    colour: &'a str,
    data: &'a Buckets,
}

impl TickPlots {
    /// Buckets per series by default.
    pub const BUCKETS: usize = 1024;

    /// Empty series of at most `buckets` buckets each; `lifelong` runs chart goals reached per
    /// tick instead of arrivals.
    pub fn new(buckets: usize, lifelong: bool) -> TickPlots {
        let b = || Buckets::new(buckets);
        TickPlots {
            lifelong,
            wall: b(),
            commands: b(),
            planning: b(),
            movement: b(),
            plans: b(),
            waiting: b(),
            arrivals: b(),
        }
    }

    /// Adds one tick.
    pub fn record(&mut self, r: &TickReport) {
        self.wall.push(r.wall_ms);
        self.commands.push(r.commands_ms);
        self.planning.push(r.planning_ms);
        self.movement.push(r.movement_ms);
        self.plans.push(f64::from(r.plans));
        self.waiting.push(f64::from(r.waiting));
        self.arrivals.push(f64::from(r.goals_reached));
    }

    /// Ticks recorded.
    pub fn ticks(&self) -> u64 {
        self.wall.count()
    }

    /// The charts as `(file name, SVG text)`: `tick-time.svg` (wall time of the tick and of
    /// its phases), `plans.svg`, `waiting.svg`, and `arrivals.svg` (one-shot runs) or
    /// `goals.svg` (lifelong).
    pub fn charts(&self) -> Vec<(&'static str, String)> {
        let ticks = self.ticks();
        let mut out = vec![
            (
                "tick-time.svg",
                chart(
                    "Tick time by phase",
                    "ms",
                    ticks,
                    &[
                        Line {
                            name: "tick",
                            colour: "#222222",
                            data: &self.wall,
                        },
                        Line {
                            name: "planning",
                            colour: "#2864dc",
                            data: &self.planning,
                        },
                        Line {
                            name: "movement",
                            colour: "#e0501e",
                            data: &self.movement,
                        },
                        Line {
                            name: "commands",
                            colour: "#2eaa50",
                            data: &self.commands,
                        },
                    ],
                ),
            ),
            (
                "plans.svg",
                chart(
                    "Plans per tick",
                    "plans",
                    ticks,
                    &[Line {
                        name: "plans",
                        colour: "#2864dc",
                        data: &self.plans,
                    }],
                ),
            ),
            (
                "waiting.svg",
                chart(
                    "Waiting agents",
                    "agents",
                    ticks,
                    &[Line {
                        name: "waiting",
                        colour: "#e0501e",
                        data: &self.waiting,
                    }],
                ),
            ),
        ];
        out.push(if self.lifelong {
            (
                "goals.svg",
                chart(
                    "Goals reached per tick",
                    "goals",
                    ticks,
                    &[Line {
                        name: "goals",
                        colour: "#2eaa50",
                        data: &self.arrivals,
                    }],
                ),
            )
        } else {
            (
                "arrivals.svg",
                chart(
                    "Arrivals per tick",
                    "agents",
                    ticks,
                    &[Line {
                        name: "arrivals",
                        colour: "#2eaa50",
                        data: &self.arrivals,
                    }],
                ),
            )
        });
        out
    }

    /// Writes [`charts`](Self::charts) into `dir` (which must exist); returns the files.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file that could not be written.
    pub fn write_svgs(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        let mut files = Vec::new();
        for (name, svg) in self.charts() {
            let path = dir.join(name);
            std::fs::write(&path, svg).map_err(|e| Error::io(&path, e))?;
            files.push(path);
        }
        Ok(files)
    }
}

/// A round step near `range / 5`: 1, 2 or 5 times a power of ten.
fn nice_step(range: f64) -> f64 {
    if range <= 0.0 || !range.is_finite() {
        return 1.0;
    }
    let raw = range / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    let f = raw / p;
    p * if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    }
}

/// `v` with as many decimals as `step` needs.
fn label(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    format!("{v:.decimals$}")
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

const W: f64 = 760.0;
const H: f64 = 380.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 130.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 56.0;

/// One chart: the lines' means as polylines (one point per bucket), their min-max ranges as
/// shaded bands when buckets hold several ticks, axes with round tick labels, axis labels, a
/// title and a legend.
fn chart(title: &str, y_label: &str, ticks: u64, lines: &[Line<'_>]) -> String {
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x_max = (ticks.max(2) - 1) as f64;
    // An outlier (the first tick) would flatten everything else: it is drawn off the top
    // and its value written there.
    let robust: Vec<(f64, Option<f64>)> = lines.iter().map(|l| l.data.robust_max()).collect();
    let full_top = lines.iter().map(|l| l.data.max()).fold(0.0, f64::max);
    let mut y_top = robust.iter().map(|r| r.0).fold(0.0, f64::max);
    let clipped = y_top < full_top;
    if !clipped {
        y_top = full_top;
    }
    let y_step = nice_step(y_top);
    let y_max = if y_top > 0.0 {
        (y_top / y_step).ceil() * y_step
    } else {
        1.0
    };
    let x_step = nice_step(x_max).max(1.0);
    let sx = |x: f64| LEFT + x / x_max * pw;
    let sy = |y: f64| TOP + ph - y.min(y_max * 1.04) / y_max * ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"##
    );
    let _ = writeln!(s, r##"<rect width="{W}" height="{H}" fill="#ffffff"/>"##);
    let _ = writeln!(
        s,
        r##"<text class="title" x="{}" y="24" text-anchor="middle" font-size="16">{}</text>"##,
        LEFT + pw / 2.0,
        escape(title)
    );
    // Grid and tick labels.
    let mut y = 0.0;
    while y <= y_max + y_step / 2.0 {
        let py = sy(y);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="#e4e4e4"/><text class="ytick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT + pw,
            LEFT - 6.0,
            py + 4.0,
            label(y, y_step)
        );
        y += y_step;
    }
    let mut x = 0.0;
    while x <= x_max {
        let px = sx(x);
        let _ = writeln!(
            s,
            r##"<line x1="{px:.1}" y1="{:.1}" x2="{px:.1}" y2="{:.1}" stroke="#444444"/><text class="xtick" x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            TOP + ph,
            TOP + ph + 5.0,
            TOP + ph + 18.0,
            label(x, x_step)
        );
        x += x_step;
    }
    let _ = writeln!(
        s,
        r##"<path d="M{LEFT} {TOP}V{:.1}H{:.1}" fill="none" stroke="#444444"/>"##,
        TOP + ph,
        LEFT + pw
    );
    let _ = writeln!(
        s,
        r##"<text class="xlabel" x="{:.1}" y="{:.1}" text-anchor="middle">tick</text>"##,
        LEFT + pw / 2.0,
        H - 14.0
    );
    let _ = writeln!(
        s,
        r##"<text class="ylabel" x="20" y="{:.1}" text-anchor="middle" transform="rotate(-90 20 {:.1})">{}</text>"##,
        TOP + ph / 2.0,
        TOP + ph / 2.0,
        escape(y_label)
    );
    // Bands, then lines, then the legend.
    for line in lines {
        if line.data.per() > 1 {
            let mut d = String::new();
            for p in line.data.points() {
                let _ = write!(d, "{:.1},{:.1} ", sx(p.x), sy(p.max));
            }
            let pts: Vec<Point> = line.data.points().collect();
            for p in pts.iter().rev() {
                let _ = write!(d, "{:.1},{:.1} ", sx(p.x), sy(p.min));
            }
            let _ = writeln!(
                s,
                r##"<polygon class="band" points="{}" fill="{}" fill-opacity="0.18" stroke="none"/>"##,
                d.trim_end(),
                line.colour
            );
        }
    }
    for line in lines {
        let mut d = String::new();
        for p in line.data.points() {
            let _ = write!(d, "{:.1},{:.1} ", sx(p.x), sy(p.mean));
        }
        let _ = writeln!(
            s,
            r##"<polyline class="series" data-name="{}" points="{}" fill="none" stroke="{}" stroke-width="1.2"/>"##,
            escape(line.name),
            d.trim_end(),
            line.colour
        );
    }
    for (i, line) in lines.iter().enumerate() {
        let ly = TOP + 10.0 + 18.0 * i as f64;
        let lx = LEFT + pw + 14.0;
        let _ = writeln!(
            s,
            r##"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{}" stroke-width="3"/><text class="legend" x="{}" y="{}">{}</text>"##,
            lx + 18.0,
            line.colour,
            lx + 24.0,
            ly + 4.0,
            escape(line.name)
        );
    }
    if clipped {
        let _ = writeln!(
            s,
            r##"<text class="note" x="{:.1}" y="{:.1}" font-size="10">off the chart: max {}</text>"##,
            LEFT + 6.0,
            TOP - 4.0,
            label(full_top, if full_top < 10.0 { 0.01 } else { 1.0 })
        );
    }
    if let Some(per) = lines.first().map(|l| l.data.per()).filter(|&p| p > 1) {
        let _ = writeln!(
            s,
            r##"<text class="note" x="{:.1}" y="{:.1}" font-size="10">line: mean of {per} ticks; band: min to max</text>"##,
            LEFT + pw + 14.0,
            TOP + 18.0 * lines.len() as f64 + 14.0
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_stay_within_their_cap_and_keep_extremes() {
        let mut b = Buckets::new(8);
        for v in 0..1000 {
            b.push(f64::from(v));
        }
        assert!(b.len() <= 8 && b.len() > 4, "{}", b.len());
        assert_eq!(b.count(), 1000);
        let pts: Vec<Point> = b.points().collect();
        assert_eq!(pts[0].min, 0.0);
        assert_eq!(pts.last().unwrap().max, 999.0);
        let n: u64 = (0..pts.len() - 1).map(|_| b.per()).sum();
        assert!(n < 1000);
        // The mean of everything is kept.
        let mut small = Buckets::new(4);
        for v in [1.0, 2.0, 3.0, 4.0, 5.0] {
            small.push(v);
        }
        assert_eq!(small.per(), 2);
        let means: Vec<f64> = small.points().map(|p| p.mean).collect();
        assert_eq!(means, vec![1.5, 3.5, 5.0]);
    }

    #[test]
    fn one_outlying_tick_does_not_set_the_scale() {
        let mut b = Buckets::new(16);
        for v in [500.0, 3.0, 2.0, 4.0] {
            b.push(v);
        }
        assert_eq!(b.robust_max(), (4.0, Some(500.0)));
        b.push(200.0);
        assert_eq!(b.robust_max(), (500.0, None));
        let svg = chart(
            "t",
            "ms",
            5,
            &[Line {
                name: "a",
                colour: "#000000",
                data: &Buckets::new(4),
            }],
        );
        assert!(!svg.contains("off the chart"));
    }

    #[test]
    fn steps_are_round() {
        assert_eq!(nice_step(100.0), 20.0);
        assert_eq!(nice_step(7.0), 2.0);
        assert_eq!(label(0.25, 0.05), "0.25");
    }
}
