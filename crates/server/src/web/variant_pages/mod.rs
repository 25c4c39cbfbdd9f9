//! The pages that teach the five games, and the lessons API their try boards play on.
//!
//! - `GET /variants`: every variant with a picture of its set-up, one line and a link.
//! - `GET /variant/{id}`: who invented it and when, the set-up, every rule in our own words
//!   beside a board to try it on, the notation, and links to play (the lobby's
//!   `/?variant=<id>` and `/?computer=<id>`). An unknown id is the 404 error page.
//! - `GET /api/variants/{id}/lessons`: the variant's start and each lesson's set-up.
//! - `POST /api/variants/{id}/lessons/{lesson}/try`: the actions played on a lesson's board
//!   so far, replayed by the rules engine ([`lessons`]): the position after them, or 422
//!   `illegal_action` naming the action refused. Rate limited per address
//!   ([`Action::TryLesson`]).
//!
//! The texts are server-rendered from `templates/variants/<id>.html`, whose `{{setup}}` and
//! `{{try:<lesson>}}` placeholders become the boards `static/variant.js` brings to life. The
//! client never sends a position: only actions on the server's own set-ups.

pub mod lessons;

use super::auth::MaybeUser;
use super::error::{ApiError, ErrorBody};
use super::extract::{JsonBody, PathParam};
use super::limits::Action;
use super::pages::{error_page, escape, fill, page};
use super::proxy::ClientInfo;
use super::AppState;
use crate::rules::{AnyGame, Snapshot, Variant};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use lessons::{Lesson, TryError, MAX_ACTIONS, MAX_ACTION_LEN};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

const VARIANTS: &str = include_str!("../../../templates/variants.html");
const VARIANT: &str = include_str!("../../../templates/variant.html");

/// What the pages say about one variant beyond its rules.
struct About {
    variant: Variant,
    /// Who made it and when, in a sentence.
    origin: &'static str,
    /// The game in one line, for the list.
    summary: &'static str,
    /// The page's text, with its `{{setup}}` and `{{try:<lesson>}}` placeholders.
    text: &'static str,
}

const ABOUT: [About; 5] = [
    About {
        variant: Variant::Suicide,
        origin: "No one person invented it: it is the old losing game of chess, with the \
                 rules the Free Internet Chess Server (FICS) wrote down in its help file \
                 \"suicide_chess\", last revised on 11 September 1997.",
        summary:
            "Lose all your men to win. Captures are compulsory and the king is just another piece.",
        text: include_str!("../../../templates/variants/suicide.html"),
    },
    About {
        variant: Variant::Chazz,
        origin: "Invented by David Moeser of Cincinnati, Ohio, on 18 April 1999, for the \
                 40-square chess-variant contest of Hans Bodlaender's chess variants site.",
        summary:
            "Kings and pawns on an 8 by 5 board. Pawns step backward, nobody is ever stalemated.",
        text: include_str!("../../../templates/variants/chazz.html"),
    },
    About {
        variant: Variant::Duel,
        origin: "Invented by Erez Schatz in 2003; it won first place in the 43-square \
                 contest of chessvariants.com.",
        summary: "A 5 by 7 board with a hole, and a 3 by 3 Duel board where captured men fight on.",
        text: include_str!("../../../templates/variants/duel.html"),
    },
    About {
        variant: Variant::Drehs,
        origin: "Davey W. Drehs' \"Execute! the Game\", whose rules he put on the web in May \
                 2009: chess fought out with dice, life points and armor.",
        summary:
            "Chess with dice: pieces have life points and armor, and the goal is to kill the king.",
        text: include_str!("../../../templates/variants/drehs.html"),
    },
    About {
        variant: Variant::Chad,
        origin: "Invented by Christian Freeling in 1979 and played for years at the Fanaat \
                 games club in the Netherlands.",
        summary: "A 12 by 12 board, one king and eight rooks a side, castles and walls.",
        text: include_str!("../../../templates/variants/chad.html"),
    },
];

fn about(variant: Variant) -> Option<&'static About> {
    ABOUT.iter().find(|a| a.variant == variant)
}

/// A variant's start: it sets up in every build whose variants are all playable, which the
/// tests check.
fn start_snapshot(variant: Variant) -> Result<Snapshot, ApiError> {
    AnyGame::start(variant)
        .map(|game| game.snapshot())
        .map_err(|e| ApiError::Internal(e.to_string()))
}

/// A snapshot as a picture needs it: without its legal actions, which a still board never
/// offers (Davey Drehs' start has 165 of them).
fn picture_json(mut snapshot: Snapshot) -> String {
    snapshot.legal_actions.clear();
    serde_json::to_string(&snapshot).unwrap_or_default()
}

/// The try board of a lesson: its task, the board, the picker and special-action buttons
/// that `BoardView` fills, the dice for a variant that rolls them, the result (a polite live
/// region) and a reset button.
fn try_markup(lesson: &Lesson) -> String {
    let id = escape(lesson.id);
    let dice = if lesson.variant.has_dice() {
        "<div class=\"rolls try-rolls\" aria-label=\"Dice\"></div>\n"
    } else {
        ""
    };
    format!(
        "<figure class=\"try\" id=\"try-{id}\" data-lesson=\"{id}\" aria-labelledby=\"try-{id}-title\">\n\
         <figcaption class=\"try-head\"><span class=\"try-title\" id=\"try-{id}-title\">Try it: {title}</span>\n\
         <span class=\"try-task\">{task}</span></figcaption>\n\
         <div class=\"boards try-boards\"></div>\n\
         <div class=\"picker try-picker\" hidden role=\"group\" aria-label=\"Choose\"></div>\n\
         <div class=\"row try-specials\"></div>\n\
         {dice}<p class=\"try-result\" aria-live=\"polite\"></p>\n\
         <button type=\"button\" class=\"try-reset\">Reset this board</button>\n\
         </figure>",
        title = escape(lesson.title),
        task = escape(lesson.task),
    )
}

/// The set-up board of a variant page, drawn by the game's board from the start snapshot.
const SETUP: &str = "<div id=\"setup\" class=\"boards setup-boards\"></div>";

fn variant_body(about: &About) -> String {
    let tries: Vec<(String, String)> = lessons::lessons_of(about.variant)
        .map(|l| (format!("try:{}", l.id), try_markup(l)))
        .collect();
    let mut values: Vec<(&str, &str)> = tries
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    values.push(("setup", SETUP));
    let text = fill(about.text, &values);
    fill(
        VARIANT,
        &[
            ("id", about.variant.key()),
            ("name", &escape(about.variant.display_name())),
            ("origin", &escape(about.origin)),
            ("summary", &escape(about.summary)),
            ("text", &text),
        ],
    )
}

fn variants_body() -> Result<String, ApiError> {
    let mut cards = String::new();
    for about in &ABOUT {
        let v = about.variant;
        cards.push_str(&format!(
            "<li class=\"variant-card\" data-variant=\"{id}\">\n\
             <h2><a href=\"/variant/{id}\">{name}</a></h2>\n\
             <div class=\"variant-picture\" data-label=\"The set-up of {name}\" data-snapshot=\"{snapshot}\"></div>\n\
             <p>{summary}</p>\n\
             <p><a href=\"/variant/{id}\" aria-label=\"Learn {name}\">Learn the rules and try them</a></p>\n\
             </li>\n",
            id = v.key(),
            name = escape(v.display_name()),
            snapshot = escape(&picture_json(start_snapshot(v)?)),
            summary = escape(about.summary),
        ));
    }
    Ok(fill(VARIANTS, &[("cards", &cards)]))
}

async fn variants_page(State(state): State<AppState>, user: MaybeUser) -> Response {
    match variants_body() {
        Ok(body) => page(&state, "Variants", &user, &body, "variant.js"),
        Err(e) => axum::response::IntoResponse::into_response(e),
    }
}

fn no_such_variant() -> Response {
    error_page(
        StatusCode::NOT_FOUND,
        "No such variant",
        "Oddboard has no game by that name. The list of games is at /variants.",
    )
}

async fn variant_page(
    State(state): State<AppState>,
    user: MaybeUser,
    path: Result<Path<String>, PathRejection>,
) -> Response {
    let Some(about) = path
        .ok()
        .and_then(|Path(id)| id.parse::<Variant>().ok())
        .and_then(about)
    else {
        return no_such_variant();
    };
    page(
        &state,
        about.variant.display_name(),
        &user,
        &variant_body(about),
        "variant.js",
    )
}

/// The variant a lessons route names: 404 `variant_not_found` for any other text.
fn variant_of(id: &str) -> Result<Variant, ApiError> {
    id.parse()
        .map_err(|_| ApiError::NotFound("variant_not_found"))
}

/// One lesson's set-up.
#[derive(Serialize, ToSchema)]
struct LessonView {
    /// The lesson's id, for its try URL.
    #[schema(example = "forced-capture")]
    id: &'static str,
    title: &'static str,
    /// What the visitor is asked to try.
    task: &'static str,
    /// The rules snapshot of the set-up (as the game socket sends `rules`, legal actions
    /// included).
    #[schema(value_type = Object)]
    rules: Snapshot,
}

/// A variant's lessons.
#[derive(Serialize, ToSchema)]
struct LessonList {
    variant: Variant,
    #[schema(example = "Suicide Chess")]
    name: &'static str,
    /// The rules snapshot of the variant's start position.
    #[schema(value_type = Object)]
    start: Snapshot,
    lessons: Vec<LessonView>,
}

/// A variant's start position and every lesson's set-up, for the try boards of its page.
#[utoipa::path(
    get,
    path = "/api/variants/{id}/lessons",
    tag = "games",
    params(("id" = String, Path, description = "A variant id (`GET /api/variants`).")),
    responses(
        (status = 200, description = "The start and the lessons.", body = LessonList),
        (status = 404, description = "`variant_not_found`.", body = ErrorBody),
    )
)]
async fn lesson_list(PathParam(id): PathParam<String>) -> Result<Json<LessonList>, ApiError> {
    let variant = variant_of(&id)?;
    let mut list = Vec::new();
    for lesson in lessons::lessons_of(variant) {
        let game = lessons::start(lesson).map_err(try_error)?;
        list.push(LessonView {
            id: lesson.id,
            title: lesson.title,
            task: lesson.task,
            rules: game.snapshot(),
        });
    }
    Ok(Json(LessonList {
        variant,
        name: variant.display_name(),
        start: start_snapshot(variant)?,
        lessons: list,
    }))
}

/// The actions played on a lesson's board since its set-up.
#[derive(Deserialize, ToSchema)]
struct TryRequest {
    /// Machine notation (`docs/rules/<variant>.md`), at most 16, each at most 64 bytes.
    #[schema(max_items = 16, example = json!(["e4d5"]))]
    actions: Vec<String>,
}

/// An action that was played, in both notations.
#[derive(Serialize, ToSchema)]
struct PlayedView {
    machine: String,
    human: String,
}

/// Where a try stands.
#[derive(Serialize, ToSchema)]
struct TryResult {
    /// The rules snapshot after the actions (legal actions included; the last action's dice
    /// and effects in `last_action`).
    #[schema(value_type = Object)]
    rules: Snapshot,
    /// The last action played; null for none.
    last: Option<PlayedView>,
    /// Whether the last action showed the lesson's rule.
    shown: bool,
    /// What the page says about it.
    message: String,
}

fn try_error(e: TryError) -> ApiError {
    match e {
        TryError::TooManyActions => ApiError::invalid(
            "too_many_actions",
            format!("a try holds at most {MAX_ACTIONS} actions: reset the board"),
        ),
        TryError::ActionTooLong(index) => ApiError::invalid(
            "action_too_long",
            format!("action {} is longer than {MAX_ACTION_LEN} bytes", index + 1),
        ),
        TryError::Illegal {
            index,
            code,
            message,
        } => ApiError::invalid(
            "illegal_action",
            format!("action {} is refused ({code}): {message}", index + 1),
        ),
        TryError::Setup(cause) => ApiError::Internal(format!("a lesson does not set up: {cause}")),
    }
}

/// What the page says after a try.
fn message(lesson: &Lesson, tried: &lessons::Tried) -> String {
    if tried.shown {
        return lesson.success.to_string();
    }
    if let Some(outcome) = tried.game.outcome() {
        return format!(
            "The game is over ({}). Reset the board to try again.",
            outcome.reason
        );
    }
    match &tried.last {
        None => lesson.task.to_string(),
        Some(played) => format!(
            "{}: legal, but not yet this board's rule. {}",
            played.human, lesson.task
        ),
    }
}

/// Plays the actions on a lesson's set-up and says where they lead. Nothing is kept: each
/// try sends every action since the set-up, and Davey Drehs' dice roll the same each time.
#[utoipa::path(
    post,
    path = "/api/variants/{id}/lessons/{lesson}/try",
    tag = "games",
    params(
        ("id" = String, Path, description = "A variant id."),
        ("lesson" = String, Path, description = "A lesson id of that variant (`GET /api/variants/{id}/lessons`)."),
    ),
    request_body = TryRequest,
    responses(
        (status = 200, description = "The position after the actions.", body = TryResult),
        (status = 404, description = "`variant_not_found`, `lesson_not_found`.", body = ErrorBody),
        (status = 422, description = "`illegal_action` (the message names the action and the engine's reason), `too_many_actions`, `action_too_long`; `bad_body`.", body = ErrorBody),
        (status = 429, description = "`rate_limited`: this address tried too often lately.", body = ErrorBody),
    )
)]
async fn try_lesson(
    State(state): State<AppState>,
    client: ClientInfo,
    PathParam((id, lesson_id)): PathParam<(String, String)>,
    JsonBody(request): JsonBody<TryRequest>,
) -> Result<Json<TryResult>, ApiError> {
    let variant = variant_of(&id)?;
    let lesson =
        lessons::find(variant, &lesson_id).ok_or(ApiError::NotFound("lesson_not_found"))?;
    state.limits.check(Action::TryLesson, &client)?;
    let tried = lessons::try_lesson(lesson, &request.actions).map_err(try_error)?;
    let message = message(lesson, &tried);
    Ok(Json(TryResult {
        last: tried.last.map(|p| PlayedView {
            machine: p.machine,
            human: p.human,
        }),
        rules: tried.snapshot,
        shown: tried.shown,
        message,
    }))
}

/// The variant pages and the lessons API.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/variants", get(variants_page))
        .route("/variant/{id}", get(variant_page))
        .route("/api/variants/{id}/lessons", get(lesson_list))
        .route("/api/variants/{id}/lessons/{lesson}/try", post(try_lesson))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_has_a_page_that_fills_all_its_placeholders() {
        for variant in Variant::ALL {
            let about = about(variant).unwrap_or_else(|| panic!("{variant} has no page"));
            let body = variant_body(about);
            assert!(!body.contains("{{"), "{variant}: {body}");
            assert!(body.contains("id=\"setup\""), "{variant}: no set-up board");
            for lesson in lessons::lessons_of(variant) {
                assert!(
                    body.contains(&format!("data-lesson=\"{}\"", lesson.id)),
                    "{variant}: lesson {} has no board on the page",
                    lesson.id
                );
            }
            assert!(body.contains(&format!("href=\"/?variant={variant}\"")));
            assert!(body.contains(&format!("href=\"/?computer={variant}\"")));
            assert!(
                body.contains("id=\"notation\""),
                "{variant}: no notation section"
            );
        }
        let list = variants_body().unwrap_or_else(|e| panic!("{e:?}"));
        assert!(!list.contains("{{"));
        assert_eq!(list.matches("class=\"variant-card\"").count(), 5);
    }

    #[test]
    fn a_try_board_escapes_nothing_it_should_not() {
        for lesson in lessons::LESSONS {
            let markup = try_markup(lesson);
            assert!(markup.contains("aria-live=\"polite\""));
            assert_eq!(
                markup.contains("aria-label=\"Dice\""),
                lesson.variant.has_dice()
            );
            assert!(!markup.contains("{{"));
        }
    }

    #[test]
    fn the_message_follows_the_try() {
        let lesson =
            lessons::find(Variant::Chazz, "backward-pawn").unwrap_or_else(|| panic!("lesson"));
        let tried = |actions: &[&str]| {
            let actions: Vec<String> = actions.iter().map(|a| a.to_string()).collect();
            lessons::try_lesson(lesson, &actions).unwrap_or_else(|e| panic!("{e:?}"))
        };
        assert_eq!(message(lesson, &tried(&[])), lesson.task);
        assert_eq!(message(lesson, &tried(&["d3d2"])), lesson.success);
        let other = message(lesson, &tried(&["e1f1"]));
        assert!(other.starts_with("Kf1: legal, but not yet"), "{other}");
    }
}
