//! The leaderboard: each variant's highest established ratings, as JSON
//! (`GET /api/leaderboard?variant=…&limit=…`) and as the `/leaderboard` page, which the
//! server renders whole (one section per variant, the chosen one shown) so that it needs no
//! request of its own to fill in and nothing moves as it loads. `static/leaderboard.js` only
//! switches between the sections without a reload.

use super::parse_variant;
use crate::rules::Variant;
use crate::store::LeaderboardEntry;
use crate::web::auth::MaybeUser;
use crate::web::error::{ApiError, ErrorBody};
use crate::web::extract::QueryParams;
use crate::web::pages::{error_page, escape, fill, page, playable_variants};
use crate::web::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Players listed when a request does not say how many.
const DEFAULT_LIMIT: i64 = 50;

const LEADERBOARD: &str = include_str!("../../../templates/leaderboard.html");

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct LeaderboardQuery {
    /// The variant whose ratings to list.
    #[param(value_type = Variant)]
    variant: String,
    /// 1 to 100 (50 by default); out of that range is brought into it.
    limit: Option<i64>,
}

/// One variant's highest established ratings, highest first.
#[derive(Serialize, ToSchema)]
struct Leaderboard {
    variant: Variant,
    #[schema(value_type = String)]
    variant_name: &'static str,
    players: Vec<LeaderboardEntry>,
}

/// One variant's highest ratings among registered players, provisional ratings left out.
#[utoipa::path(
    get,
    path = "/api/leaderboard",
    tag = "lobby",
    params(LeaderboardQuery),
    responses(
        (status = 200, description = "The variant's leaderboard.", body = Leaderboard),
        (status = 422, description = "`unknown_variant`, `bad_query` (no variant).", body = ErrorBody),
    )
)]
async fn leaderboard(
    State(state): State<AppState>,
    QueryParams(query): QueryParams<LeaderboardQuery>,
) -> Result<Json<Leaderboard>, ApiError> {
    let variant = parse_variant(&query.variant)?;
    // The store brings the limit into its bounds (`store::LEADERBOARD_MAX`).
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    let players = state.store.leaderboard(variant, limit).await?;
    Ok(Json(Leaderboard {
        variant,
        variant_name: variant.display_name(),
        players,
    }))
}

/// The page's query: the variant to show first (any other text shows the first variant).
#[derive(Deserialize)]
struct PageQuery {
    variant: Option<String>,
}

/// The variants a leaderboard is kept for.
fn variants() -> impl Iterator<Item = Variant> {
    playable_variants().iter().copied()
}

/// One variant's table.
fn section_html(variant: Variant, players: &[LeaderboardEntry], shown: bool) -> String {
    let key = variant.key();
    let name = escape(variant.display_name());
    let rows: String = players
        .iter()
        .map(|p| {
            let player = escape(&p.username);
            format!(
                "<tr><td>{rank}</td><td><a href=\"/player/{player}\">{player}</a></td>\
                 <td>{rating}</td><td>{games}</td><td>{wins} / {draws} / {losses}</td></tr>",
                rank = p.rank,
                rating = p.rating.round(),
                games = p.games,
                wins = p.wins,
                draws = p.draws,
                losses = p.losses,
            )
        })
        .collect();
    let body = if rows.is_empty() {
        format!("<p class=\"muted\">No established {name} rating yet.</p>")
    } else {
        format!(
            "<table class=\"list lb-table\"><caption class=\"visually-hidden\">{name}: highest ratings</caption>\
             <thead><tr><th scope=\"col\">Rank</th><th scope=\"col\">Player</th><th scope=\"col\">Rating</th>\
             <th scope=\"col\">Games</th><th scope=\"col\"><abbr title=\"Won / drawn / lost\">W / D / L</abbr></th></tr></thead>\
             <tbody>{rows}</tbody></table>"
        )
    };
    format!(
        "<section class=\"panel lb-section\" id=\"lb-{key}\" data-variant=\"{key}\" aria-labelledby=\"lb-{key}-h\"{hidden}>\
         <h2 id=\"lb-{key}-h\">{name}</h2>{body}</section>\n",
        hidden = if shown { "" } else { " hidden" },
    )
}

/// The link that shows one variant's section.
fn tab_html(variant: Variant, shown: bool) -> String {
    let key = variant.key();
    format!(
        "<a href=\"/leaderboard?variant={key}\" data-variant=\"{key}\"{current}>{name}</a>",
        current = if shown { " aria-current=\"page\"" } else { "" },
        name = escape(variant.display_name()),
    )
}

/// The page's body: a link per variant and every variant's section, `shown`'s alone visible.
fn leaderboard_body(boards: &[(Variant, Vec<LeaderboardEntry>)], shown: Variant) -> String {
    let tabs: String = boards
        .iter()
        .map(|(v, _)| tab_html(*v, *v == shown))
        .collect();
    let sections: String = boards
        .iter()
        .map(|(v, players)| section_html(*v, players, *v == shown))
        .collect();
    fill(LEADERBOARD, &[("tabs", &tabs), ("sections", &sections)])
}

/// `/leaderboard`: every variant's top [`DEFAULT_LIMIT`] players.
async fn leaderboard_page(
    State(state): State<AppState>,
    user: MaybeUser,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    let first = variants().next().unwrap_or(Variant::Suicide);
    let shown = query
        .ok()
        .and_then(|Query(q)| q.variant)
        .and_then(|text| text.parse::<Variant>().ok())
        .filter(|v| playable_variants().contains(v))
        .unwrap_or(first);
    let mut boards = Vec::new();
    for variant in variants() {
        match state.store.leaderboard(variant, DEFAULT_LIMIT).await {
            Ok(players) => boards.push((variant, players)),
            Err(e) => {
                tracing::warn!(cause = %e, "leaderboard page");
                return error_page(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Leaderboard unavailable",
                    "The ratings cannot be read just now. Try again in a moment.",
                );
            }
        }
    }
    page(
        &state,
        "Leaderboard",
        &user,
        &leaderboard_body(&boards, shown),
        "leaderboard.js",
    )
}

/// The routes of this module's endpoints.
/// The API route and the page.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/leaderboard", get(leaderboard))
        .route("/leaderboard", get(leaderboard_page))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(rank: i64, username: &str, rating: f64) -> LeaderboardEntry {
        LeaderboardEntry {
            rank,
            username: username.into(),
            rating,
            deviation: 80.0,
            games: 20,
            wins: 12,
            draws: 3,
            losses: 5,
            updated_at: chrono::DateTime::UNIX_EPOCH,
        }
    }

    #[test]
    fn the_page_shows_the_chosen_variant_and_escapes_names() {
        let boards: Vec<_> = variants()
            .map(|v| {
                let players = if v == Variant::Chad {
                    vec![entry(1, "<b>o</b>", 1812.4), entry(2, "ann", 1700.6)]
                } else {
                    Vec::new()
                };
                (v, players)
            })
            .collect();
        let body = leaderboard_body(&boards, Variant::Chad);
        assert!(!body.contains("{{"), "{body}");
        assert!(!body.contains("<b>o</b>"), "{body}");
        assert!(body.contains("<a href=\"/player/&lt;b&gt;o&lt;/b&gt;\">&lt;b&gt;o&lt;/b&gt;</a>"));
        assert!(body.contains("<td>1812</td>") && body.contains("<td>1701</td>"));
        assert!(body.contains("<section class=\"panel lb-section\" id=\"lb-chad\" data-variant=\"chad\" aria-labelledby=\"lb-chad-h\">"));
        assert!(body.contains(
            "id=\"lb-suicide\" data-variant=\"suicide\" aria-labelledby=\"lb-suicide-h\" hidden>"
        ));
        assert!(body.contains("data-variant=\"chad\" aria-current=\"page\">"));
        assert_eq!(body.matches("aria-current").count(), 1);
        assert_eq!(
            body.matches("No established").count(),
            variants().count() - 1
        );
    }
}
