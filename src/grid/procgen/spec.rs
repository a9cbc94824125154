//! A procedural map written on one line, `KIND[:WxH[:PARAMETERS]]`, as `throng run --generate`
//! takes it: `random:512x512:0.2`, `rooms:256x256:15:3`, `maze:128x128:2`, or just `maze`.
//!
//! Left-out parts take the defaults of `throng gen` ([`MapGenerator::DEFAULT_SIZE`] and the
//! other constants), so `random` is the map `throng gen random` writes. The text is checked
//! as scenario files check `map.generator` ([`MapGenerator::check`]).

use super::MapGenerator;
use crate::error::Error;

impl MapGenerator {
    /// Width and height of a generated map when none is given (`throng gen`'s default).
    pub const DEFAULT_SIZE: u32 = 512;
    /// Fraction of blocked cells of a random map when none is given.
    pub const DEFAULT_DENSITY: f64 = 0.2;
    /// Inside size of a room when none is given.
    pub const DEFAULT_ROOM: u32 = 31;
    /// Door width when none is given.
    pub const DEFAULT_DOOR: u32 = 3;
    /// Corridor width of a maze when none is given.
    pub const DEFAULT_CORRIDOR: u32 = 2;

    /// The syntax of [`from_spec`](Self::from_spec), for messages and help texts.
    pub const SPEC_SYNTAX: &'static str =
        "random[:WxH[:DENSITY]], rooms[:WxH[:ROOM[:DOOR]]] or maze[:WxH[:CORRIDOR]]";

    /// Reads a one-line recipe: `random[:WxH[:DENSITY]]`, `rooms[:WxH[:ROOM[:DOOR]]]` or
    /// `maze[:WxH[:CORRIDOR]]`; parts left out take the defaults of `throng gen` (512 x 512,
    /// density 0.2, room 31, door 3, corridor 2).
    ///
    /// ```
    /// use throng::grid::procgen::MapGenerator;
    ///
    /// let g = MapGenerator::from_spec("rooms:128x64:15")?;
    /// assert_eq!(g, MapGenerator::Rooms { width: 128, height: 64, room: 15, door: 3 });
    /// assert_eq!(g.spec(), "rooms:128x64:15:3");
    /// assert_eq!(MapGenerator::from_spec(&g.spec())?, g);
    /// assert!(MapGenerator::from_spec("random:64x64:1.5").is_err()); // density over 1
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] saying which part is wrong: an unknown kind, a size not written
    /// `WxH`, a number that does not parse, too many parts, or a value
    /// [`check`](Self::check) refuses.
    pub fn from_spec(spec: &str) -> Result<MapGenerator, Error> {
        let bad = |message: String| Error::Invalid(message);
        let mut parts = spec.trim().split(':');
        let kind = parts.next().unwrap_or_default();
        let (width, height) = match parts.next() {
            None => (Self::DEFAULT_SIZE, Self::DEFAULT_SIZE),
            Some(size) => {
                let (w, h) = size
                    .split_once(['x', 'X'])
                    .ok_or_else(|| bad(format!("size {size:?}: expected WxH, e.g. 512x512")))?;
                (number(w, "width")?, number(h, "height")?)
            }
        };
        let params: Vec<&str> = parts.collect();
        let most = match kind {
            "random" | "maze" => 1,
            "rooms" => 2,
            _ => {
                return Err(bad(format!(
                    "unknown map kind {kind:?} (expected {})",
                    Self::SPEC_SYNTAX
                )));
            }
        };
        if params.len() > most {
            return Err(bad(format!(
                "{kind}: too many parts after the size ({}; expected {})",
                params.len(),
                Self::SPEC_SYNTAX
            )));
        }
        let generator = match kind {
            "random" => MapGenerator::Random {
                width,
                height,
                density: match params.first() {
                    None => Self::DEFAULT_DENSITY,
                    Some(d) => d
                        .parse::<f64>()
                        .map_err(|_| bad(format!("density {d:?}: expected a number, e.g. 0.2")))?,
                },
            },
            "rooms" => MapGenerator::Rooms {
                width,
                height,
                room: params
                    .first()
                    .map_or(Ok(Self::DEFAULT_ROOM), |r| number(r, "room"))?,
                door: params
                    .get(1)
                    .map_or(Ok(Self::DEFAULT_DOOR), |d| number(d, "door"))?,
            },
            _ => MapGenerator::Maze {
                width,
                height,
                corridor: params
                    .first()
                    .map_or(Ok(Self::DEFAULT_CORRIDOR), |c| number(c, "corridor"))?,
            },
        };
        generator.check().map_err(bad)?;
        Ok(generator)
    }

    /// The recipe as [`from_spec`](Self::from_spec) reads it, every part written out.
    pub fn spec(&self) -> String {
        match *self {
            MapGenerator::Random {
                width,
                height,
                density,
            } => format!("random:{width}x{height}:{density}"),
            MapGenerator::Rooms {
                width,
                height,
                room,
                door,
            } => format!("rooms:{width}x{height}:{room}:{door}"),
            MapGenerator::Maze {
                width,
                height,
                corridor,
            } => format!("maze:{width}x{height}:{corridor}"),
        }
    }

    /// Checks the parameters before a map is made: both sides at least 1, a density in 0..=1,
    /// `1 <= door <= room`, a corridor of at least 1. Scenario files (`map.generator`) and
    /// [`from_spec`](Self::from_spec) check with it.
    ///
    /// # Errors
    /// What is wrong, in words.
    pub fn check(&self) -> Result<(), String> {
        let (w, h) = self.size();
        if w == 0 || h == 0 {
            return Err(format!(
                "width and height must be at least 1, got {w} x {h}"
            ));
        }
        match *self {
            // 1 would block every cell: no map to play on.
            MapGenerator::Random { density, .. } if !(0.0..1.0).contains(&density) => {
                Err(format!("density must be from 0 to below 1, got {density}"))
            }
            MapGenerator::Rooms { room, door, .. } if room == 0 || door == 0 || door > room => Err(
                format!("rooms need 1 <= door <= room, got room {room} and door {door}"),
            ),
            MapGenerator::Maze { corridor: 0, .. } => Err("corridor must be at least 1".into()),
            _ => Ok(()),
        }
    }
}

/// A whole number of the spec, named `what` in the error.
fn number(text: &str, what: &str) -> Result<u32, Error> {
    text.trim().parse::<u32>().map_err(|_| {
        Error::Invalid(format!(
            "{what} {text:?}: expected a whole number, e.g. 512"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_left_out_take_the_gen_defaults() {
        assert_eq!(
            MapGenerator::from_spec("random").unwrap(),
            MapGenerator::Random {
                width: 512,
                height: 512,
                density: 0.2
            }
        );
        assert_eq!(
            MapGenerator::from_spec("maze:64x32").unwrap(),
            MapGenerator::Maze {
                width: 64,
                height: 32,
                corridor: 2
            }
        );
        assert_eq!(
            MapGenerator::from_spec("rooms:100x100:9:2").unwrap(),
            MapGenerator::Rooms {
                width: 100,
                height: 100,
                room: 9,
                door: 2
            }
        );
        for g in [
            MapGenerator::from_spec("random:33x17:0.35").unwrap(),
            MapGenerator::from_spec("maze:9x9:1").unwrap(),
        ] {
            assert_eq!(MapGenerator::from_spec(&g.spec()).unwrap(), g);
        }
    }

    #[test]
    fn bad_specs_say_which_part_is_wrong() {
        for (spec, want) in [
            ("spiral:64x64", "unknown map kind \"spiral\""),
            ("random:64", "size \"64\": expected WxH"),
            ("random:64xa", "height \"a\""),
            ("random:64x64:lots", "density \"lots\""),
            ("random:64x64:1.5", "density must be from 0 to below 1"),
            ("random:10x10:1", "density must be from 0 to below 1"),
            ("random:0x64", "at least 1"),
            ("maze:64x64:2:3", "too many parts"),
            ("rooms:64x64:3:5", "1 <= door <= room"),
            ("rooms:64x64:-3", "room \"-3\""),
            ("maze:64x64:0", "corridor must be at least 1"),
        ] {
            let e = MapGenerator::from_spec(spec).unwrap_err().to_string();
            assert!(e.contains(want), "{spec}: {e}");
        }
    }
}
