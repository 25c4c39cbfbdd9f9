-- Games and their actions. The game actor is the only writer of its game's rows; an action is
-- acknowledged to the players only once its `game_action` row is committed.

create table game
(
    game_id            uuid primary key,
    -- Stable variant id shared with the rules engine (`Variant::key`).
    variant            text        not null,
    -- Whoever opened the seek; plays a seat once the game starts, except in odd cases (admin).
    creator_id         uuid        not null references app_user (user_id),
    -- Null until somebody takes the seat.
    white_id           uuid references app_user (user_id),
    black_id           uuid references app_user (user_id),
    -- What the creator asked for; the actual seats are `white_id` / `black_id`.
    color_choice       text        not null,
    -- Both null means no clock. Remaining times after each action live in `game_action`.
    clock_initial_ms   bigint,
    clock_increment_ms bigint,
    rated              boolean     not null default false,
    status             text        not null default 'waiting',
    -- PGN-style result once the game is over ('*' for an aborted game); null before.
    result             text,
    -- Stable reason id shared with the rules engine (`EndReason::as_str`); null before the end.
    end_reason         text,
    -- Position notation of the variant to start from; null means the variant's standard start.
    start_position     text,
    -- Hex SHA-256 of `dice_seed`, shown to the players from the start so they can check the dice
    -- were fixed in advance. Null for variants without dice.
    dice_commitment    text,
    -- The dice seed. Secret while the game runs: the API exposes it only once the game is over.
    dice_seed          bytea,
    created_at         timestamptz not null default now(),
    started_at         timestamptz,
    ended_at           timestamptz,
    updated_at         timestamptz not null default now(),

    constraint game_variant_known check (variant in ('suicide', 'chazz', 'duel', 'drehs', 'chad')),
    constraint game_color_choice_known check (color_choice in ('random', 'white', 'black')),
    constraint game_status_known check (status in ('waiting', 'active', 'finished', 'aborted')),
    constraint game_result_known check (result in ('1-0', '0-1', '1/2-1/2', '*')),
    constraint game_clock_both_or_neither check ((clock_initial_ms is null) = (clock_increment_ms is null)),
    constraint game_clock_not_negative check (clock_initial_ms >= 0 and clock_increment_ms >= 0),
    -- A game that was played has both seats taken and a start time.
    constraint game_played_is_seated check (
        status not in ('active', 'finished')
        or (white_id is not null and black_id is not null and started_at is not null)),
    -- Over exactly when it has a result, a reason and an end time.
    constraint game_over_has_result check (
        (status in ('finished', 'aborted'))
        = (result is not null and end_reason is not null and ended_at is not null)),
    -- '*' is the result of an aborted game and of no other.
    constraint game_aborted_iff_no_result check ((status = 'aborted') = (result = '*')),
    constraint game_dice_seed_committed check (dice_seed is null or dice_commitment is not null)
);

select trigger_updated_at('game');

-- A user's games, newest first (one index per seat; the query ORs them).
create index game_white_id_created_at_idx on game (white_id, created_at desc, game_id desc);
create index game_black_id_created_at_idx on game (black_id, created_at desc, game_id desc);
-- Games to resume after a restart: a small partial index, since nearly every game is over.
create index game_unfinished_idx on game (created_at) where status in ('waiting', 'active');

-- One row per action (move, drop, attack, pass…), in play order. Rows are never updated.
create table game_action
(
    game_id    uuid        not null references game (game_id) on delete cascade,
    -- 1-based: the first action of the game is ply 1.
    ply        integer     not null,
    -- The variant's machine notation, replayed through the rules engine on load.
    machine    text        not null,
    -- The human notation shown in move lists.
    human      text        not null,
    -- Each clock's remaining time right after this action; null for games without a clock.
    white_ms   bigint,
    black_ms   bigint,
    -- The dice record of this action, for dice variants; null otherwise.
    rolls      jsonb,
    created_at timestamptz not null default now(),

    -- The store maps a conflict on this key to `DuplicatePly`.
    constraint game_action_pkey primary key (game_id, ply),
    constraint game_action_ply_positive check (ply >= 1)
);
