//! The one integration-test binary of the server (one link for all of them, which matters on
//! a 2-core machine). Needs `DATABASE_URL` pointing at a running PostgreSQL: `#[sqlx::test]`
//! creates a fresh database per test from it. `scripts/test.sh` sets both up.

mod store;
