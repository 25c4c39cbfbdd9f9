//! The rules test binary: no database, no server. Runs the data tables under
//! `tests/data/<variant>/` through every playable variant, property tests over random
//! playouts and arbitrary bytes. (The `oddboard rules` command is tested with the server crate.)

mod cases;
mod chad_reference;
mod duel_reference;
mod properties;
