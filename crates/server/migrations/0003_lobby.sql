-- The lobby: Glicko-2 ratings per user and variant with their history, each user's lobby
-- settings (seek defaults, formula), and noplay lists. Colour history for seek pairing is read
-- from `game`, so it has no table of its own.

-- One row per (user, variant) the user has played rated, or been looked up for a rated game.
-- Guests never get one.
create table rating
(
    user_id    uuid             not null references app_user (user_id) on delete cascade,
    -- Stable variant id (`Variant::key`).
    variant    text             not null,
    -- Glicko-2 on the Glicko scale: rating (1500 for a new player), deviation (350 new),
    -- volatility (0.06 new). Provisional while deviation > 110 (see `game::rating`).
    rating     double precision not null,
    deviation  double precision not null,
    volatility double precision not null,
    -- Rated games counted in this rating.
    games      integer          not null default 0,
    wins       integer          not null default 0,
    losses     integer          not null default 0,
    draws      integer          not null default 0,
    created_at timestamptz      not null default now(),
    updated_at timestamptz      not null default now(),

    constraint rating_pkey primary key (user_id, variant),
    constraint rating_variant_known check (variant in ('suicide', 'chazz', 'duel', 'drehs', 'chad')),
    constraint rating_deviation_positive check (deviation > 0 and volatility > 0),
    constraint rating_counts_add_up check (games = wins + losses + draws and wins >= 0 and losses >= 0 and draws >= 0)
);

select trigger_updated_at('rating');

-- A player's rating right after each rated game. Rows are never updated.
create table rating_history
(
    user_id    uuid             not null references app_user (user_id) on delete cascade,
    variant    text             not null,
    game_id    uuid             not null references game (game_id) on delete cascade,
    rating     double precision not null,
    deviation  double precision not null,
    volatility double precision not null,
    created_at timestamptz      not null default now(),

    -- A game rates each of its players once: rating it again conflicts here and is skipped.
    constraint rating_history_pkey primary key (user_id, game_id),
    constraint rating_history_variant_known check (variant in ('suicide', 'chazz', 'duel', 'drehs', 'chad'))
);

create index rating_history_user_variant_idx on rating_history (user_id, variant, created_at);

-- Lobby settings; a user without a row has the defaults below.
create table user_setting
(
    user_id           uuid        primary key references app_user (user_id) on delete cascade,
    -- `seek` / `match` defaults when the time is not given (FICS `set time`, `set inc`).
    time_minutes      integer     not null default 5,
    increment_seconds integer     not null default 0,
    -- Default variant of `seek` and `match`.
    variant           text        not null default 'suicide',
    -- The `formula` text as the user set it ('' = none); parsed again on load.
    formula           text        not null default '',
    -- f1..f9 in order ('' = unset).
    f                 text[]      not null default '{}',
    created_at        timestamptz not null default now(),
    updated_at        timestamptz not null default now(),

    constraint user_setting_time_range check (time_minutes between 0 and 180 and increment_seconds between 0 and 180),
    constraint user_setting_variant_known check (variant in ('suicide', 'chazz', 'duel', 'drehs', 'chad')),
    constraint user_setting_nine_f check (cardinality(f) <= 9)
);

select trigger_updated_at('user_setting');

-- `noplay`: user_id refuses to play blocked_id (seeks, matches and challenges both ways).
create table noplay
(
    user_id    uuid        not null references app_user (user_id) on delete cascade,
    blocked_id uuid        not null references app_user (user_id) on delete cascade,
    created_at timestamptz not null default now(),

    constraint noplay_pkey primary key (user_id, blocked_id),
    constraint noplay_not_self check (user_id <> blocked_id)
);
