//! The two forms of lobby commands made one: a console line ([`parse_line`]) or a JSON
//! message ([`request_of`]) into a [`LobbyCmd`]; and the text of replies (seek lines,
//! `sought`, `games`, `history`, `finger`).
//!
//! Words are case-insensitive; abbreviations follow FICS (`r`/`u`, `w`/`b`, `a`/`m`, `f`).

use super::{
    ChallengeView, FingerView, LobbyCmd, LobbyRefusal, MatchRequest, PlayTarget, SeekRequest,
    SeekView, SettingName, Which,
};
use crate::record::GameSummary;
use crate::rules::{Color, Variant};
use crate::wire::lobby::{LobbyClientMsg, WhichMsg};
use std::fmt::Write;

/// What `help` prints.
pub const HELP: &str = "\
Lobby commands:
  seek [time inc] [rated|unrated] [white|black] [variant] [auto|manual] [formula] [min-max]
  unseek [n]             sought [all]           play <n|user>
  match <user> [time inc] [rated|unrated] [white|black] [variant]
  accept [n|user]        decline [n|user|all]   withdraw [n|user|all]   pending
  rematch                games                  history [user]          finger [user]
  set [time|inc|variant|formula|f1..f9] [value]
  noplay                 +noplay <user>         -noplay <user>
Variants: suicide chazz duel drehs chad";

fn usage(text: &str) -> LobbyRefusal {
    LobbyRefusal::BadCommand(format!("Usage: {text}"))
}

/// A word of digits as a number: `None` when the word is not all digits, and
/// `invalid_value` when it is but does not fit in 32 bits, which no time, increment, seek,
/// challenge or rating reaches (the command line's own length bounds the digits).
fn number(word: &str) -> Result<Option<u32>, LobbyRefusal> {
    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    word.parse().map(Some).map_err(|_| {
        LobbyRefusal::InvalidValue(format!("{word} is out of range (at most {}).", u32::MAX))
    })
}

/// `1300-1800` → (1300, 1800).
fn range(word: &str) -> Result<Option<(i64, i64)>, LobbyRefusal> {
    let Some((a, b)) = word.split_once('-') else {
        return Ok(None);
    };
    Ok(match (number(a)?, number(b)?) {
        (Some(a), Some(b)) => Some((i64::from(a), i64::from(b))),
        _ => None,
    })
}

fn rated_word(word: &str) -> Option<bool> {
    match word {
        "r" | "rated" => Some(true),
        "u" | "unrated" => Some(false),
        _ => None,
    }
}

fn color_word(word: &str) -> Option<Color> {
    match word {
        "w" | "white" => Some(Color::White),
        "b" | "black" => Some(Color::Black),
        _ => None,
    }
}

/// Parses one console line.
///
/// # Errors
/// [`LobbyRefusal::BadCommand`] with the usage when the line is not a command we know or its
/// arguments do not parse.
pub fn parse_line(line: &str) -> Result<LobbyCmd, LobbyRefusal> {
    let line = line.trim();
    let (head, rest) = match line.split_once(char::is_whitespace) {
        Some((head, rest)) => (head, rest.trim()),
        None => (line, ""),
    };
    let head = head.to_ascii_lowercase();
    let words: Vec<String> = rest
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let one_name = |words: &[String]| -> Option<String> {
        // Names keep their case in the reply, but lookups ignore it.
        rest.split_whitespace()
            .next()
            .filter(|_| words.len() == 1)
            .map(str::to_string)
    };
    match head.as_str() {
        "seek" => parse_seek(&words).map(LobbyCmd::Seek),
        "unseek" => match words.as_slice() {
            [] => Ok(LobbyCmd::Unseek(None)),
            [n] => number(n)?
                .map(|n| LobbyCmd::Unseek(Some(n)))
                .ok_or_else(|| usage("unseek [n]")),
            _ => Err(usage("unseek [n]")),
        },
        "sought" => match words.as_slice() {
            [] => Ok(LobbyCmd::Sought { all: false }),
            [a] if a == "all" => Ok(LobbyCmd::Sought { all: true }),
            _ => Err(usage("sought [all]")),
        },
        "play" => match words.as_slice() {
            [w] => Ok(LobbyCmd::Play(match number(w)? {
                Some(n) => PlayTarget::Seek(n),
                None => PlayTarget::User(one_name(&words).unwrap_or_default()),
            })),
            _ => Err(usage("play <n|user>")),
        },
        "match" => parse_match(rest, &words).map(LobbyCmd::Match),
        "accept" => parse_which(&words, false, "accept [n|user]").map(LobbyCmd::Accept),
        "decline" => parse_which(&words, true, "decline [n|user|all]").map(LobbyCmd::Decline),
        "withdraw" => parse_which(&words, true, "withdraw [n|user|all]").map(LobbyCmd::Withdraw),
        "pending" => Ok(LobbyCmd::Pending),
        "rematch" => Ok(LobbyCmd::Rematch),
        "games" => Ok(LobbyCmd::Games),
        // More than one word is not a name: answering with the caller's own record would
        // look like the named user's.
        "history" => match words.as_slice() {
            [] | [_] => Ok(LobbyCmd::History(one_name(&words))),
            _ => Err(usage("history [user]")),
        },
        "finger" => match words.as_slice() {
            [] | [_] => Ok(LobbyCmd::Finger(one_name(&words))),
            _ => Err(usage("finger [user]")),
        },
        "help" => Ok(LobbyCmd::Help),
        "set" => parse_set(rest),
        "noplay" | "=noplay" if words.is_empty() => Ok(LobbyCmd::Noplay(None)),
        "noplay" | "+noplay" => one_name(&words)
            .map(|n| LobbyCmd::Noplay(Some((n, true))))
            .ok_or_else(|| usage("+noplay <user>")),
        "-noplay" => one_name(&words)
            .map(|n| LobbyCmd::Noplay(Some((n, false))))
            .ok_or_else(|| usage("-noplay <user>")),
        "" => Err(LobbyRefusal::BadCommand(
            "Type a command; `help` lists them.".into(),
        )),
        other => Err(LobbyRefusal::BadCommand(format!(
            "{other}: Command not found. (`help` lists the lobby commands.)"
        ))),
    }
}

/// What a lobby client message asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Command(LobbyCmd),
    /// A text command, parsed with [`parse_line`] when it is carried out.
    Line(String),
    Ping,
}

fn which(msg: WhichMsg) -> Option<Which> {
    if msg.all {
        Some(Which::All)
    } else if let Some(id) = msg.id {
        Some(Which::Id(id))
    } else {
        msg.user.map(Which::User)
    }
}

/// The command a JSON message stands for.
///
/// # Errors
/// `bad_message`: a `play` with neither or both of `seek` and `user`, a `set` of a setting
/// that does not exist.
pub fn request_of(message: LobbyClientMsg) -> Result<Request, (&'static str, String)> {
    let command = match message {
        LobbyClientMsg::Ping {} => return Ok(Request::Ping),
        LobbyClientMsg::Command { line } => return Ok(Request::Line(line)),
        LobbyClientMsg::Seek(request) => LobbyCmd::Seek(request),
        LobbyClientMsg::Unseek { id } => LobbyCmd::Unseek(id),
        LobbyClientMsg::Sought { all } => LobbyCmd::Sought { all },
        LobbyClientMsg::Play { seek, user } => LobbyCmd::Play(match (seek, user) {
            (Some(n), None) => PlayTarget::Seek(n),
            (None, Some(user)) => PlayTarget::User(user),
            _ => {
                let why = "`play` takes either \"seek\" or \"user\"";
                return Err(("bad_message", why.into()));
            }
        }),
        LobbyClientMsg::Match(request) => LobbyCmd::Match(request),
        LobbyClientMsg::Accept(msg) => LobbyCmd::Accept(which(msg)),
        LobbyClientMsg::Decline(msg) => LobbyCmd::Decline(which(msg)),
        LobbyClientMsg::Withdraw(msg) => LobbyCmd::Withdraw(which(msg)),
        LobbyClientMsg::Pending {} => LobbyCmd::Pending,
        LobbyClientMsg::Rematch {} => LobbyCmd::Rematch,
        LobbyClientMsg::Games {} => LobbyCmd::Games,
        LobbyClientMsg::History { user } => LobbyCmd::History(user),
        LobbyClientMsg::Finger { user } => LobbyCmd::Finger(user),
        LobbyClientMsg::Set { name: None, .. } => LobbyCmd::Set(None),
        LobbyClientMsg::Set {
            name: Some(name),
            value,
        } => match parse_set(&format!("{name} {value}")) {
            Ok(LobbyCmd::Set(Some((setting, _)))) => {
                LobbyCmd::Set(Some((setting, value.trim().to_string())))
            }
            _ => return Err(("bad_message", format!("no setting named `{name}`"))),
        },
        LobbyClientMsg::Noplay { user, on } => LobbyCmd::Noplay(user.map(|u| (u, on))),
    };
    Ok(Request::Command(command))
}

const SEEK_USAGE: &str =
    "seek [time inc] [rated|unrated] [white|black] [variant] [auto|manual] [formula] [min-max]";

fn parse_seek(words: &[String]) -> Result<SeekRequest, LobbyRefusal> {
    let mut seek = SeekRequest::default();
    for word in words {
        if let Some(n) = number(word)? {
            if seek.time.is_none() {
                seek.time = Some(n);
            } else if seek.inc.is_none() {
                seek.inc = Some(n);
            } else {
                return Err(usage(SEEK_USAGE));
            }
        } else if let Some(rated) = rated_word(word) {
            seek.rated = Some(rated);
        } else if let Some(color) = color_word(word) {
            seek.color = Some(color);
        } else if let Ok(variant) = word.parse::<Variant>() {
            seek.variant = Some(variant);
        } else if word == "a" || word == "auto" {
            seek.manual = false;
        } else if word == "m" || word == "manual" {
            seek.manual = true;
        } else if word == "f" || word == "formula" {
            seek.formula = true;
        } else if let Some((min, max)) = range(word)? {
            seek.min = Some(min);
            seek.max = Some(max);
        } else {
            return Err(LobbyRefusal::BadCommand(format!(
                "Unknown seek option `{word}`. Usage: {SEEK_USAGE}"
            )));
        }
    }
    Ok(seek)
}

const MATCH_USAGE: &str = "match <user> [time inc] [rated|unrated] [white|black] [variant]";

fn parse_match(rest: &str, words: &[String]) -> Result<MatchRequest, LobbyRefusal> {
    let Some(user) = rest.split_whitespace().next() else {
        return Err(usage(MATCH_USAGE));
    };
    let mut request = MatchRequest {
        user: user.to_string(),
        ..MatchRequest::default()
    };
    for word in words.iter().skip(1) {
        if let Some(n) = number(word)? {
            if request.time.is_none() {
                request.time = Some(n);
            } else if request.inc.is_none() {
                request.inc = Some(n);
            } else {
                return Err(usage(MATCH_USAGE));
            }
        } else if let Some(rated) = rated_word(word) {
            request.rated = Some(rated);
        } else if let Some(color) = color_word(word) {
            request.color = Some(color);
        } else if let Ok(variant) = word.parse::<Variant>() {
            request.variant = Some(variant);
        } else {
            return Err(LobbyRefusal::BadCommand(format!(
                "Unknown match option `{word}`. Usage: {MATCH_USAGE}"
            )));
        }
    }
    Ok(request)
}

fn parse_which(words: &[String], all: bool, text: &str) -> Result<Option<Which>, LobbyRefusal> {
    match words {
        [] => Ok(None),
        [w] if all && w == "all" => Ok(Some(Which::All)),
        [w] => Ok(Some(match number(w)? {
            Some(n) => Which::Id(n),
            None => Which::User(w.clone()),
        })),
        _ => Err(usage(text)),
    }
}

fn parse_set(rest: &str) -> Result<LobbyCmd, LobbyRefusal> {
    if rest.is_empty() {
        return Ok(LobbyCmd::Set(None));
    }
    let (name, value) = match rest.split_once(char::is_whitespace) {
        Some((name, value)) => (name, value.trim()),
        None => (rest, ""),
    };
    let setting = match name.to_ascii_lowercase().as_str() {
        "time" => SettingName::Time,
        "inc" => SettingName::Inc,
        "variant" => SettingName::Variant,
        "formula" => SettingName::Formula(0),
        f => match f.strip_prefix('f').and_then(|d| d.parse::<u8>().ok()) {
            Some(n) if (1..=9).contains(&n) && f.len() == 2 => SettingName::Formula(n),
            _ => {
                return Err(LobbyRefusal::BadCommand(format!(
                "No such variable \"{name}\". Usage: set [time|inc|variant|formula|f1..f9] [value]"
            )))
            }
        },
    };
    Ok(LobbyCmd::Set(Some((setting, value.to_string()))))
}

/// A rating as FICS lists it: `++++` for guests, `1500P` while provisional.
pub fn rating_text(rating: Option<i64>, provisional: bool) -> String {
    match rating {
        None => "++++".to_string(),
        Some(r) if provisional => format!("{r}P"),
        Some(r) => r.to_string(),
    }
}

fn rated_text(rated: bool) -> &'static str {
    if rated {
        "rated"
    } else {
        "unrated"
    }
}

fn color_text(color: Option<Color>) -> &'static str {
    match color {
        Some(Color::White) => " [white]",
        Some(Color::Black) => " [black]",
        None => "",
    }
}

/// A seek as an announcement: `alice (1500P) seeking 5 0 rated suicide [white] m ("play 3" to respond)`.
pub fn seek_announcement(seek: &SeekView) -> String {
    format!(
        "{} ({}) seeking {} {} {} {}{}{}{} (\"play {}\" to respond)",
        seek.user,
        rating_text(seek.rating, seek.provisional),
        seek.time,
        seek.inc,
        rated_text(seek.rated),
        seek.variant,
        color_text(seek.color),
        if seek.manual { " m" } else { "" },
        if seek.formula { " f" } else { "" },
        seek.id
    )
}

/// One `sought` line: index, rating, handle, time, inc, rated, variant, colour, range, flags.
pub fn sought_line(seek: &SeekView) -> String {
    format!(
        "{:>3} {:>5} {:<20} {:>3} {:>3} {:<7} {:<7} {:<7} {:>4}-{:<4}{}{}",
        seek.id,
        rating_text(seek.rating, seek.provisional),
        seek.user,
        seek.time,
        seek.inc,
        rated_text(seek.rated),
        seek.variant.key(),
        color_text(seek.color).trim(),
        seek.min,
        seek.max,
        if seek.manual { " m" } else { "" },
        if seek.formula { " f" } else { "" },
    )
}

/// The `sought` listing.
pub fn sought_text(seeks: &[SeekView]) -> String {
    let mut out = String::new();
    for seek in seeks {
        out.push_str(&sought_line(seek));
        out.push('\n');
    }
    let _ = write!(out, "{} ads displayed.", seeks.len());
    out
}

/// A challenge as FICS shows it:
/// `Challenge 4: alice (1500P) bob (++++) unrated suicide 5 0 [white]`.
pub fn challenge_text(c: &ChallengeView) -> String {
    format!(
        "Challenge {}: {} ({}) {} ({}) {} {} {} {}{}",
        c.id,
        c.from,
        rating_text(c.from_rating, false),
        c.to,
        rating_text(c.to_rating, false),
        rated_text(c.rated),
        c.variant,
        c.time,
        c.inc,
        color_text(c.color)
    )
}

/// The `games` listing.
pub fn games_text(games: &[GameSummary]) -> String {
    let mut out = String::new();
    for g in games {
        let clock = g.clock.map_or("untimed".to_string(), |c| {
            format!("{} {}", c.initial_ms / 60_000, c.increment_ms / 1000)
        });
        let _ = writeln!(
            out,
            "{} {:<20} {:<20} [{} {} {}] ply {}",
            g.game_id,
            g.white_name.as_deref().unwrap_or("?"),
            g.black_name.as_deref().unwrap_or("?"),
            rated_text(g.rated),
            g.variant,
            clock,
            g.action_count
        );
    }
    let _ = write!(out, "{} games displayed.", games.len());
    out
}

/// The `history` listing, newest first.
pub fn history_text(user: &str, games: &[GameSummary]) -> String {
    if games.is_empty() {
        return format!("{user} has no history games.");
    }
    let mut out = format!("History for {user}:\n");
    for (i, g) in games.iter().enumerate() {
        let white = g.white_name.as_deref().unwrap_or("?");
        let black = g.black_name.as_deref().unwrap_or("?");
        let (color, opponent) = if white.eq_ignore_ascii_case(user) {
            ("W", black)
        } else {
            ("B", white)
        };
        let result = match g.outcome {
            None => "*".to_string(),
            Some(o) => {
                let mine = match o.winner {
                    None => "=",
                    Some(Color::White) if color == "W" => "+",
                    Some(Color::Black) if color == "B" => "+",
                    Some(_) => "-",
                };
                format!("{mine} {}", o.reason.as_str())
            }
        };
        let clock = g.clock.map_or("untimed".to_string(), |c| {
            format!("{} {}", c.initial_ms / 60_000, c.increment_ms / 1000)
        });
        let _ = writeln!(
            out,
            "{:>2}: {:<24} {} {:<20} [{} {} {}] {}",
            i,
            result,
            color,
            opponent,
            if g.rated { "r" } else { "u" },
            g.variant,
            clock,
            g.created_at.format("%Y-%m-%d %H:%M")
        );
    }
    out.pop();
    out
}

/// The `finger` text.
pub fn finger_text(f: &FingerView) -> String {
    let mut out = format!(
        "Finger of {}{}:\n",
        f.user,
        if f.registered { "" } else { " (guest)" }
    );
    if f.ratings.is_empty() {
        out.push_str("  No rated games.");
        return out;
    }
    let _ = writeln!(
        out,
        "  {:<8} {:>6} {:>6} {:>5} {:>5} {:>5} {:>5}",
        "variant", "rating", "RD", "games", "win", "loss", "draw"
    );
    for r in &f.ratings {
        let _ = writeln!(
            out,
            "  {:<8} {:>6} {:>6.1} {:>5} {:>5} {:>5} {:>5}",
            r.variant.key(),
            rating_text(Some(r.rating), r.provisional),
            r.deviation,
            r.games,
            r.wins,
            r.losses,
            r.draws
        );
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seek_lines_parse_with_fics_defaults_left_open() {
        assert_eq!(
            parse_line("seek").ok(),
            Some(LobbyCmd::Seek(SeekRequest::default()))
        );
        let Ok(LobbyCmd::Seek(seek)) = parse_line("SEEK 5 2 r w chazz m f 1300-1800") else {
            panic!("should parse");
        };
        assert_eq!(
            seek,
            SeekRequest {
                time: Some(5),
                inc: Some(2),
                rated: Some(true),
                color: Some(Color::White),
                variant: Some(Variant::Chazz),
                manual: true,
                formula: true,
                min: Some(1300),
                max: Some(1800),
            }
        );
        let Ok(LobbyCmd::Seek(seek)) = parse_line("seek 2 unrated black auto") else {
            panic!("should parse");
        };
        assert_eq!((seek.time, seek.inc), (Some(2), None));
        assert_eq!(seek.rated, Some(false));
        assert!(!seek.manual);
        for bad in ["seek 1 2 3", "seek fast", "seek 10-"] {
            assert_eq!(
                parse_line(bad).err().map(|e| e.code()),
                Some("bad_command"),
                "{bad}"
            );
        }
    }

    #[test]
    fn numbers_beyond_32_bits_are_invalid_values_not_bad_commands() {
        for line in [
            "seek 99999999999",
            "seek 5 4294967296",
            "seek 5 0 1300-99999999999",
            "match bob 4294967296 0",
            "unseek 4294967296",
            "play 99999999999",
            "accept 99999999999",
            "decline 99999999999",
            "withdraw 99999999999",
        ] {
            assert_eq!(
                parse_line(line).err().map(|e| e.code()),
                Some("invalid_value"),
                "{line}"
            );
        }
        // The largest 32-bit number is still a number, which the lobby then judges.
        assert_eq!(
            parse_line("unseek 4294967295").ok(),
            Some(LobbyCmd::Unseek(Some(u32::MAX)))
        );
    }

    #[test]
    fn other_commands_parse() {
        assert_eq!(
            parse_line("play 3").ok(),
            Some(LobbyCmd::Play(PlayTarget::Seek(3)))
        );
        assert_eq!(
            parse_line("play Bob").ok(),
            Some(LobbyCmd::Play(PlayTarget::User("Bob".into())))
        );
        assert_eq!(parse_line("unseek").ok(), Some(LobbyCmd::Unseek(None)));
        assert_eq!(parse_line("unseek 2").ok(), Some(LobbyCmd::Unseek(Some(2))));
        assert_eq!(
            parse_line("sought all").ok(),
            Some(LobbyCmd::Sought { all: true })
        );
        let Ok(LobbyCmd::Match(m)) = parse_line("match Bob 3 0 rated black duel") else {
            panic!("should parse");
        };
        assert_eq!(m.user, "Bob");
        assert_eq!((m.time, m.inc, m.rated), (Some(3), Some(0), Some(true)));
        assert_eq!(
            (m.color, m.variant),
            (Some(Color::Black), Some(Variant::Duel))
        );
        assert_eq!(parse_line("accept").ok(), Some(LobbyCmd::Accept(None)));
        assert_eq!(
            parse_line("decline all").ok(),
            Some(LobbyCmd::Decline(Some(Which::All)))
        );
        assert_eq!(
            parse_line("withdraw 7").ok(),
            Some(LobbyCmd::Withdraw(Some(Which::Id(7))))
        );
        assert_eq!(
            parse_line("set formula rating > 1500 && !rated").ok(),
            Some(LobbyCmd::Set(Some((
                SettingName::Formula(0),
                "rating > 1500 && !rated".into()
            ))))
        );
        assert_eq!(
            parse_line("set f3").ok(),
            Some(LobbyCmd::Set(Some((
                SettingName::Formula(3),
                String::new()
            ))))
        );
        assert!(parse_line("set f10 1").is_err());
        assert_eq!(
            parse_line("+noplay Bob").ok(),
            Some(LobbyCmd::Noplay(Some(("Bob".into(), true))))
        );
        assert_eq!(parse_line("noplay").ok(), Some(LobbyCmd::Noplay(None)));
        assert_eq!(parse_line("finger").ok(), Some(LobbyCmd::Finger(None)));
        assert_eq!(
            parse_line("history carol").ok(),
            Some(LobbyCmd::History(Some("carol".into())))
        );
        assert_eq!(
            parse_line("finger Carol").ok(),
            Some(LobbyCmd::Finger(Some("Carol".into())))
        );
        for extra in ["history carol smith", "finger carol 2", "history a b c"] {
            assert!(
                matches!(parse_line(extra), Err(LobbyRefusal::BadCommand(_))),
                "{extra}"
            );
        }
        assert_eq!(
            parse_line("fly away").err().map(|e| e.to_string()),
            Some("fly: Command not found. (`help` lists the lobby commands.)".into())
        );
    }
}
