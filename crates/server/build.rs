//! Rebuilds the crate when a migration or a static file is added or changed:
//! `sqlx::migrate!` embeds the files of `migrations/` and `include_dir!` those of `static/`
//! (`web::assets::embedded`) at compile time, and without this cargo would not notice a new
//! file (a directory named here is watched whole).

fn main() {
    println!("cargo:rerun-if-changed=migrations");
    println!("cargo:rerun-if-changed=static");
}
