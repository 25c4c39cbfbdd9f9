-- The computer opponent plays from one account per level (0 random … 8 strongest), as lichess
-- seats "Stockfish level N": its games are stored, replayable and listed like anyone's. The
-- accounts have no password (nobody can sign in as them) and are not guests (never purged).
-- Null: a person.
alter table app_user add column computer_level smallint;

alter table app_user add constraint app_user_computer_level_range
    check (computer_level between 0 and 8);
alter table app_user add constraint app_user_computer_has_no_password
    check (computer_level is null or (password_hash is null and not is_guest));

-- One account per level.
create unique index app_user_computer_level_key on app_user (computer_level)
    where computer_level is not null;

-- Registration refuses names starting with "computer", so these are free on a new database.
insert into app_user (username, computer_level)
select 'Computer-level-' || level, level
from generate_series(0, 8) as level;
