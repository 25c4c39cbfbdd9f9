-- Shared helpers every table uses, then accounts and login sessions.

-- Keeps `updated_at` honest without every update statement having to remember it.
create or replace function set_updated_at()
    returns trigger as
$$
begin
    new.updated_at = now();
    return new;
end;
$$ language plpgsql;

-- Attaches `set_updated_at` to a table: `select trigger_updated_at('<table>');`. The `when`
-- clause skips no-op updates so `updated_at` means "last real change".
create or replace function trigger_updated_at(tablename regclass)
    returns void as
$$
begin
    execute format('create trigger set_updated_at
        before update
        on %s
        for each row
        when (old is distinct from new)
    execute function set_updated_at();', tablename);
end;
$$ language plpgsql;

-- `user` is a reserved word, hence `app_user`.
create table app_user
(
    user_id       uuid primary key     default gen_random_uuid(),
    -- As the person typed it (shown everywhere); uniqueness ignores case, see the index below.
    username      text        not null,
    -- Argon2id PHC string (`$argon2id$v=19$…`), salt included. Null for guests, who cannot log in
    -- again once their session is gone.
    password_hash text,
    -- Guests get an account row so that games can point at them, but no password.
    is_guest      boolean     not null default false,
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now(),

    constraint app_user_username_not_blank check (length(btrim(username)) > 0),
    constraint app_user_guest_has_no_password check (not (is_guest and password_hash is not null))
);

-- "Alice" and "alice" are the same person. The store maps this name to `UsernameTaken`.
create unique index app_user_username_key on app_user (lower(username));

select trigger_updated_at('app_user');

-- One row per logged-in browser. Rows are never updated (a renewed login is a new row), so
-- there is no `updated_at`.
create table session
(
    session_id uuid primary key     default gen_random_uuid(),
    -- SHA-256 of the cookie token. The token itself is never stored, so a leaked table does not
    -- hand out logins.
    token_hash bytea       not null,
    user_id    uuid        not null references app_user (user_id) on delete cascade,
    created_at timestamptz not null default now(),
    -- The session is worthless from this instant on; lookups compare it with the caller's `now`.
    expires_at timestamptz not null,

    constraint session_token_hash_key unique (token_hash),
    constraint session_token_hash_is_sha256 check (octet_length(token_hash) = 32)
);

-- For the cascade on account deletion, "log out everywhere", and purging expired rows.
create index session_user_id_idx on session (user_id);
create index session_expires_at_idx on session (expires_at);
