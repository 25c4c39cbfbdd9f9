//! The game sockets' server messages as exact JSON, and the hand-written writers (batch, the
//! multiplexed socket's `gid`) held to serde's output of the same types.

use super::*;
use crate::record::{ColorChoice, GameStatus, TimeControl};
use crate::rules::{AnyGame, Color, EndReason, Outcome, Variant};
use crate::wire::game::{ClockView, MoveView, SeatTimes};

const GID: &str = "0190a5e8-0000-7000-8000-00000000000a";

fn gid() -> Uuid {
    Uuid::parse_str(GID).unwrap_or_else(|e| panic!("{e}"))
}

/// A view as the actor builds one mid-game, with every optional field filled but the outcome.
fn sample_view(moves: &[MoveView]) -> GameView<'_> {
    let Ok(game) = AnyGame::start(Variant::Suicide) else {
        panic!("suicide does not start");
    };
    GameView {
        id: gid(),
        variant: Variant::Suicide,
        status: GameStatus::Active,
        white: Some("alice"),
        black: Some("bob"),
        creator: "alice",
        color_choice: ColorChoice::White,
        time_control: Some(TimeControl {
            initial_ms: 180_000,
            increment_ms: 2_000,
        }),
        rated: false,
        clock: Some(ClockView {
            white_ms: 175_000,
            black_ms: 179_000,
            running: Some(Color::White),
        }),
        moves,
        rules: game.snapshot(),
        draw_offer: Some(Color::Black),
        rematch_offer: None,
        takeback_offer: Some(Color::White),
        rematch_game: None,
        outcome: None,
        you: Some(Color::White),
        spectators: 1,
        dice_commitment: None,
        dice_seed: None,
        first_move_deadline_ms: None,
        absent: vec![Color::Black],
        claim_after_ms: SeatTimes {
            white: None,
            black: Some(41_200),
        },
        chat: Vec::new(),
    }
}

fn sample_moves() -> Vec<MoveView> {
    vec![MoveView {
        ply: 1,
        machine: "e2e4".into(),
        human: "e4".into(),
    }]
}

#[test]
fn a_snapshot_is_its_version_and_every_field_of_the_view() {
    let moves = sample_moves();
    let view = sample_view(&moves);
    let rules = serde_json::to_string(&view.rules).unwrap_or_default();
    let message = GameServerMsg::Snapshot(Box::new(SnapshotMsg { v: 12, game: view })).to_json();
    let expected = format!(
        concat!(
            r#"{{"t":"snapshot","v":12,"game":{{"id":"{gid}","variant":"suicide","#,
            r#""status":"active","white":"alice","black":"bob","creator":"alice","#,
            r#""color_choice":"white","time_control":{{"initial_ms":180000,"increment_ms":2000}},"#,
            r#""rated":false,"clock":{{"white_ms":175000,"black_ms":179000,"running":"white"}},"#,
            r#""moves":[{{"ply":1,"machine":"e2e4","human":"e4"}}],"rules":{rules},"#,
            r#""draw_offer":"black","rematch_offer":null,"takeback_offer":"white","#,
            r#""rematch_game":null,"outcome":null,"#,
            r#""you":"white","spectators":1,"dice_commitment":null,"dice_seed":null,"#,
            r#""first_move_deadline_ms":null,"absent":["black"],"claim_after_ms":{{"black":41200}},"chat":[]}}}}"#
        ),
        gid = GID,
        rules = rules
    );
    assert_eq!(message, expected);
}

#[test]
fn the_protocol_document_describes_every_field_of_the_view() {
    let doc = include_str!("../../../../../docs/protocol.md");
    let start = doc.find("#### The snapshot's `game`").unwrap_or(0);
    let end = doc[start..]
        .find("#### Events")
        .map_or(doc.len(), |e| start + e);
    let section = &doc[start..end];
    let moves = sample_moves();
    let view = serde_json::to_value(sample_view(&moves)).unwrap_or_default();
    let fields = view.as_object().map(|o| o.keys().collect::<Vec<_>>());
    assert_eq!(fields.as_ref().map(Vec::len), Some(25));
    for field in fields.unwrap_or_default() {
        assert!(
            section.contains(&format!("`{field}`")),
            "`{field}` is not in the table"
        );
    }
}

#[test]
fn events_pongs_and_errors_are_exactly_their_documented_json() {
    let offered = GameEvent::DrawOffered { by: Color::Black };
    let event = GameServerMsg::Event(EventMsg {
        v: 42,
        event: &offered,
    });
    assert_eq!(
        event.to_json(),
        r#"{"t":"event","v":42,"kind":"draw_offered","by":"black"}"#
    );
    let ended = GameEvent::Ended {
        outcome: Outcome::win(Color::White, EndReason::Timeout),
        clock: None,
        dice_seed: None,
    };
    assert_eq!(
        GameServerMsg::Event(EventMsg {
            v: 3,
            event: &ended
        })
        .to_json(),
        concat!(
            r#"{"t":"event","v":3,"kind":"ended","#,
            r#""outcome":{"winner":"white","reason":"timeout"},"clock":null,"dice_seed":null}"#
        )
    );
    assert_eq!(GameServerMsg::Pong(Pong {}).to_json(), r#"{"t":"pong"}"#);
    let error = ErrorEvent::new("not_your_turn", "it is not your turn");
    assert_eq!(
        GameServerMsg::Error(error).to_json(),
        r#"{"t":"error","code":"not_your_turn","message":"it is not your turn"}"#
    );
}

#[test]
fn a_batch_of_written_messages_is_the_batch_serde_writes() {
    let moves = sample_moves();
    let gone = GameEvent::PlayerGone {
        color: Color::White,
        claim_after_ms: 10_000,
    };
    let back = GameEvent::PlayerBack {
        color: Color::White,
    };
    let messages = [
        GameServerMsg::Snapshot(Box::new(SnapshotMsg {
            v: 7,
            game: sample_view(&moves),
        })),
        GameServerMsg::Event(EventMsg { v: 8, event: &gone }),
        GameServerMsg::Event(EventMsg { v: 9, event: &back }),
    ];
    for count in 0..=messages.len() {
        let some = &messages[..count];
        let written: Vec<Arc<str>> = some.iter().map(|m| m.to_json().into()).collect();
        let by_serde = GameServerMsg::Batch(BatchMsg { messages: some }).to_json();
        assert_eq!(batch_message(&written), by_serde, "{count} messages");
    }
    let empty = batch_message(&[]);
    assert_eq!(empty, r#"{"t":"batch","messages":[]}"#);
}

#[test]
fn a_tagged_message_is_the_gid_then_the_message_as_serde_writes_it() {
    let moves = sample_moves();
    let event = GameEvent::Rematch { game_id: gid() };
    let inner = [GameServerMsg::Event(EventMsg {
        v: 2,
        event: &event,
    })];
    let every_kind = [
        GameServerMsg::Snapshot(Box::new(SnapshotMsg {
            v: 1,
            game: sample_view(&moves),
        })),
        GameServerMsg::Event(EventMsg {
            v: 2,
            event: &event,
        }),
        GameServerMsg::Batch(BatchMsg { messages: &inner }),
        GameServerMsg::Error(ErrorEvent::new("not_watching", "watch it first")),
        GameServerMsg::Pong(Pong {}),
    ];
    for msg in every_kind {
        let written = tag_with_gid(gid(), &msg.to_json());
        let by_serde = MuxServerMsg::Game(GidTagged { gid: gid(), msg }).to_json();
        assert_eq!(written, by_serde);
        assert!(
            by_serde.starts_with(&format!(r#"{{"gid":"{GID}","t":""#)),
            "{by_serde}"
        );
    }
}

#[test]
fn the_multiplexed_socket_own_messages_are_exactly_their_documented_json() {
    assert_eq!(
        unwatched_message(gid()),
        format!(r#"{{"gid":"{GID}","t":"unwatched"}}"#)
    );
    assert_eq!(MuxServerMsg::Pong(Pong {}).to_json(), r#"{"t":"pong"}"#);
    let refused = ErrorEvent::new("bad_message", "send JSON text frames");
    assert_eq!(
        MuxServerMsg::Error(refused).to_json(),
        r#"{"t":"error","code":"bad_message","message":"send JSON text frames"}"#
    );
    let event = tag_with_gid(gid(), r#"{"t":"event","v":3,"kind":"ended"}"#);
    assert_eq!(
        event,
        format!(r#"{{"gid":"{GID}","t":"event","v":3,"kind":"ended"}}"#)
    );
}

#[test]
fn a_message_that_is_not_an_object_is_still_carried_whole() {
    let empty: serde_json::Value =
        serde_json::from_str(&tag_with_gid(gid(), "{}")).unwrap_or_default();
    assert_eq!(empty, serde_json::json!({ "gid": GID }));
    let odd: serde_json::Value =
        serde_json::from_str(&tag_with_gid(gid(), "[1]")).unwrap_or_default();
    assert_eq!(odd, serde_json::json!({ "gid": GID, "msg": [1] }));
}
