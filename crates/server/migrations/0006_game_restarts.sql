-- How many times a server has resumed this game after a restart (`Store::resume_unfinished_games`
-- counts one more each time it loads the game to resume it).
--
-- A live game's event versions are counted in memory and start again when the server does. A
-- resumed game's event log therefore starts at `restarts` × 1,000,000,000 (`game::actor`), so a
-- version a client saw before the restart is older than every event the new log holds: the
-- client reconnecting with it gets a full snapshot, never a catch-up that skips what it missed.
alter table game
    add column restarts integer not null default 0,
    add constraint game_restarts_not_negative check (restarts >= 0);
