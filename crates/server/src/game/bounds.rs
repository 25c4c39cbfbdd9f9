//! Each account's bounds across the nodes of a cluster (issue 49): games in progress, open
//! challenges and games against the computer (`docs/protocol.md`), as [`StoredPlaces`]
//! counts them.
//!
//! Alone, a node counts them in memory ([`Games`](super::Games)'s claims), which is the whole
//! truth there and costs nothing. A node of a cluster knows in memory only the games it made or
//! restored, and that memory goes stale as games move: a game made here may hibernate, be woken
//! on another node and end there. So before anything takes a place (a game made, joined or
//! paired, an open challenge, a game against the computer, a seek), such a node asks
//! PostgreSQL, the one authority, for the players' unfinished games, with the claims its memory
//! holds for them ([`Store::unfinished_games_of`](crate::store::Store::unfinished_games_of)),
//! and counts the two together: a stored game a player made or sits in, and a claim whose game
//! is still unfinished, or not stored yet (being made here). A claim whose game is over is
//! stale: it counts for nothing, and the registry drops it.
//!
//! Claims are still taken under the registry's lock, so requests at once on one node cannot
//! pass a bound. Two nodes making a game for the same player at the same instant both read the
//! store before either game is stored, and may pass a bound by one game each: one per node.
//! That is accepted: the bounds stop floods, they are not budgets, and a lock across the nodes
//! would cost every game made a round trip more. The server-wide bound on games against the
//! computer stays per node, in memory: each node has its own engine pool.

use crate::play::record::UnfinishedGame;
use crate::store::{GameStatus, PlayersGames};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// What the store said of some players' games in progress, to count with the claims this
/// node holds for them.
#[derive(Debug)]
pub(super) struct StoredPlaces {
    /// Their unfinished games, and the unfinished ones among the claims asked about.
    unfinished: HashMap<Uuid, UnfinishedGame>,
    /// The claims asked about: those this node held for the players when it asked.
    asked: HashSet<Uuid>,
    /// Of those, the ones not stored: games being made.
    not_stored: HashSet<Uuid>,
}

impl StoredPlaces {
    /// The store's `answer` to a question about the claims `asked`.
    pub(super) fn new(asked: HashSet<Uuid>, answer: PlayersGames) -> StoredPlaces {
        StoredPlaces {
            unfinished: answer
                .unfinished
                .into_iter()
                .map(|game| (game.game_id, game))
                .collect(),
            asked,
            not_stored: answer.not_stored.into_iter().collect(),
        }
    }

    /// Whether this node's claim on game `id` counts: the game is being made (not stored when
    /// asked, or claimed since), or is unfinished.
    fn claim_counts(&self, id: &Uuid) -> bool {
        !self.asked.contains(id) || self.not_stored.contains(id) || self.unfinished.contains_key(id)
    }

    /// Whether this node's claim on open challenge `id` counts: as [`Self::claim_counts`],
    /// and the game still waits for an opponent.
    fn open_claim_counts(&self, id: &Uuid) -> bool {
        !self.asked.contains(id)
            || self.not_stored.contains(id)
            || self
                .unfinished
                .get(id)
                .is_some_and(|game| game.status == GameStatus::Waiting)
    }

    /// `player`'s games in progress: the stored ones they made or sit in, and this node's
    /// `claims` for them that count.
    pub(super) fn games_of(&self, player: Uuid, claims: &[Uuid]) -> HashSet<Uuid> {
        let mut games: HashSet<Uuid> = self
            .unfinished
            .values()
            .filter(|game| seats(game).any(|seat| seat == player))
            .map(|game| game.game_id)
            .collect();
        games.extend(claims.iter().filter(|id| self.claim_counts(id)));
        games
    }

    /// How many open challenges `player` holds: the stored games they made that wait for an
    /// opponent, and this node's `open_claims` for them that count.
    pub(super) fn open_challenges_of(&self, player: Uuid, open_claims: &[Uuid]) -> usize {
        let mut open: HashSet<Uuid> = self
            .unfinished
            .values()
            .filter(|game| game.status == GameStatus::Waiting && game.creator_id == player)
            .map(|game| game.game_id)
            .collect();
        open.extend(open_claims.iter().filter(|id| self.open_claim_counts(id)));
        open.len()
    }

    /// How many of `player`'s games in progress (see [`Self::games_of`]) are against the
    /// computer: a computer's account sits in the stored game, or this node counts the game
    /// among the computer's (`computer_claims`, which covers a game being made).
    pub(super) fn computer_games_of(
        &self,
        player: Uuid,
        claims: &[Uuid],
        computer_claims: &HashSet<Uuid>,
        is_computer: impl Fn(Uuid) -> bool,
    ) -> usize {
        self.games_of(player, claims)
            .iter()
            .filter(|id| {
                computer_claims.contains(id)
                    || self
                        .unfinished
                        .get(id)
                        .is_some_and(|game| seats(game).any(&is_computer))
            })
            .count()
    }

    /// The claims asked about whose game is over: stale.
    pub(super) fn over(&self) -> HashSet<Uuid> {
        self.asked
            .iter()
            .filter(|id| !self.not_stored.contains(id) && !self.unfinished.contains_key(id))
            .copied()
            .collect()
    }

    /// The claims asked about that are no open challenge any more: over, or started.
    pub(super) fn no_longer_open(&self) -> HashSet<Uuid> {
        self.asked
            .iter()
            .filter(|id| !self.not_stored.contains(id))
            .filter(|id| {
                self.unfinished
                    .get(id)
                    .is_none_or(|game| game.status != GameStatus::Waiting)
            })
            .copied()
            .collect()
    }
}

/// Everyone a stored game names: its creator and its seats.
fn seats(game: &UnfinishedGame) -> impl Iterator<Item = Uuid> {
    [Some(game.creator_id), game.white_id, game.black_id]
        .into_iter()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(status: GameStatus, creator: Uuid, seats: [Option<Uuid>; 2]) -> UnfinishedGame {
        UnfinishedGame {
            game_id: Uuid::new_v4(),
            status,
            creator_id: creator,
            white_id: seats[0],
            black_id: seats[1],
        }
    }

    #[test]
    fn stored_games_and_claims_count_once_and_stale_claims_not_at_all() {
        let (alice, bob, computer) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        // Made on another node: an open challenge of Alice's, a game she plays against Bob,
        // one against the computer, and Bob's challenge she is joining here.
        let open = game(GameStatus::Waiting, alice, [None, None]);
        let playing = game(GameStatus::Active, bob, [Some(alice), Some(bob)]);
        let against_computer = game(GameStatus::Active, alice, [Some(computer), Some(alice)]);
        let joining = game(GameStatus::Waiting, bob, [None, None]);
        // This node's claims for Alice: the game she plays (counted once), her joining,
        // a game being made here (no row yet), a game that ended elsewhere, and a game
        // claimed after the store was asked.
        let (being_made, ended, claimed_since) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let asked: HashSet<Uuid> = [playing.game_id, joining.game_id, being_made, ended]
            .into_iter()
            .collect();
        let answer = PlayersGames {
            unfinished: vec![open, playing, against_computer, joining],
            not_stored: vec![being_made],
        };
        let stored = StoredPlaces::new(asked, answer);
        let claims = [
            playing.game_id,
            joining.game_id,
            being_made,
            ended,
            claimed_since,
        ];
        let games = stored.games_of(alice, &claims);
        let expected: HashSet<Uuid> = [
            open.game_id,
            playing.game_id,
            against_computer.game_id,
            joining.game_id,
            being_made,
            claimed_since,
        ]
        .into_iter()
        .collect();
        assert_eq!(games, expected);
        // Bob, of whom nothing is claimed here: his stored games only.
        assert_eq!(stored.games_of(bob, &[]).len(), 2);
        assert_eq!(stored.over(), [ended].into_iter().collect());

        // Open challenges: her stored one, and an open claim being made; the game that ended
        // and the one that started (claimed open here, now active) are not.
        let open_claims = [being_made, ended, playing.game_id];
        assert_eq!(stored.open_challenges_of(alice, &open_claims), 2);
        assert_eq!(
            stored.no_longer_open(),
            [ended, playing.game_id].into_iter().collect()
        );

        // Against the computer: the stored one, and the one being made that this node counts
        // among the computer's.
        let computer_claims: HashSet<Uuid> = [being_made, ended].into_iter().collect();
        let is_computer = |id: Uuid| id == computer;
        assert_eq!(
            stored.computer_games_of(alice, &claims, &computer_claims, is_computer),
            2
        );
    }
}
