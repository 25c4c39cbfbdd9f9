-- Takebacks and more time (issue 39). A takeback removes the last one or two actions of an
-- active game: their `game_action` rows are deleted in the same transaction as the row below
-- is written, so every reader of `game_action` (replays, exports, dice records, resumption)
-- keeps seeing the game's actual line, and this table keeps what was taken back. A gift of
-- more time changes only the clock. Both are rare: a few rows per game at most.
create table game_adjustment
(
    -- In order of commit: a game's adjustments are read back in this order.
    adjustment_id bigint generated always as identity primary key,
    game_id       uuid        not null references game (game_id) on delete cascade,
    -- 'takeback' or 'more_time'.
    kind          text        not null,
    -- The player who asked for the takeback (whose turn it is again after it), or who gave
    -- the time: 'white' or 'black'.
    by_color      text        not null,
    -- More time: who received it ('white' or 'black'); null for a takeback.
    to_color      text,
    -- More time: milliseconds given; null for a takeback.
    ms            bigint,
    -- The number of actions the game has right after this adjustment: for a takeback the
    -- ply it went back to, for more time the ply after which it was given.
    ply           integer     not null,
    -- Takeback: the actions taken back, oldest first, each {"ply","machine","human"}; null
    -- for more time.
    taken_back    jsonb,
    -- Both clocks right after the adjustment, as `game_action` stores them after an action;
    -- null without a clock. A resumed game takes its clock from the later of its last action
    -- and its last adjustment.
    white_ms      bigint,
    black_ms      bigint,
    created_at    timestamptz not null default now(),
    constraint game_adjustment_kind check (kind in ('takeback', 'more_time')),
    constraint game_adjustment_colors check (
        by_color in ('white', 'black') and (to_color is null or to_color in ('white', 'black'))),
    constraint game_adjustment_shape check (
        (kind = 'takeback' and taken_back is not null and to_color is null and ms is null)
        or (kind = 'more_time' and taken_back is null and to_color is not null and ms > 0)),
    constraint game_adjustment_ply check (ply >= 0)
);

-- A game's adjustments, in order, for loading its record.
create index game_adjustment_game_id on game_adjustment (game_id, adjustment_id);
