//! A user's lobby settings (`set`: time, increment, variant, formula, f1..f9) and noplay
//! list. Both are stored: the state validates a change, the actor saves it, then the state
//! applies it ([`LobbyState::prepare_setting`], [`LobbyState::apply_setting`],
//! [`LobbyState::set_noplay`]).

use super::LobbyState;
use crate::formula::{Formula, FormulaSet, Slot};
use crate::lobby::{LobbyRefusal, LobbyReply, SettingName, MAX_INC, MAX_TIME};
use crate::record::UserSettings;
use crate::rules::Variant;
use crate::wire::lobby::{RemovedReason, ReplyData};
use std::fmt::Write;
use uuid::Uuid;

/// A validated change of settings, to be saved before it is applied.
#[derive(Debug)]
pub struct PreparedSetting {
    pub settings: UserSettings,
    formulas: FormulaSet,
    /// Whether the formula changed: what the user sees depends on it.
    formula_changed: bool,
    text: String,
}

fn number(value: &str, max: u32, what: &str) -> Result<i32, LobbyRefusal> {
    value
        .parse::<u32>()
        .ok()
        .filter(|n| *n <= max)
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| LobbyRefusal::InvalidValue(format!("{what} must be 0-{max}.")))
}

/// The noplay list's reply: `text` for a change, the list otherwise.
pub fn noplay_reply(text: Option<String>, users: Vec<String>) -> LobbyReply {
    let text = text.unwrap_or_else(|| {
        format!(
            "-- noplay list: {} names --\n{}",
            users.len(),
            users.join(" ")
        )
    });
    LobbyReply {
        text,
        data: ReplyData::Noplay { users },
    }
}

impl LobbyState {
    fn settings_reply(&self, me: Uuid, text: String) -> Result<LobbyReply, LobbyRefusal> {
        let info = self.info(me)?;
        Ok(LobbyReply {
            text,
            data: ReplyData::Settings {
                time: info.settings.time_minutes,
                inc: info.settings.increment_seconds,
                variant: info.settings.variant,
                formula: info.formulas.text(Slot::FORMULA).to_string(),
                f: info.formulas.f_texts(),
            },
        })
    }

    /// `set` alone: the settings, as FICS's `variables` shows them.
    pub(super) fn show_settings(&self, me: Uuid) -> Result<LobbyReply, LobbyRefusal> {
        let info = self.info(me)?;
        let mut text = format!(
            "Variable settings of {}:\n  time={} inc={} variant={}\n  formula: {}",
            info.user.name,
            info.settings.time_minutes,
            info.settings.increment_seconds,
            info.settings.variant,
            info.formulas.text(Slot::FORMULA)
        );
        for n in 1..=9u8 {
            let slot = Slot::f(n).unwrap_or(Slot::FORMULA);
            let f = info.formulas.text(slot);
            if !f.is_empty() {
                let _ = write!(text, "\n  f{n}: {f}");
            }
        }
        self.settings_reply(me, text)
    }

    /// Validates `set <name> <value>` for `me`.
    ///
    /// # Errors
    /// A value out of bounds, an unknown variant, a formula that does not parse.
    pub fn prepare_setting(
        &self,
        me: Uuid,
        name: SettingName,
        value: &str,
    ) -> Result<PreparedSetting, LobbyRefusal> {
        if value.contains('\0') {
            // The database refuses NUL in text: refused here, as bad input.
            return Err(LobbyRefusal::InvalidValue(
                "A setting cannot contain NUL.".into(),
            ));
        }
        let mut settings = self.info(me)?.settings.clone();
        let mut formulas = self.info(me)?.formulas.clone();
        let text = match name {
            SettingName::Time => {
                settings.time_minutes = number(value, MAX_TIME, "Time")?;
                format!("Time set to {}.", settings.time_minutes)
            }
            SettingName::Inc => {
                settings.increment_seconds = number(value, MAX_INC, "Increment")?;
                format!("Increment set to {}.", settings.increment_seconds)
            }
            SettingName::Variant => {
                let variant: Variant = value.to_ascii_lowercase().parse().map_err(
                    |e: crate::rules::UnknownVariant| LobbyRefusal::InvalidValue(e.to_string()),
                )?;
                settings.variant = variant;
                format!("Variant set to {variant}.")
            }
            SettingName::Formula(n) => {
                let slot = if n == 0 {
                    Slot::FORMULA
                } else {
                    Slot::f(n).ok_or_else(|| LobbyRefusal::InvalidValue("f1..f9 only.".into()))?
                };
                let parsed = Formula::parse(value, slot).map_err(LobbyRefusal::BadFormula)?;
                let text = if parsed.is_empty() {
                    format!("{slot} unset.")
                } else {
                    format!("{slot} set to {}.", parsed.text())
                };
                formulas.put(slot, Some(parsed));
                settings.formula = formulas.text(Slot::FORMULA).to_string();
                settings.f = formulas.f_texts();
                text
            }
        };
        Ok(PreparedSetting {
            settings,
            formulas,
            formula_changed: matches!(name, SettingName::Formula(_)),
            text,
        })
    }

    /// Applies a change the actor has saved.
    ///
    /// # Errors
    /// `me` is not loaded.
    pub fn apply_setting(
        &mut self,
        me: Uuid,
        change: PreparedSetting,
    ) -> Result<LobbyReply, LobbyRefusal> {
        if let Some(info) = self.users.get_mut(&me) {
            info.settings = change.settings;
            info.formulas = change.formulas;
        }
        if change.formula_changed {
            self.resend_snapshot(me);
        }
        self.settings_reply(me, change.text)
    }

    /// Refuses a noplay change the store need not hear of.
    ///
    /// # Errors
    /// `me` names themself.
    pub fn check_noplay(me: Uuid, them: Uuid) -> Result<(), LobbyRefusal> {
        if them == me {
            return Err(LobbyRefusal::InvalidValue(
                "You can't noplay yourself.".into(),
            ));
        }
        Ok(())
    }

    /// Puts `them` on (`on`) or off `me`'s noplay list, once stored; returns the reply's
    /// text. Challenges between them go, and both see the other's seeks (or no longer).
    pub fn set_noplay(&mut self, me: Uuid, them: Uuid, on: bool) -> String {
        if let Some(info) = self.users.get_mut(&me) {
            if on {
                info.noplay.insert(them);
            } else {
                info.noplay.remove(&them);
            }
        }
        if on {
            let between: Vec<u32> = self
                .challenges
                .values()
                .filter(|c| (c.from == me && c.to == them) || (c.from == them && c.to == me))
                .map(|c| c.id)
                .collect();
            for id in between {
                self.remove_challenge(id, RemovedReason::Noplay);
            }
        }
        self.resend_snapshot(me);
        self.resend_snapshot(them);
        let their_name = self.name(them);
        if on {
            format!("{their_name} added to your noplay list.")
        } else {
            format!("{their_name} removed from your noplay list.")
        }
    }
}
