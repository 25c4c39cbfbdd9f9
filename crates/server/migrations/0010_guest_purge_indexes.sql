-- Indexes for purging guest accounts (`Store::delete_stale_guests`). First, games by creator.
--
-- A guest who never finished a game is deleted with the games that still name them: those are
-- aborted, and an aborted open challenge names its creator only. Without this index, finding
-- those games and checking `game.creator_id`'s foreign key for each deleted account read the
-- whole `game` table. `white_id` and `black_id` already lead indexes of their own (0002).
create index game_creator_id_idx on game (creator_id);

-- Guest accounts by age, for the same purge: it looks at the guests that became old enough to
-- go in the last weeks only, in age order, and stops at its batch.
create index app_user_guest_created_at_idx on app_user (created_at) where is_guest;
