-- Operators disable accounts (`oddboard admin disable-account`, docs/operations.md): a disabled
-- account cannot sign in, and its sessions are deleted when it is disabled. Null: enabled.
alter table app_user add column disabled_at timestamptz;
