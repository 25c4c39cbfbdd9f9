-- Several nodes (docs/architecture.md, "Several nodes"): the node that runs a game holds a
-- lease on it in NATS, but PostgreSQL decides who may write. Taking a game over raises its
-- `owner_epoch` (`Store::take_over_game`), and every commit of a node in cluster mode locks
-- the game's row and checks the epoch it holds in the same transaction
-- (`Store::apply_changes_fenced`), so a node that lost its game commits nothing more to it.
-- One node without NATS never reads or raises it.
alter table game add column owner_epoch bigint not null default 0;
