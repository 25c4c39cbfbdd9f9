-- Several nodes (issue 49): the login back-off per username (`RATE_LIMIT_LOGIN_FAILURES`) held
-- across them. Alone, a node keeps it in memory and never touches this table; on a node of a
-- cluster every wrong password is counted here, so that the wait it earns holds on every node
-- (`web::login_backoff`, `Store::record_login_failure`). A row is a name's run of wrong
-- passwords: the right one deletes it, and one whose last failure is an hour old is ignored,
-- then deleted by the housekeeping task.
create table login_failure
(
    -- The name as the back-off keys it, whether or not an account has it: trimmed, cut to 64
    -- bytes, lower-cased (as logins compare names).
    username_key    text primary key,
    -- Wrong passwords in the run.
    failures        integer     not null,
    -- The database's time of the last one: every node reads the wait against the same clock.
    last_failure_at timestamptz not null,

    constraint login_failure_failures_positive check (failures >= 1)
);

-- The sweep of old runs, and the cut of the oldest when there are too many.
create index login_failure_last_failure_at_idx on login_failure (last_failure_at);
