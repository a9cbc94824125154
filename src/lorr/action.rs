//! A robot's action in one step of a League of Robot Runners run, typed from the planner to
//! the run: the rotate model's forward move, quarter turns and wait, and the free model's
//! straight moves. Letters exist only where files are written and read (the output JSON that
//! PlanViz replays, `throng view`): [`LorrAction::letter`] and [`LorrAction::from_letter`].
//! The independent checker ([`super::PlanChecker`]) reads the letters with a decoder of its
//! own, so that a wrong letter here is caught there.

use crate::grid::Direction;
use crate::sim::{ActionModel, Heading};

/// One robot's action in one step. One byte: a run of 10,000 robots over 5,000 steps keeps
/// 50 MB of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LorrAction {
    /// Stay, facing the same way (both models; `W`).
    Wait,
    /// Rotate model: one cell the way the robot faces (`F`).
    Forward,
    /// Rotate model: a quarter turn clockwise (`R`).
    Clockwise,
    /// Rotate model: a quarter turn counter-clockwise (`C`).
    CounterClockwise,
    /// Free model: one cell toward the heading, which does not change. PlanViz's letters:
    /// `U` south (row + 1), `D` north (row - 1), `L` west, `R` east.
    Move(Heading),
}

impl LorrAction {
    /// The letter of the action in the output file (`F`, `R`, `C`, `W`; `U`, `D`, `L`, `R`
    /// under the free model, see [`LorrAction::Move`]).
    pub fn letter(self) -> char {
        match self {
            LorrAction::Wait => 'W',
            LorrAction::Forward => 'F',
            LorrAction::Clockwise => 'R',
            LorrAction::CounterClockwise => 'C',
            LorrAction::Move(Heading::South) => 'U',
            LorrAction::Move(Heading::North) => 'D',
            LorrAction::Move(Heading::West) => 'L',
            LorrAction::Move(Heading::East) => 'R',
        }
    }

    /// The action of `letter` under `model`, `None` for a letter the model does not have.
    ///
    /// ```
    /// use throng::lorr::LorrAction;
    /// use throng::sim::{ActionModel, Heading};
    ///
    /// assert_eq!(LorrAction::from_letter(ActionModel::Rotate, 'R'), Some(LorrAction::Clockwise));
    /// assert_eq!(LorrAction::from_letter(ActionModel::Free, 'R'), Some(LorrAction::Move(Heading::East)));
    /// assert_eq!(LorrAction::from_letter(ActionModel::Free, 'F'), None);
    /// ```
    pub fn from_letter(model: ActionModel, letter: char) -> Option<LorrAction> {
        Some(match (model, letter) {
            (_, 'W') => LorrAction::Wait,
            (ActionModel::Rotate, 'F') => LorrAction::Forward,
            (ActionModel::Rotate, 'R') => LorrAction::Clockwise,
            (ActionModel::Rotate, 'C') => LorrAction::CounterClockwise,
            (ActionModel::Free, 'U') => LorrAction::Move(Heading::South),
            (ActionModel::Free, 'D') => LorrAction::Move(Heading::North),
            (ActionModel::Free, 'L') => LorrAction::Move(Heading::West),
            (ActionModel::Free, 'R') => LorrAction::Move(Heading::East),
            _ => return None,
        })
    }

    /// The heading of a robot facing `heading` after the action (only turns change it).
    #[inline]
    pub fn after(self, heading: Heading) -> Heading {
        match self {
            LorrAction::Clockwise => heading.clockwise(),
            LorrAction::CounterClockwise => heading.counter_clockwise(),
            LorrAction::Wait | LorrAction::Forward | LorrAction::Move(_) => heading,
        }
    }

    /// The way a robot facing `heading` moves by the action, `None` when it stays.
    #[inline]
    pub fn moves(self, heading: Heading) -> Option<Direction> {
        match self {
            LorrAction::Forward => Some(heading.direction()),
            LorrAction::Move(toward) => Some(toward.direction()),
            LorrAction::Wait | LorrAction::Clockwise | LorrAction::CounterClockwise => None,
        }
    }
}

impl From<crate::sim::Action> for LorrAction {
    fn from(action: crate::sim::Action) -> LorrAction {
        match action {
            crate::sim::Action::Forward => LorrAction::Forward,
            crate::sim::Action::Clockwise => LorrAction::Clockwise,
            crate::sim::Action::CounterClockwise => LorrAction::CounterClockwise,
            crate::sim::Action::Wait => LorrAction::Wait,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_round_trip_under_their_model_only() {
        let rotate = [
            LorrAction::Wait,
            LorrAction::Forward,
            LorrAction::Clockwise,
            LorrAction::CounterClockwise,
        ];
        let free = Heading::ALL.map(LorrAction::Move);
        for (model, actions, others) in [
            (ActionModel::Rotate, &rotate[..], &free[..]),
            (ActionModel::Free, &free[..], &rotate[1..]),
        ] {
            for &a in actions {
                assert_eq!(LorrAction::from_letter(model, a.letter()), Some(a));
            }
            // The other model's actions (but `W` and the shared `R`) are not this model's.
            for &a in others.iter().filter(|a| a.letter() != 'R') {
                assert_eq!(LorrAction::from_letter(model, a.letter()), None, "{a:?}");
            }
        }
        assert_eq!(std::mem::size_of::<LorrAction>(), 1);
    }

    #[test]
    fn turns_change_the_heading_and_moves_go_straight() {
        for h in Heading::ALL {
            assert_eq!(LorrAction::Clockwise.after(h), h.clockwise());
            assert_eq!(LorrAction::CounterClockwise.after(h), h.counter_clockwise());
            assert_eq!(LorrAction::Forward.moves(h), Some(h.direction()));
            assert_eq!(
                LorrAction::Move(h).moves(Heading::East),
                Some(h.direction())
            );
            assert_eq!(LorrAction::Move(h).after(Heading::North), Heading::North);
            assert_eq!(LorrAction::Wait.moves(h), None);
        }
    }
}
