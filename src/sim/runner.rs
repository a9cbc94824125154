//! A [`Simulation`] on its own thread, driven through channels: see [`SimulationHandle`].

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Select, Sender, TrySendError};

use super::command::Command;
use super::metrics::TickReport;
use super::simulation::Simulation;

/// What the simulation thread does when the report channel is full. See
/// [`SimulationHandle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WhenFull {
    /// Keep ticking; merge the reports that do not fit into one. The default.
    #[default]
    Coalesce,
    /// Wait for room before the next tick: one report per tick, the simulation paced by its
    /// consumer.
    Wait,
}

/// Settings of a [`SimulationHandle`]. Plain data; every field has a default.
#[derive(Debug, Clone)]
pub struct RunnerConfig {
    /// Time between two ticks when running freely ([`SimulationHandle::run`]); ticks start on
    /// a fixed schedule, and a tick that overruns delays the next instead of causing a burst.
    /// `None` runs as fast as possible. Ticks asked for with [`SimulationHandle::step`] are
    /// always played at once. Default: `None`.
    pub tick_interval: Option<Duration>,
    /// Whether the simulation starts running freely (`true`) or paused (`false`). Default:
    /// `false`.
    pub start_running: bool,
    /// Capacity of the report channel, at least 1. Default: 64.
    pub report_capacity: usize,
    /// What to do when the report channel is full. Default: [`WhenFull::Coalesce`].
    pub when_full: WhenFull,
    /// The rayon pool to plan on. Default: `None`, the global pool.
    pub pool: Option<Arc<rayon::ThreadPool>>,
}

impl Default for RunnerConfig {
    fn default() -> Self {
        RunnerConfig {
            tick_interval: None,
            start_running: false,
            report_capacity: 64,
            when_full: WhenFull::Coalesce,
            pool: None,
        }
    }
}

/// The simulation thread is gone: it panicked (the panic is re-raised by
/// [`SimulationHandle::stop`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the simulation thread has stopped")]
pub struct RunnerStopped;

type Job = Box<dyn FnOnce(&mut Simulation) + Send>;

enum Message {
    Command(Command),
    Step(u64),
    Run,
    Pause,
    TickInterval(Option<Duration>),
    With(Job),
    Stop,
}

#[derive(Debug, Default)]
struct Shared {
    ticks: AtomicU64,
    coalesced: AtomicU64,
}

/// A [`Simulation`] running on its own thread, driven through channels.
///
/// [`SimulationHandle::spawn`] moves a simulation onto a new thread and returns a handle. The
/// caller (typically a game's frame loop) talks to it without ever blocking:
///
/// - [`send`](SimulationHandle::send) queues a [`Command`] (applied at the start of the next
///   tick, like [`Simulation::queue`]); [`step`](SimulationHandle::step),
///   [`run`](SimulationHandle::run), [`pause`](SimulationHandle::pause) and
///   [`set_tick_interval`](SimulationHandle::set_tick_interval) control the clock;
///   [`with`](SimulationHandle::with) runs a closure on the simulation between two ticks (to
///   read positions for drawing, say) and hands its result back on a channel. All of these go
///   through one unbounded channel, in order, and return at once.
/// - Every tick produces a [`TickReport`], delivered on a bounded channel:
///   [`try_recv_report`](SimulationHandle::try_recv_report) and
///   [`drain_reports`](SimulationHandle::drain_reports) never wait;
///   [`reports`](SimulationHandle::reports) gives the receiver itself for blocking or `select!`.
/// - [`stop`](SimulationHandle::stop) ends the thread and hands the simulation back.
///
/// # A slow consumer
///
/// The report channel holds [`RunnerConfig::report_capacity`] reports. What happens when it is
/// full is [`RunnerConfig::when_full`]:
///
/// - [`WhenFull::Coalesce`] (the default): the simulation keeps ticking and merges the reports
///   that do not fit into one, sent as soon as there is room. Nothing is lost and the order is
///   kept: a merged report has the tick number and end state (agent counts, state hash) of its
///   last tick, the sums of the counters and timings of all its ticks, and every added agent
///   and rejected command of all of them. A report therefore covers the ticks since the
///   previous one (`report.tick - previous.tick` of them); normally one. Memory stays bounded
///   and the consumer's frame rate never slows the simulation.
/// - [`WhenFull::Wait`]: the simulation waits for room before its next tick (back-pressure),
///   so there is exactly one report per tick. The caller is still never blocked, and messages
///   are still handled while it waits (except those sent after a [`step`](Self::step), which
///   as always wait for its ticks).
///
/// Dropping the handle without calling [`stop`](SimulationHandle::stop) lets the thread end on
/// its own after its current tick; the simulation is then dropped with it.
///
/// ```
/// use std::time::Duration;
/// use throng::grid::Grid;
/// use throng::sim::{Command, RunnerConfig, SimConfig, Simulation, SimulationHandle};
///
/// let grid = Grid::from_ascii(
///     "..........\n\
///      .########.\n\
///      ..........",
/// )?;
/// let sim = Simulation::new(grid, SimConfig::default())?;
/// let handle = SimulationHandle::spawn(sim, RunnerConfig::default())?;
///
/// // Queue an agent and play 20 ticks; neither call waits for the simulation.
/// handle.send(Command::AddAgent { start: 0, goal: Some(29) })?;
/// handle.step(20)?;
///
/// // The first report lists the new agent's id.
/// let first = handle.reports().recv_timeout(Duration::from_secs(10))?;
/// assert_eq!(first.tick, 0);
/// let id = first.added[0];
///
/// // Ask the simulation thread where the agent is, once the 20 ticks are played.
/// let answer = handle.with(move |sim| sim.agent(id).map(|a| a.position()))?;
/// assert_eq!(answer.recv_timeout(Duration::from_secs(10))?, Some(29));
///
/// let sim = handle.stop();
/// assert_eq!(sim.tick(), 20);
/// assert_eq!(sim.summary().arrived, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SimulationHandle {
    messages: Sender<Message>,
    reports: Receiver<TickReport>,
    shared: Arc<Shared>,
    thread: JoinHandle<Simulation>,
}

impl std::fmt::Debug for SimulationHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimulationHandle")
            .field("ticks_played", &self.ticks_played())
            .field("reports_queued", &self.reports.len())
            .finish_non_exhaustive()
    }
}

impl SimulationHandle {
    /// Moves `sim` onto a new thread (named `throng-sim`), paused unless
    /// [`RunnerConfig::start_running`].
    ///
    /// # Errors
    /// The operating system's error when the thread cannot be created.
    pub fn spawn(sim: Simulation, config: RunnerConfig) -> std::io::Result<SimulationHandle> {
        let (messages, inbox) = crossbeam_channel::unbounded();
        let (reports_out, reports) = crossbeam_channel::bounded(config.report_capacity.max(1));
        let shared = Arc::new(Shared::default());
        shared.ticks.store(sim.tick(), Ordering::Relaxed);
        let worker = Worker {
            sim,
            pending: 0,
            held: VecDeque::new(),
            running: config.start_running,
            interval: config.tick_interval,
            next_tick: Instant::now(),
            when_full: config.when_full,
            pool: config.pool,
            backlog: None,
            shared: Arc::clone(&shared),
        };
        let thread = std::thread::Builder::new()
            .name("throng-sim".into())
            .spawn(move || worker.run(&inbox, &reports_out))?;
        Ok(SimulationHandle {
            messages,
            reports,
            shared,
            thread,
        })
    }

    fn post(&self, message: Message) -> Result<(), RunnerStopped> {
        self.messages.send(message).map_err(|_| RunnerStopped)
    }

    /// Queues a command for the start of the next tick. Returns at once.
    ///
    /// # Errors
    /// [`RunnerStopped`] when the simulation thread has panicked.
    pub fn send(&self, command: Command) -> Result<(), RunnerStopped> {
        self.post(Message::Command(command))
    }

    /// Plays `ticks` more ticks as fast as possible, whether running or paused. Returns at
    /// once.
    ///
    /// Messages sent after it (commands, [`with`](Self::with), ...) are handled once these
    /// ticks are played, so `step(10)` then `with(f)` shows `f` the simulation 10 ticks on.
    /// Only [`stop`](Self::stop) does not wait for them.
    ///
    /// # Errors
    /// [`RunnerStopped`] when the simulation thread has panicked.
    pub fn step(&self, ticks: u64) -> Result<(), RunnerStopped> {
        self.post(Message::Step(ticks))
    }

    /// Runs freely, one tick every [`RunnerConfig::tick_interval`] (or as fast as possible).
    ///
    /// # Errors
    /// [`RunnerStopped`] when the simulation thread has panicked.
    pub fn run(&self) -> Result<(), RunnerStopped> {
        self.post(Message::Run)
    }

    /// Stops running freely after the current tick (ticks asked for with
    /// [`step`](Self::step) are still played).
    ///
    /// # Errors
    /// [`RunnerStopped`] when the simulation thread has panicked.
    pub fn pause(&self) -> Result<(), RunnerStopped> {
        self.post(Message::Pause)
    }

    /// Changes the time between ticks when running freely (`None`: as fast as possible).
    ///
    /// # Errors
    /// [`RunnerStopped`] when the simulation thread has panicked.
    pub fn set_tick_interval(&self, interval: Option<Duration>) -> Result<(), RunnerStopped> {
        self.post(Message::TickInterval(interval))
    }

    /// Runs `f` on the simulation thread between two ticks, after every message sent before
    /// it, and delivers its result on the returned channel. Returns at once; poll the
    /// receiver (`try_recv`) from a frame loop, or wait on it.
    ///
    /// `f` may read the simulation (positions to draw, an agent's path) or change it directly
    /// (`add_agent` returns the new id at once, where a [`Command`] reports it in the next
    /// [`TickReport`]).
    ///
    /// # Errors
    /// [`RunnerStopped`] when the simulation thread has panicked.
    pub fn with<R, F>(&self, f: F) -> Result<Receiver<R>, RunnerStopped>
    where
        F: FnOnce(&mut Simulation) -> R + Send + 'static,
        R: Send + 'static,
    {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.post(Message::With(Box::new(move |sim| {
            // The caller may have dropped the receiver: nobody wants the answer then.
            let _ = tx.send(f(sim));
        })))?;
        Ok(rx)
    }

    /// The next report, if one is waiting. Never blocks.
    pub fn try_recv_report(&self) -> Option<TickReport> {
        self.reports.try_recv().ok()
    }

    /// Every report waiting now, oldest first. Never blocks.
    pub fn drain_reports(&self) -> impl Iterator<Item = TickReport> + '_ {
        self.reports.try_iter()
    }

    /// The report channel itself, to wait on (`recv_timeout`) or `select!` over.
    pub fn reports(&self) -> &Receiver<TickReport> {
        &self.reports
    }

    /// Ticks played so far (updated after each tick).
    pub fn ticks_played(&self) -> u64 {
        self.shared.ticks.load(Ordering::Acquire)
    }

    /// Ticks whose report was merged into a later one because the channel was full (always 0
    /// with [`WhenFull::Wait`]).
    pub fn coalesced_reports(&self) -> u64 {
        self.shared.coalesced.load(Ordering::Relaxed)
    }

    /// Stops the thread after its current tick and hands the simulation back. Ticks asked for
    /// with [`step`](Self::step) and not yet played are dropped, but nothing else sent before
    /// is lost: commands not yet applied stay queued in the simulation (they apply at its next
    /// [`Simulation::step`]) and [`with`](Self::with) closures run. Reports still in the
    /// channel are dropped with the handle.
    ///
    /// Blocks for at most the current tick.
    ///
    /// # Panics
    /// Re-raises the panic of the simulation thread, if it panicked.
    pub fn stop(self) -> Simulation {
        let _ = self.messages.send(Message::Stop);
        match self.thread.join() {
            Ok(sim) => sim,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// The simulation thread's state.
struct Worker {
    sim: Simulation,
    /// Ticks asked for with `step` and not yet played.
    pending: u64,
    /// Messages received while `step` ticks were pending, handled in order once they are
    /// played.
    held: VecDeque<Message>,
    running: bool,
    interval: Option<Duration>,
    /// When the next free-running tick is due.
    next_tick: Instant,
    when_full: WhenFull,
    pool: Option<Arc<rayon::ThreadPool>>,
    /// A report that did not fit in the channel (merged with later ones under `Coalesce`).
    backlog: Option<TickReport>,
    shared: Arc<Shared>,
}

/// What one wait on the channels gave.
enum Event {
    Message(Message),
    /// The handle was dropped.
    Disconnected,
    /// The backlog went out.
    Sent,
    /// Nothing ready before the deadline.
    Idle,
}

impl Worker {
    fn run(mut self, inbox: &Receiver<Message>, reports: &Sender<TickReport>) -> Simulation {
        loop {
            // Serve every ready message (and send the backlog when there is room) before
            // ticking; wait when there is nothing to play.
            let due = self.due();
            let deadline = if due {
                Some(Instant::now())
            } else if self.running && self.may_tick() {
                Some(self.next_tick)
            } else {
                None
            };
            match self.wait(inbox, reports, deadline) {
                Event::Message(Message::Stop) | Event::Disconnected => return self.finish(),
                Event::Message(message) => {
                    if self.pending > 0 || !self.held.is_empty() {
                        self.held.push_back(message);
                    } else {
                        self.handle(message);
                    }
                }
                Event::Sent => {}
                Event::Idle => {
                    if self.due() {
                        self.tick(reports);
                    }
                }
            }
        }
    }

    /// Hands the simulation back. Commands held behind unplayed `step` ticks are queued in it
    /// and closures run, so nothing sent before `stop` is lost; the clock messages are moot.
    fn finish(mut self) -> Simulation {
        for message in std::mem::take(&mut self.held) {
            match message {
                Message::Command(command) => self.sim.queue(command),
                Message::With(job) => job(&mut self.sim),
                _ => {}
            }
        }
        self.sim
    }

    fn may_tick(&self) -> bool {
        self.backlog.is_none() || self.when_full == WhenFull::Coalesce
    }

    fn due(&self) -> bool {
        self.may_tick() && (self.pending > 0 || (self.running && Instant::now() >= self.next_tick))
    }

    fn wait(
        &mut self,
        inbox: &Receiver<Message>,
        reports: &Sender<TickReport>,
        deadline: Option<Instant>,
    ) -> Event {
        // Biased: messages first, so a flood of reports never delays a command.
        let mut select = Select::new_biased();
        let inbox_op = select.recv(inbox);
        let send_op = self.backlog.is_some().then(|| select.send(reports));
        let selected = match deadline {
            Some(deadline) => match select.select_deadline(deadline) {
                Ok(op) => op,
                Err(_) => return Event::Idle,
            },
            None => select.select(),
        };
        if selected.index() == inbox_op {
            match selected.recv(inbox) {
                Ok(message) => Event::Message(message),
                Err(_) => Event::Disconnected,
            }
        } else {
            debug_assert_eq!(Some(selected.index()), send_op);
            let report = self
                .backlog
                .take()
                .expect("send is selected only with a backlog");
            // An error means the consumer is gone; the report has nowhere to go.
            let _ = selected.send(reports, report);
            Event::Sent
        }
    }

    fn handle(&mut self, message: Message) {
        match message {
            Message::Command(command) => self.sim.queue(command),
            Message::Step(ticks) => self.pending = self.pending.saturating_add(ticks),
            Message::Run => {
                if !self.running {
                    self.running = true;
                    self.next_tick = Instant::now();
                }
            }
            Message::Pause => self.running = false,
            Message::TickInterval(interval) => {
                self.interval = interval;
                self.next_tick = Instant::now();
            }
            Message::With(job) => job(&mut self.sim),
            Message::Stop => unreachable!("handled by the loop"),
        }
    }

    fn tick(&mut self, reports: &Sender<TickReport>) {
        let report = match &self.pool {
            Some(pool) => pool.install(|| self.sim.step()),
            None => self.sim.step(),
        };
        self.shared.ticks.store(self.sim.tick(), Ordering::Release);
        if self.pending > 0 {
            self.pending -= 1;
            // Messages held behind the step are next, in order, up to the next step.
            while self.pending == 0 {
                let Some(message) = self.held.pop_front() else {
                    break;
                };
                self.handle(message);
            }
        } else {
            // A free-running tick: schedule the next one, without catching up on lost time.
            let now = Instant::now();
            self.next_tick = match self.interval {
                Some(interval) => (self.next_tick + interval).max(now),
                None => now,
            };
        }
        let report = match self.backlog.take() {
            Some(mut older) => {
                merge(&mut older, report);
                self.shared.coalesced.fetch_add(1, Ordering::Relaxed);
                older
            }
            None => report,
        };
        match reports.try_send(report) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => {}
            Err(TrySendError::Full(report)) => self.backlog = Some(report),
        }
    }
}

/// Folds the report of a later tick into `into`: end state and tick number of the later one,
/// sums of counters and timings, both lists of added agents and rejected commands.
fn merge(into: &mut TickReport, later: TickReport) {
    into.tick = later.tick;
    into.wall_ms += later.wall_ms;
    into.commands_ms += later.commands_ms;
    into.planning_ms += later.planning_ms;
    into.movement_ms += later.movement_ms;
    into.plans = into.plans.saturating_add(later.plans);
    into.plans_failed = into.plans_failed.saturating_add(later.plans_failed);
    into.plans_deferred = later.plans_deferred;
    into.nodes_expanded = into.nodes_expanded.saturating_add(later.nodes_expanded);
    into.moved = into.moved.saturating_add(later.moved);
    into.waiting = into.waiting.saturating_add(later.waiting);
    into.goals_reached = into.goals_reached.saturating_add(later.goals_reached);
    into.agents = later.agents;
    into.at_goal = later.at_goal;
    into.no_path = later.no_path;
    into.state_hash = later.state_hash;
    into.added.extend(later.added);
    into.rejected.extend(later.rejected);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keeps_events_and_sums_counters() {
        let mut a = TickReport {
            tick: 3,
            moved: 2,
            plans_deferred: 5,
            at_goal: 1,
            rejected: vec!["a".into()],
            ..TickReport::default()
        };
        let b = TickReport {
            tick: 4,
            moved: 3,
            plans_deferred: 1,
            at_goal: 2,
            state_hash: 9,
            rejected: vec!["b".into()],
            ..TickReport::default()
        };
        merge(&mut a, b);
        assert_eq!((a.tick, a.moved, a.plans_deferred, a.at_goal), (4, 5, 1, 2));
        assert_eq!(a.state_hash, 9);
        assert_eq!(a.rejected, vec!["a".to_string(), "b".to_string()]);
    }

    #[test]
    fn handle_is_send() {
        fn is_send<T: Send>() {}
        is_send::<SimulationHandle>();
        is_send::<Simulation>();
    }
}
