//! The OpenAPI document of the HTTP API, served at `GET /api/openapi.json`.
//!
//! Generated from the code, not written beside it: every handler carries a `#[utoipa::path]`
//! attribute, its request and response types derive `ToSchema`, and [`ApiDoc`] gathers them.
//! The answers any operation may give whatever it does (a fault on our side, the store away,
//! a rate limit, a cross-site request, an oversized body) are shared response components that
//! [`SharedResponses`] adds to every operation they apply to, so a new one is one line there.
//!
//! The rules engine's types on the wire (variant ids, colours, end reasons, outcomes) are
//! described by the engine's `openapi` feature (`oddboard_rules::schema`), from its own lists:
//! a trait is implemented in the crate of its type or of the trait.
//!
//! Left out: the HTML pages and the WebSocket upgrades (`docs/protocol.md` describes the
//! sockets' messages); the test in `tests` names them.

use super::error::ErrorBody;
use super::{api, auth, lobby, variant_pages};
use axum::routing::get;
use axum::{Json, Router};
use std::sync::LazyLock;
use utoipa::openapi::path::{HttpMethod, Operation, Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::{ContentBuilder, HeaderBuilder, OpenApi as Document, Ref, RefOr, Required};
use utoipa::{Modify, OpenApi, PartialSchema, ToSchema};

/// The whole API's description.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Oddboard",
        description = "The HTTP API of Oddboard, a server for five unusual chess variants. \
            Every error is JSON `{\"error\": \"<stable_snake_case_code>\", \"message\": \"…\"}`; \
            each response lists its codes. Unknown routes (404) and methods a route does not serve \
            (405) answer with the same error shape. Signed-in requests carry the session \
            cookie `oddboard_session`. The game and lobby WebSockets are described in \
            `docs/protocol.md`."
    ),
    paths(
        super::healthz,
        super::metrics,
        openapi_json,
        auth::accounts::register,
        auth::accounts::login,
        auth::accounts::guest,
        auth::accounts::logout,
        auth::accounts::me,
        api::games::create_game,
        api::games::list_games,
        api::games::get_game,
        api::games::accept_game,
        api::computer::play_computer,
        api::records::replay,
        api::records::dice_record,
        api::records::export_game,
        api::analysis::analysis,
        api::chat::game_chat,
        api::boards::game_board,
        api::leaderboard::leaderboard,
        api::players::user_games,
        api::players::user_results,
        api::games::variants,
        lobby::command,
        lobby::json_command,
        lobby::seeks,
        lobby::live_games,
        lobby::lobby_stats,
        lobby::finger,
        lobby::rating_history,
        variant_pages::lesson_list,
        variant_pages::try_lesson,
    ),
    // Schemas that only query parameters name: utoipa collects those of bodies alone.
    components(schemas(ErrorBody, crate::store::PlayerResult)),
    modifiers(&SharedResponses),
    tags(
        (name = "accounts", description = "Registration, sign-in, guests, sessions."),
        (name = "games", description = "Challenges, stored games, histories, export."),
        (name = "lobby", description = "Seeks, commands, ratings."),
        (name = "server", description = "Health, metrics, this document."),
    )
)]
pub struct ApiDoc;

/// A response every operation it applies to may give, declared once as a component.
struct SharedResponse {
    /// The component's name (`#/components/responses/{name}`).
    name: &'static str,
    status: &'static str,
    /// Whether an operation with this method, with or without a request body, may give it.
    applies: fn(&HttpMethod, &Operation) -> bool,
    response: fn() -> Response,
}

fn any_operation(_: &HttpMethod, _: &Operation) -> bool {
    true
}

fn changes_state(method: &HttpMethod, _: &Operation) -> bool {
    !matches!(method, HttpMethod::Get | HttpMethod::Head)
}

fn has_body(_: &HttpMethod, operation: &Operation) -> bool {
    operation.request_body.is_some()
}

/// An error response with these codes.
pub(super) fn error_response(description: &str) -> ResponseBuilder {
    ResponseBuilder::new().description(description).content(
        "application/json",
        ContentBuilder::new()
            .schema(Some(Ref::from_schema_name(ErrorBody::name())))
            .build(),
    )
}

/// The responses that do not depend on what an operation does. An operation that declares
/// the same status itself keeps its own (`/healthz`'s 503 is text).
const SHARED_RESPONSES: &[SharedResponse] = &[
    SharedResponse {
        name: "Internal",
        status: "500",
        applies: any_operation,
        response: || error_response("`internal`: a fault on our side, logged.").build(),
    },
    SharedResponse {
        name: "StoreUnavailable",
        status: "503",
        applies: any_operation,
        response: || {
            error_response(
                "`store_unavailable`: the database is unreachable; `game_unavailable`, \
                 `storage_failed`: a game could not be reached or saved. Try again later.",
            )
            .build()
        },
    },
    SharedResponse {
        name: "RateLimited",
        status: "429",
        applies: any_operation,
        response: || {
            error_response("`rate_limited`: too many requests from this client; wait and retry.")
                .header(
                    "Retry-After",
                    HeaderBuilder::new()
                        .schema(
                            ObjectBuilder::new()
                                .schema_type(Type::Integer)
                                .minimum(Some(0)),
                        )
                        .description(Some("Seconds to wait before trying again."))
                        .build(),
                )
                .build()
        },
    },
    SharedResponse {
        name: "CrossOrigin",
        status: "403",
        applies: changes_state,
        response: || {
            error_response(
                "`cross_origin`: a request that changes something, sent from another site's \
                 page (its `Origin` is not this server).",
            )
            .build()
        },
    },
    SharedResponse {
        name: "BodyTooLarge",
        status: "413",
        applies: has_body,
        response: || error_response("`body_too_large`: a body over 64 KiB.").build(),
    },
    SharedResponse {
        name: "JsonRequired",
        status: "415",
        applies: has_body,
        response: || {
            error_response("`json_required`: a body without `Content-Type: application/json`.")
                .build()
        },
    },
];

/// Adds [`SHARED_RESPONSES`] to the components and to every operation they apply to.
struct SharedResponses;

impl Modify for SharedResponses {
    fn modify(&self, document: &mut Document) {
        let components = document.components.get_or_insert_with(Default::default);
        for shared in SHARED_RESPONSES {
            components
                .responses
                .insert(shared.name.to_string(), RefOr::T((shared.response)()));
        }
        for item in document.paths.paths.values_mut() {
            let operations = [
                (HttpMethod::Get, &mut item.get),
                (HttpMethod::Post, &mut item.post),
                (HttpMethod::Put, &mut item.put),
                (HttpMethod::Delete, &mut item.delete),
                (HttpMethod::Patch, &mut item.patch),
            ];
            for (method, operation) in operations {
                let Some(operation) = operation else { continue };
                for shared in SHARED_RESPONSES {
                    if (shared.applies)(&method, operation) {
                        operation
                            .responses
                            .responses
                            .entry(shared.status.to_string())
                            .or_insert_with(|| Ref::from_response_name(shared.name).into());
                    }
                }
            }
        }
    }
}

/// A required path parameter.
pub fn path_parameter(
    name: &str,
    schema: impl Into<RefOr<Schema>>,
    description: &str,
) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .schema(Some(schema))
        .description(Some(description))
        .build()
}

/// The `{name}` of the `/api/users/{name}/…` routes (extracted as a plain string).
pub struct UserNameParam;

impl utoipa::IntoParams for UserNameParam {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![path_parameter(
            "name",
            String::schema(),
            "A registered or guest user's name, in any case.",
        )]
    }
}

/// The document, built once.
static DOCUMENT: LazyLock<Document> = LazyLock::new(ApiDoc::openapi);

/// This document.
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = "server",
    responses((status = 200, description = "The OpenAPI 3.1 document of this API.", body = Object))
)]
async fn openapi_json() -> Json<&'static Document> {
    Json(&*DOCUMENT)
}

pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new().route("/api/openapi.json", get(openapi_json))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{EndReason, Variant};
    use std::collections::BTreeSet;

    /// The statuses an operation declares.
    fn declared_statuses(operation: &Operation) -> Vec<&str> {
        operation
            .responses
            .responses
            .keys()
            .map(String::as_str)
            .collect()
    }

    /// Routes that are not part of the JSON API: the HTML pages and the WebSocket upgrades.
    const UNDOCUMENTED: &[&str] = &[
        "/",
        "/game/{id}",
        "/replay/{id}",
        "/player/{name}",
        "/leaderboard",
        "/variants",
        "/variant/{id}",
        "/ws/game/{id}",
        "/ws/games",
        "/ws/lobby",
    ];

    /// Every `(METHOD, path)` that a `.route("path", …)` call in `src/` serves. The router
    /// cannot list its routes, so its source is read: a route added anywhere in the crate
    /// without documenting it (or naming it in [`UNDOCUMENTED`]) fails the test below.
    fn routes_in_source() -> BTreeSet<(String, String)> {
        let mut routes = BTreeSet::new();
        let mut pending = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src"
        ))];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    // Test modules (last in a file) build routers of their own.
                    let served = text.split("#[cfg(test)]").next().unwrap_or_default();
                    routes.extend(route_calls(served));
                }
            }
        }
        routes
    }

    /// The `.route("path", method(handler)…)` calls of one source file.
    fn route_calls(text: &str) -> Vec<(String, String)> {
        let mut found = Vec::new();
        for (start, _) in text.match_indices(".route(") {
            let rest = &text[start + ".route(".len()..];
            // The call's arguments: up to the parenthesis that closes `.route(`.
            let mut depth = 1;
            let end = rest
                .char_indices()
                .find_map(|(i, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    (depth == 0).then_some(i)
                })
                .unwrap_or(rest.len());
            let arguments = &rest[..end];
            let Some(path) = arguments.trim_start().strip_prefix('"') else {
                continue;
            };
            let Some((path, handlers)) = path.split_once('"') else {
                continue;
            };
            for method in ["get", "post", "put", "delete", "patch"] {
                let called = handlers.match_indices(&format!("{method}(")).any(|(i, _)| {
                    !handlers[..i]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
                });
                if called {
                    found.push((method.to_uppercase(), path.to_string()));
                }
            }
        }
        found
    }

    /// Every `(METHOD, path)` the document describes.
    fn documented_routes(document: &Document) -> BTreeSet<(String, String)> {
        let mut routes = BTreeSet::new();
        for (path, item) in &document.paths.paths {
            for (method, operation) in [
                ("GET", &item.get),
                ("POST", &item.post),
                ("PUT", &item.put),
                ("DELETE", &item.delete),
                ("PATCH", &item.patch),
            ] {
                if operation.is_some() {
                    routes.insert((method.to_string(), path.clone()));
                }
            }
        }
        routes
    }

    #[test]
    fn the_source_scan_finds_routes_however_they_are_written() {
        let text = r#"
            Router::new()
                .route("/a", get(a))
                .route("/b/{id}", post(create).get(list))
                .route(
                    "/c",
                    get(c),
                )
                .route_layer(x)
                .route("/d", routing::delete(d))
        "#;
        let routes: BTreeSet<(String, String)> = route_calls(text).into_iter().collect();
        let expected: BTreeSet<(String, String)> = [
            ("GET", "/a"),
            ("POST", "/b/{id}"),
            ("GET", "/b/{id}"),
            ("GET", "/c"),
            ("DELETE", "/d"),
        ]
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
        assert_eq!(routes, expected);
    }

    #[test]
    fn every_route_of_the_router_is_documented_and_nothing_else() {
        let in_source: BTreeSet<(String, String)> = routes_in_source()
            .into_iter()
            .filter(|(_, path)| !UNDOCUMENTED.contains(&path.as_str()))
            .collect();
        assert!(in_source.contains(&("POST".into(), "/api/games".into())));
        let documented = documented_routes(&ApiDoc::openapi());
        let undocumented: Vec<_> = in_source.difference(&documented).collect();
        assert!(
            undocumented.is_empty(),
            "routes missing from the OpenAPI document: {undocumented:?}"
        );
        let phantom: Vec<_> = documented.difference(&in_source).collect();
        assert!(
            phantom.is_empty(),
            "documented routes that nothing serves: {phantom:?}"
        );
    }

    #[test]
    fn every_reference_resolves() {
        let json = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
        let mut references = Vec::new();
        collect_references(&json, &mut references);
        assert!(!references.is_empty());
        for reference in references {
            let pointer = reference.trim_start_matches('#');
            assert!(
                json.pointer(pointer).is_some(),
                "{reference} does not resolve"
            );
        }
    }

    fn collect_references(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(fields) => {
                for (key, field) in fields {
                    match (key.as_str(), field) {
                        ("$ref", serde_json::Value::String(target)) => out.push(target.clone()),
                        _ => collect_references(field, out),
                    }
                }
            }
            serde_json::Value::Array(items) => {
                for item in items {
                    collect_references(item, out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn shared_responses_reach_the_operations_they_apply_to() {
        let document = ApiDoc::openapi();
        let operation = |path: &str, method: HttpMethod| {
            document
                .paths
                .get_path_operation(path, method)
                .cloned()
                .unwrap_or_default()
        };
        let create = operation("/api/games", HttpMethod::Post);
        for status in [
            "201", "403", "409", "413", "415", "422", "429", "500", "503",
        ] {
            assert!(declared_statuses(&create).contains(&status), "{status}");
        }
        let list = operation("/api/games", HttpMethod::Get);
        assert!(declared_statuses(&list).contains(&"429"));
        assert!(!declared_statuses(&list).contains(&"403"));
        assert!(!declared_statuses(&list).contains(&"415"));
        // `/healthz` keeps its own 503 (text, not the JSON error).
        let health =
            serde_json::to_value(operation("/healthz", HttpMethod::Get)).unwrap_or_default();
        assert!(
            health
                .pointer("/responses/503/content/text~1plain")
                .is_some(),
            "{health}"
        );
    }

    #[test]
    fn game_records_and_replays_list_their_takebacks_and_gifts_of_more_time() {
        let json = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
        let schema = |name: &str| {
            json.pointer(&format!("/components/schemas/{name}"))
                .cloned()
        };
        let adjustment = schema("AdjustmentRecord").unwrap_or_default();
        let mut fields: Vec<&str> = (adjustment["properties"].as_object())
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        fields.sort_unstable();
        assert_eq!(
            fields,
            [
                "black_ms",
                "by",
                "created_at",
                "kind",
                "ms",
                "ply",
                "taken_back",
                "to",
                "white_ms"
            ]
        );
        for record in ["GameRecord", "Replay"] {
            let listed = schema(record)
                .and_then(|s| s.pointer("/properties/adjustments/items/$ref").cloned());
            assert_eq!(
                listed.as_ref().and_then(|r| r.as_str()),
                Some("#/components/schemas/AdjustmentRecord"),
                "{record}"
            );
        }
    }

    #[test]
    fn rules_types_are_described_from_the_engines_lists() {
        let json = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
        let variants = json
            .pointer("/components/schemas/Variant/enum")
            .cloned()
            .unwrap_or_default();
        let keys: Vec<&str> = Variant::ALL.iter().map(|v| v.key()).collect();
        assert_eq!(variants, serde_json::json!(keys));
        let reasons = json
            .pointer("/components/schemas/EndReason/enum")
            .and_then(|r| r.as_array())
            .map_or(0, Vec::len);
        assert_eq!(reasons, EndReason::ALL.len());
    }
}
