//! The rules test binary: no database, no server. Runs the data tables under
//! `tests/data/<variant>/` through every playable variant, property tests over random
//! playouts and arbitrary bytes, and the `oddboard rules` command.

mod cases;
mod chad_reference;
mod cli;
mod duel_reference;
mod properties;
