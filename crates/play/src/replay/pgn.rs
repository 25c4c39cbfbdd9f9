//! A stored game as PGN-like text: the tags PGN readers know, `Variant`, `SetUp`/`FEN` for a
//! non-standard start, the dice commitment (and seed once revealed), and the moves in the
//! variant's human notation.

use crate::record::GameRecord;
use crate::rules::AnyGame;

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
            let text: Vec<&str> = effects.iter().filter_map(|e| e.as_str()).collect();
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
