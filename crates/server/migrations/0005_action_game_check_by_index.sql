-- The statement-level check of 0004 probes `game` by primary key, one probe per inserted row.
--
-- Written as a plain anti-join, the planner read the whole `game` table into a hash for every
-- batch: the cost grew with the number of games ever played, and under load the check took
-- about 45% of the insert's time (pg_stat_statements, docs/performance.md). `offset 0` keeps the
-- `not exists` a correlated subplan, which PostgreSQL runs as one index lookup on `game_pkey`
-- per row, so the check costs the same for a batch of 50 rows whether `game` holds a thousand
-- rows or a hundred million. Same error, errcode and constraint name as before.

create or replace function game_action_check_game() returns trigger
    language plpgsql as
$$
begin
    if exists (select 1
               from inserted i
               where not exists (select 1 from game g where g.game_id = i.game_id offset 0)) then
        raise exception 'insert on table "game_action" refers to a game that does not exist'
            using errcode = 'foreign_key_violation', constraint = 'game_action_game_id_fkey';
    end if;
    return null;
end
$$;
