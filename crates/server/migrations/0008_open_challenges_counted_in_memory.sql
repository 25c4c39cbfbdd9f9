-- 0007's index of waiting games by creator is not used: the server counts each player's open
-- challenges in memory (`game::Games::create_open`). Counting them through it cost about 3 µs
-- of PostgreSQL time per move under load (a fifth more), as the index filled with the dead
-- entries of the games that had started since the last vacuum (docs/performance.md,
-- twenty-fourth session).
drop index game_waiting_creator_idx;
