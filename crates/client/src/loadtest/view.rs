//! What one player knows of one game, kept up to date from the server's messages: the ply,
//! whose turn it is, the legal actions of the side to move and whether the game is over; and
//! the action frame it plays next.

use super::incoming::{legal_literals, Incoming, RulesPart};
use crate::{ClientError, GameSocket};
use std::time::Duration;

/// The rules state one player tracks from the server's messages about one game.
pub(super) struct View {
    /// `white` or `black`.
    color: &'static str,
    pub(super) ply: u64,
    /// The legal actions while it is this side's turn (empty otherwise: only the side to move
    /// keeps a copy), as ranges of `legal_text`, the list's JSON text: each range is one
    /// action's JSON string literal, quotes included. One buffer reused from move to move
    /// instead of a string per action.
    legal: Vec<std::ops::Range<usize>>,
    legal_text: String,
    turn: String,
    pub(super) over: bool,
    /// Whether a snapshot or a game's start has been read (a multiplexed game is played only
    /// once both players' views are).
    pub(super) synced: bool,
}

impl View {
    pub(super) fn new(color: &'static str) -> View {
        View {
            color,
            ply: 0,
            legal: Vec::new(),
            legal_text: String::new(),
            turn: String::new(),
            over: false,
            synced: false,
        }
    }

    pub(super) fn to_move(&self) -> bool {
        self.turn == self.color
    }

    pub(super) fn absorb(&mut self, message: Incoming<'_>) {
        match message.t {
            "snapshot" => {
                if let Some(game) = message.game {
                    self.synced = true;
                    self.ply = game.moves;
                    self.over = game.outcome;
                    self.absorb_rules(game.rules);
                }
            }
            "event" => match message.kind {
                Some("started") | Some("action") => {
                    if let Some(ply) = message.ply {
                        self.ply = ply;
                    }
                    self.synced = true;
                    if let Some(rules) = message.rules.or(message.update) {
                        self.absorb_rules(rules);
                    }
                }
                Some("ended") => self.over = true,
                _ => {}
            },
            "batch" => {
                for m in message.messages {
                    self.absorb(m);
                }
            }
            _ => {}
        }
    }

    fn absorb_rules(&mut self, rules: RulesPart<'_>) {
        self.turn.clear();
        self.turn.push_str(rules.turn);
        self.legal.clear();
        self.legal_text.clear();
        if let (true, Some(list)) = (self.to_move(), rules.legal_actions) {
            self.legal_text.push_str(list);
            if legal_literals(&self.legal_text, &mut self.legal).is_none() {
                // Not a list of strings: nothing this side can play.
                self.legal.clear();
            }
        }
        if rules.outcome {
            self.over = true;
        }
    }

    /// The JSON string literal of the `index`th legal action of the side to move (empty if
    /// there is none).
    fn legal_action(&self, index: usize) -> &str {
        self.legal
            .get(index)
            .and_then(|range| self.legal_text.get(range.clone()))
            .unwrap_or_default()
    }

    /// Whether this side is to move with something to play.
    pub(super) fn can_move(&self) -> bool {
        !self.over && !self.legal.is_empty()
    }

    /// Handles an error message about this game: the ones a player can meet in a game it
    /// plays correctly are absorbed, any other is returned as an error.
    pub(super) fn absorb_error(
        &mut self,
        message: &Incoming<'_>,
        frame: &str,
    ) -> Result<(), ClientError> {
        match message.code {
            // The server plays forced actions itself (a Do-Or-Die Chazz pass): the same
            // action sent for that ply is refused as a duplicate, and the ply's event
            // arrives as usual.
            Some("duplicate_action") => Ok(()),
            // Likewise when that forced action ended the game.
            Some("game_over") => {
                self.over = true;
                Ok(())
            }
            _ => Err(ClientError(format!("server refused: {frame}"))),
        }
    }

    /// The frame of the action to play next: the `pick`th legal action (modulo their number),
    /// for the next ply, with `game` (a game's id) if the socket carries many games.
    pub(super) fn act_frame(&self, pick: usize, game: Option<&str>) -> String {
        let action = self.legal_action(pick % self.legal.len().max(1));
        let ply = self.ply + 1;
        match game {
            None => format!("{{\"t\":\"act\",\"ply\":{ply},\"action\":{action}}}"),
            Some(gid) => format!(
                "{{\"t\":\"game\",\"gid\":\"{gid}\",\"msg\":{{\"t\":\"act\",\"ply\":{ply},\"action\":{action}}}}}"
            ),
        }
    }
}

/// One player's socket to one game, and what it knows of the game.
pub(super) struct Side {
    pub(super) socket: GameSocket,
    pub(super) view: View,
}

impl Side {
    /// Reads until the game passes `ply` or ends; returns the error code if one came first.
    pub(super) async fn read_past(&mut self, ply: u64) -> Result<(), ClientError> {
        while self.view.ply <= ply && !self.view.over {
            let frame = self.socket.next_frame(Duration::from_secs(30)).await?;
            let message = Incoming::parse(&frame)?;
            if message.t == "error" {
                self.view.absorb_error(&message, &frame)?;
                continue;
            }
            self.view.absorb(message);
        }
        Ok(())
    }
}
