//! A stored game as PGN-like text: the tags PGN readers know, `Variant`, `SetUp`/`FEN` for a
//! non-standard start, the dice commitment (and seed once revealed), and the moves in the
//! variant's human notation, each action's effects after it as a comment, led for a Davey
//! Drehs attack by its result in words (`{hit for 4, kill; hit: …}`).

use crate::record::GameRecord;
use crate::rules::AnyGame;

/// A Davey Drehs action's result in words from its effect lines, as the move list and the
/// roll panel say it (`attackWords` in static/game/dice.js, which must agree, and whose node
/// test has the same cases): `miss, counter hit for 3`, `hit for 11, kill`, `hit for 2,
/// splash`. Empty for an action that attacked nothing. The effect lines start with their
/// keyword (docs/rules/drehs.md, "Action notation"); a damage line follows its hit line and
/// gives it its number, the capped one for a cannon.
pub fn attack_words(effects: &[&str]) -> String {
    let mut words: Vec<String> = Vec::new();
    for line in effects {
        let keyword = line.split(':').next().unwrap_or_default();
        match keyword {
            "hit" | "miss" | "kill" | "counter_hit" | "counter_miss" | "counter_kill" => {
                words.push(keyword.replacen('_', " ", 1));
            }
            "damage" | "counter_damage" => {
                let hit = if keyword == "damage" {
                    "hit"
                } else {
                    "counter hit"
                };
                if let (Some(last), Some(dealt)) = (words.last_mut(), dealt_in(line)) {
                    if last == hit {
                        *last = format!("{hit} for {dealt}");
                    }
                }
            }
            "splash" if !words.iter().any(|w| w == "splash") => words.push("splash".into()),
            _ => {}
        }
    }
    words.join(", ")
}

/// The damage a damage line says was done: a cannon's after its cap, else the rolled total.
fn dealt_in(line: &str) -> Option<u32> {
    let leading_number = |text: &str| -> Option<u32> {
        let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    if line.contains("after the cannon's cap") {
        return leading_number(line.split(", ").nth(1)?);
    }
    leading_number(&line[line.find("= ")? + 2..])
}

/// Escapes a PGN tag value.
fn tag(name: &str, value: &str) -> String {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    format!("[{name} \"{escaped}\"]\n")
}

/// The PGN-like export of a stored game (`docs/protocol.md`, "Export"): its tags (the dice
/// seed only once revealed), then the moves with each action's effects as a comment, wrapped
/// at 80 columns.
pub fn export_text(record: &GameRecord) -> String {
    let variant = record.variant;
    let result = record.outcome.map_or("*", |o| o.result_str());
    let mut out = String::new();
    out.push_str(&tag("Event", "Oddboard game"));
    out.push_str(&tag("Site", "Oddboard"));
    out.push_str(&tag(
        "Date",
        &record.created_at.format("%Y.%m.%d").to_string(),
    ));
    out.push_str(&tag("White", record.white_name.as_deref().unwrap_or("?")));
    out.push_str(&tag("Black", record.black_name.as_deref().unwrap_or("?")));
    out.push_str(&tag("Result", result));
    out.push_str(&tag("Variant", variant.key()));
    out.push_str(&tag("VariantName", variant.display_name()));
    out.push_str(&tag("GameId", &record.game_id.to_string()));
    let time_control = record.clock.map_or("-".to_string(), |c| {
        format!("{}+{}", c.initial_ms / 1000, c.increment_ms / 1000)
    });
    out.push_str(&tag("TimeControl", &time_control));
    if let Some(outcome) = record.outcome {
        out.push_str(&tag("Termination", outcome.reason.as_str()));
    }
    let standard = AnyGame::start(variant).ok().map(|g| g.position());
    if let Some(position) = &record.start_position {
        if Some(position) != standard.as_ref() {
            out.push_str(&tag("SetUp", "1"));
            out.push_str(&tag("FEN", position));
        }
    }
    if let Some(commitment) = &record.dice_commitment {
        out.push_str(&tag("DiceCommitment", commitment));
    }
    if let Some(seed) = record.revealed_dice_seed() {
        out.push_str(&tag("DiceSeed", &hex::encode(seed)));
    }
    out.push('\n');
    let mut line = String::new();
    for action in &record.actions {
        let ply = action.ply.max(1);
        let number = (ply + 1) / 2;
        if ply % 2 == 1 {
            line.push_str(&format!("{number}. "));
        } else if line.is_empty() {
            line.push_str(&format!("{number}... "));
        }
        line.push_str(&action.human);
        line.push(' ');
        if let Some(effects) = action
            .rolls
            .as_ref()
            .and_then(|r| r.get("effects"))
            .and_then(|e| e.as_array())
        {
            let mut text: Vec<&str> = effects.iter().filter_map(|e| e.as_str()).collect();
            let words = attack_words(&text);
            if !words.is_empty() {
                text.insert(0, &words);
            }
            if !text.is_empty() {
                line.push_str(&format!("{{{}}} ", text.join("; ").replace('}', ")")));
            }
        }
    }
    line.push_str(result);
    // Wrap at 80 columns as PGN readers expect.
    let mut width = 0;
    for word in line.split(' ') {
        if width > 0 && width + word.len() + 1 > 80 {
            out.push('\n');
            width = 0;
        } else if width > 0 {
            out.push(' ');
            width += 1;
        }
        out.push_str(word);
        width += word.len();
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::attack_words;

    /// The cases of tests/js/dice.test.mjs, so that the export says what the page says.
    #[test]
    fn an_attack_reads_as_miss_hit_and_damage_kill_and_the_counter() {
        let kill = [
            "hit: white pawn e4 rolls d20 5 + 0 ears = 5 > armor 4 of black pawn d5",
            "damage: d4 = 4: black pawn d5 4 -> 0 LP",
            "kill: black pawn d5 dies; white pawn e4 moves to d5 and dons ear necklace 1",
        ];
        assert_eq!(attack_words(&kill), "hit for 4, kill");
        let trade = [
            "hit: white queen e7 rolls d20 9 + 1 ears = 10 > armor 4 of black pawn d7",
            "damage: 2d6 = 3: black pawn d7 4 -> 1 LP",
            "counter_hit: black pawn d7 rolls d20 18 + 0 ears = 18 > armor 12 of white queen e7",
            "counter_damage: d4 = 3: white queen e7 9 -> 6 LP",
        ];
        assert_eq!(attack_words(&trade), "hit for 3, counter hit for 3");
        let fatal_miss = [
            "miss: white knight c3 rolls d20 2 + 0 ears = 2 <= armor 6 of black bishop d5",
            "counter_hit: black bishop d5 rolls d20 15 + 0 ears = 15 > armor 6 of white knight c3",
            "counter_damage: d6 = 1: white knight c3 1 -> 0 LP",
            "counter_kill: white knight c3 dies",
        ];
        assert_eq!(
            attack_words(&fatal_miss),
            "miss, counter hit for 1, counter kill"
        );
        let misses = [
            "miss: white pawn e4 rolls d20 3 + 0 ears = 3 <= armor 4 of black pawn d5",
            "counter_miss: black pawn d5 rolls d20 4 + 0 ears = 4 <= armor 4 of white pawn e4",
        ];
        assert_eq!(attack_words(&misses), "miss, counter miss");
        let cannon = [
            "hit: white rook a1 rolls d20 12 + 0 ears = 12 > armor 4 of black pawn a5",
            "damage: 2d4 = 6, 3 after the cannon's cap: black pawn a5 4 -> 1 LP",
            "splash: black pawn b6 4 -> 3 LP",
            "splash: black pawn b5 4 -> 3 LP",
        ];
        assert_eq!(attack_words(&cannon), "hit for 3, splash");
    }

    #[test]
    fn an_action_without_an_attack_has_no_words() {
        assert_eq!(attack_words(&[]), "");
        assert_eq!(attack_words(&["heal: white pawn d2 2 -> 4 LP"]), "");
    }
}
