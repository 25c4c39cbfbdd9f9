//! How the engine's types look on the wire, for an OpenAPI document (the server's
//! `/api/openapi.json`): variant ids, colours, end reasons and outcomes, described from the
//! engine's own lists ([`Variant::ALL`], [`EndReason::ALL`]) so the document cannot drift from
//! them. Only with the `openapi` feature; the descriptions are data, nothing here runs a game.

use crate::{Color, EndReason, Outcome, Variant};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

/// A string schema with these values only.
fn string_enum<'a>(values: impl IntoIterator<Item = &'a str>, description: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values))
        .description(Some(description))
        .into()
}

impl PartialSchema for Variant {
    fn schema() -> RefOr<Schema> {
        string_enum(
            Variant::ALL.iter().map(|v| v.key()),
            "A variant id (`GET /api/variants`).",
        )
    }
}

impl ToSchema for Variant {}

impl PartialSchema for Color {
    fn schema() -> RefOr<Schema> {
        string_enum(["white", "black"], "A side.")
    }
}

impl ToSchema for Color {}

impl PartialSchema for EndReason {
    fn schema() -> RefOr<Schema> {
        string_enum(
            EndReason::ALL.iter().map(|r| r.as_str()),
            "Why a game ended.",
        )
    }
}

impl ToSchema for EndReason {}

impl PartialSchema for Outcome {
    fn schema() -> RefOr<Schema> {
        let nullable_color = Schema::OneOf(
            utoipa::openapi::schema::OneOfBuilder::new()
                .item(Ref::from_schema_name(Color::name()))
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .description(Some("The winner; null for a draw and an aborted game."))
                .build(),
        );
        ObjectBuilder::new()
            .property("winner", nullable_color)
            .required("winner")
            .property("reason", Ref::from_schema_name(EndReason::name()))
            .required("reason")
            .description(Some("How a game ended."))
            .into()
    }
}

impl ToSchema for Outcome {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((Color::name().into(), Color::schema()));
        schemas.push((EndReason::name().into(), EndReason::schema()));
    }
}
