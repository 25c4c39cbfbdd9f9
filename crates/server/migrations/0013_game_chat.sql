-- A game's chat (issue 39): the players' room and the spectators' room. A line is stored
-- before anyone sees it, and never changed; the game layer caps a game's lines (1,000), so a
-- stranger cannot fill the disk. A line goes with its game (a purged guest's aborted games).
create table game_chat
(
    -- Orders the lines, both rooms together, as they were written.
    chat_id    bigint generated always as identity primary key,
    game_id    uuid        not null references game (game_id) on delete cascade,
    -- 'players': the two players' room; 'spectators': everyone else's. A spectator's line
    -- never reaches the players.
    room       text        not null,
    -- The writer's username when they wrote it: a name, not a reference, so that the line
    -- outlives a guest account purged later and the replay shows it as it was.
    username   text        not null,
    -- Trimmed, 1 to 140 characters, no control characters (checked by the game layer).
    text       text        not null,
    -- Stamped by the server to the millisecond, as the players were shown it live.
    created_at timestamptz not null,

    constraint game_chat_room_known check (room in ('players', 'spectators')),
    constraint game_chat_text_length check (char_length(text) between 1 and 140)
);

-- A game's lines: the last ones of a room (a snapshot after a restart), all of them (the
-- replay's chat), and their count (the cap).
create index game_chat_game_id_idx on game_chat (game_id, room, chat_id);
