//! Rebuilds the crate when a migration is added or changed: `sqlx::migrate!` embeds the files
//! of `migrations/` at compile time, and without this cargo would not notice a new file.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
