-- A player's open challenges (games still waiting for an opponent), counted at every new one:
-- a player may hold only so many at once (`game::MAX_OPEN_CHALLENGES`). Partial, as
-- `game_unfinished_idx` is: only the few waiting games are in it.
create index game_waiting_creator_idx on game (creator_id) where status = 'waiting';
