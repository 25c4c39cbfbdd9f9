-- `game_action.game_id` is checked once per insert statement instead of once per row.
--
-- The foreign key ran PostgreSQL's referential check for every row: a planned query that locks
-- the game row (FOR KEY SHARE) and writes that lock to the WAL. The group-commit writer inserts
-- dozens of actions per statement, and under load those checks were about a fifth of
-- PostgreSQL's CPU (docs/performance.md). The trigger below checks the whole statement's rows
-- with one anti-join, under the same constraint name, so the store still maps the failure to
-- `NotFound` and the row-by-row retry still pins it on the bad row.
--
-- What the trigger does not do is lock the game row: an action inserted while the same game
-- is being deleted in another transaction could survive it. Oddboard never deletes games (the
-- cascade below exists for manual clean-ups), so that race has no path in the application.

alter table game_action drop constraint game_action_game_id_fkey;

create function game_action_check_game() returns trigger
    language plpgsql as
$$
begin
    if exists (select 1
               from inserted i
               where not exists (select 1 from game g where g.game_id = i.game_id)) then
        raise exception 'insert on table "game_action" refers to a game that does not exist'
            using errcode = 'foreign_key_violation', constraint = 'game_action_game_id_fkey';
    end if;
    return null;
end
$$;

create trigger game_action_check_game
    after insert on game_action
    referencing new table as inserted
    for each statement
execute function game_action_check_game();

-- What `on delete cascade` did: a deleted game takes its actions with it.
create function game_delete_actions() returns trigger
    language plpgsql as
$$
begin
    delete from game_action a using removed r where a.game_id = r.game_id;
    return null;
end
$$;

create trigger game_delete_actions
    after delete on game
    referencing old table as removed
    for each statement
execute function game_delete_actions();
