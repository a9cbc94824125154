//! Changing a loaded scenario's settings by key: `throng run --set conflicts=avoid`, Python's
//! `Simulation.from_scenario(path, agents=2000)` and parameter sweeps.
//!
//! An override goes through the same checks as the file: a value out of range, of the wrong
//! type or for an unknown key is an [`Error::Invalid`] naming the key.

use super::Scenario;
use crate::error::{Error, Result};
use crate::grid::Neighborhood;
use crate::sim::SimConfig;

/// Keys at the top of a scenario file that an override may set.
const TOP_KEYS: [&str; 5] = ["seed", "ticks", "threads", "agents", "neighbourhood"];

impl Scenario {
    /// Sets one setting: `seed`, `ticks`, `threads`, `agents`, `neighbourhood` (4 or 8), or any
    /// key of the `[sim]` table, written bare (`conflicts`) or with its table (`sim.conflicts`).
    /// An optional `[sim]` value (`node_budget`, `max_plans_per_tick`, ...) is cleared by
    /// `null`.
    ///
    /// ```
    /// use throng::scenario::Scenario;
    /// use throng::sim::ConflictMode;
    /// use serde_json::json;
    ///
    /// let mut s = Scenario::parse(
    ///     "agents = 3\nticks = 10\n[map]\ngenerator = { kind = \"random\", width = 8, height = 8, density = 0.1 }\n",
    ///     "inline.toml",
    ///     "/nowhere".as_ref(),
    /// )?;
    /// s.set("agents", json!(5))?;
    /// s.set("sim.conflicts", json!("avoid"))?;
    /// s.set_assignment("node_budget=1000")?;
    /// assert_eq!((s.agents, s.sim.conflicts, s.sim.node_budget), (5, ConflictMode::Avoid, Some(1000)));
    /// assert!(s.set("agents", json!(0)).is_err());
    /// assert!(s.set("colour", json!("red")).unwrap_err().to_string().contains("colour"));
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the key for an unknown key, a value of the wrong type or one
    /// out of the range the scenario file allows.
    pub fn set(&mut self, key: &str, value: serde_json::Value) -> Result<()> {
        let label = format!("override {key}={value}");
        self.set_labelled(key, value, label)
    }

    /// [`set`](Self::set), with errors (now and when the scenario is built) naming the override
    /// as `label`.
    fn set_labelled(&mut self, key: &str, value: serde_json::Value, label: String) -> Result<()> {
        let bad = |message: &str| Error::Invalid(format!("{label}: {message}"));
        let uint =
            |value: &serde_json::Value| value.as_u64().ok_or_else(|| bad("must be a whole number"));
        let origin_key = match key {
            "seed" | "ticks" | "threads" | "agents" => key.to_string(),
            "neighbourhood" | "map.neighbourhood" => "map.neighbourhood".to_string(),
            _ => format!("sim.{}", key.strip_prefix("sim.").unwrap_or(key)),
        };
        match key {
            "seed" => self.seed = uint(&value)?,
            "ticks" => {
                let ticks = uint(&value)?;
                if let Some(why) = Scenario::ticks_problem(ticks) {
                    return Err(bad(why));
                }
                self.ticks = ticks;
            }
            "threads" => {
                let threads = uint(&value)?;
                if let Some(why) = Scenario::threads_problem(threads) {
                    return Err(bad(&why));
                }
                self.threads = threads as usize;
            }
            "agents" => {
                let agents = uint(&value)?;
                if let Some(why) = Scenario::agents_problem(agents) {
                    return Err(bad(&why));
                }
                self.agents = agents as usize;
            }
            "neighbourhood" | "map.neighbourhood" => {
                self.neighbourhood = match uint(&value)? {
                    4 => Neighborhood::Four,
                    8 => Neighborhood::Eight,
                    _ => return Err(bad("must be 4 or 8")),
                };
            }
            _ => {
                let name = key.strip_prefix("sim.").unwrap_or(key);
                if name == "seed" {
                    return Err(bad("the run's seed is `seed`, not a [sim] key"));
                }
                let mut fields = serde_json::to_value(self.sim)
                    .map_err(|e| bad(&format!("cannot represent the settings: {e}")))?;
                let table = fields.as_object_mut().expect("SimConfig is a struct");
                match table.get_mut(name) {
                    Some(slot) => *slot = value,
                    None if name.is_empty() => return Err(bad("expected KEY=VALUE")),
                    None => {
                        let sim_keys: Vec<&str> = table
                            .keys()
                            .map(String::as_str)
                            .filter(|k| *k != "seed")
                            .collect();
                        return Err(bad(&format!(
                            "unknown key (known: {}, and the [sim] keys {})",
                            TOP_KEYS.join(", "),
                            sim_keys.join(", ")
                        )));
                    }
                }
                let sim: SimConfig =
                    serde_json::from_value(fields).map_err(|e| bad(&e.to_string()))?;
                if let Some((problem, message)) = sim.problem() {
                    let message = message.to_string();
                    let message = if problem == origin_key {
                        message
                    } else {
                        format!("{problem}: {message}")
                    };
                    return Err(bad(&message));
                }
                self.sim = sim;
            }
        }
        self.origin.overrides.push((origin_key, label));
        Ok(())
    }

    /// [`set`](Self::set) from a `KEY=VALUE` string, as on the command line: the value is read
    /// as JSON when it parses as JSON (`3`, `true`, `null`, `"text"`), otherwise as a string
    /// (`conflicts=avoid`). Errors name it as the flag that gives it: `--set KEY=VALUE`.
    ///
    /// # Errors
    /// As [`set`](Self::set), and for text without `=`.
    pub fn set_assignment(&mut self, assignment: &str) -> Result<()> {
        let label = format!("--set {assignment}");
        let (key, text) = match assignment.split_once('=') {
            Some((key, text)) if !key.trim().is_empty() => (key.trim(), text.trim()),
            _ => return Err(Error::Invalid(format!("{label}: expected KEY=VALUE"))),
        };
        let value = serde_json::from_str(text)
            .unwrap_or_else(|_| serde_json::Value::String(text.to_string()));
        self.set_labelled(key, value, label)
    }
}
