//! Glicko-2 ratings, one per player and variant, through the maintained `skillratings`
//! implementation of Glickman's algorithm.
//!
//! Each rated game is its own rating period (as on lichess): both players are updated from
//! their ratings just before the game, with the system constant τ = 0.5. New players start at
//! 1500, deviation 350, volatility 0.06. A rating is **provisional** while its deviation is
//! above [`PROVISIONAL_DEVIATION`] (110, lichess's threshold): about the first dozen games.
//! Deviations do not grow with inactivity (no decay between periods).
//!
//! Pure arithmetic, below both the game layer and the store: the store applies it in the
//! same transaction as the end of a rated game.

use crate::rules::Color;
use skillratings::glicko2::{glicko2, glicko2_rating_period, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

/// A rating whose deviation is above this is provisional.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// Glicko-2's system constant τ, which bounds how fast volatility changes.
pub const TAU: f64 = 0.5;

/// A player's Glicko-2 rating in one variant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glicko {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

impl Default for Glicko {
    /// A new player: 1500 ± 350, volatility 0.06.
    fn default() -> Self {
        Glicko {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
        }
    }
}

impl Glicko {
    /// Whether the rating is still provisional (deviation above [`PROVISIONAL_DEVIATION`]).
    pub fn is_provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }

    /// The rating rounded for display, formulas and rating ranges.
    pub fn rounded(&self) -> i64 {
        self.rating.round() as i64
    }

    fn to_lib(self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }

    fn from_lib(r: Glicko2Rating) -> Glicko {
        Glicko {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
        }
    }
}

fn config() -> Glicko2Config {
    Glicko2Config {
        tau: TAU,
        ..Glicko2Config::default()
    }
}

/// Both players' new ratings after one game; `winner` None is a draw.
pub fn rate_game(white: Glicko, black: Glicko, winner: Option<Color>) -> (Glicko, Glicko) {
    let outcome = match winner {
        Some(Color::White) => Outcomes::WIN,
        Some(Color::Black) => Outcomes::LOSS,
        None => Outcomes::DRAW,
    };
    let (w, b) = glicko2(&white.to_lib(), &black.to_lib(), &outcome, &config());
    (Glicko::from_lib(w), Glicko::from_lib(b))
}

/// One player's new rating after a rating period of several games, each given as the
/// opponent's rating and the player's score (1, ½ or 0 as win, draw, loss). Used to check
/// the implementation against Glickman's worked example.
pub fn rate_period(player: Glicko, games: &[(Glicko, Option<bool>)]) -> Glicko {
    let results: Vec<(Glicko2Rating, Outcomes)> = games
        .iter()
        .map(|(opponent, won)| {
            let outcome = match won {
                Some(true) => Outcomes::WIN,
                Some(false) => Outcomes::LOSS,
                None => Outcomes::DRAW,
            };
            (opponent.to_lib(), outcome)
        })
        .collect();
    Glicko::from_lib(glicko2_rating_period(&player.to_lib(), &results, &config()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(rating: f64, deviation: f64) -> Glicko {
        Glicko {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    /// Glickman, "Example of the Glicko-2 system" (2013), section "Example calculation":
    /// a 1500/200/0.06 player beats 1400/30 and loses to 1550/100 and 1700/300 with τ = 0.5,
    /// and ends at 1464.06 / 151.52 / 0.05999.
    #[test]
    fn glickmans_worked_example() {
        let after = rate_period(
            g(1500.0, 200.0),
            &[
                (g(1400.0, 30.0), Some(true)),
                (g(1550.0, 100.0), Some(false)),
                (g(1700.0, 300.0), Some(false)),
            ],
        );
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    #[test]
    fn one_game_moves_both_players_symmetrically_from_equal_ratings() {
        let (w, b) = rate_game(Glicko::default(), Glicko::default(), Some(Color::White));
        assert!(w.rating > 1500.0 && b.rating < 1500.0);
        assert!(((w.rating - 1500.0) - (1500.0 - b.rating)).abs() < 1e-6);
        assert!(w.deviation < 350.0 && b.deviation < 350.0);
        let (w, b) = rate_game(Glicko::default(), Glicko::default(), None);
        assert!((w.rating - 1500.0).abs() < 1e-6 && (b.rating - 1500.0).abs() < 1e-6);
        let (w, b) = rate_game(g(1500.0, 100.0), g(1500.0, 100.0), Some(Color::Black));
        assert!(w.rating < 1500.0 && b.rating > 1500.0);
    }

    #[test]
    fn provisional_until_the_deviation_falls_below_the_threshold() {
        let mut player = Glicko::default();
        assert!(player.is_provisional());
        let opponent = g(1500.0, 60.0);
        let mut games = 0;
        while player.is_provisional() {
            player = rate_game(
                player,
                opponent,
                if games % 2 == 0 {
                    Some(Color::White)
                } else {
                    None
                },
            )
            .0;
            games += 1;
            assert!(games < 100, "the deviation must shrink");
        }
        assert!(player.deviation <= PROVISIONAL_DEVIATION);
        assert!(
            (5..30).contains(&games),
            "{games} games to leave provisional"
        );
        assert_eq!(g(1499.5, 50.0).rounded(), 1500);
    }
}
