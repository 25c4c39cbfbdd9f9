//! The `oddboard` command line: what every subcommand takes, parsed with clap (derive), with
//! `--help` and `--version`. `src/main.rs` runs what it parses.
//!
//! - `oddboard` or `oddboard serve [--bind ADDR] …`: the server, its settings from flags, the
//!   environment or their defaults ([`crate::config::Config`]).
//! - `oddboard rules …`: the rules engine ([`crate::cli`]).
//! - `oddboard loadtest …`: the load tool (`oddboard_client::loadtest`).
//! - `oddboard migrate`: creates the database if missing, runs the migrations and exits.
//! - `oddboard admin …`: operators' commands against the database ([`crate::admin`]).
//!
//! `--log-format` (`LOG_FORMAT`) is accepted by every command that logs.

use crate::cli::RulesCommand;
use clap::{Parser, Subcommand};
use oddboard_client::loadtest::LoadOptions;
use std::time::Duration;

#[derive(Debug, Parser)]
#[command(
    name = "oddboard",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The server's settings, for a bare `oddboard` (which serves).
    #[command(flatten)]
    pub serve: crate::config::Config,
    /// How log lines are written.
    #[arg(long, env = "LOG_FORMAT", value_enum, default_value_t, global = true)]
    pub log_format: crate::telemetry::LogFormat,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Runs the server (also what a bare `oddboard` does).
    Serve(Box<crate::config::Config>),
    /// The rules engine on the command line.
    Rules {
        #[command(subcommand)]
        command: RulesCommand,
    },
    /// Speaks UCI on stdin and stdout (the variant is the option `UCI_Variant`).
    ///
    /// Our engine as a UCI engine, for GUIs, match runners and referees such as
    /// `scripts/fsf-match.py`. Commands: uci, isready, setoption, ucinewgame, position
    /// startpos|fen <position> [moves …], go, stop, quit (debug and register are accepted and
    /// do nothing).
    ///
    /// Variants (`setoption name UCI_Variant value <id>`, default suicide): suicide speaks
    /// plain UCI, FEN and moves as python-chess and Fairy-Stockfish write them (`e7e8k`
    /// promotes to a king; a FEN's castling field is read and ignored: Suicide has no
    /// castling). chazz (5 ranks) and chad (12x12) take UCI-like moves in FEN-like positions
    /// of their own; duel and drehs are accepted too, in their own notations
    /// (docs/rules/<id>.md), which no standard GUI speaks; Davey Drehs' rolls follow the
    /// all-zero dice seed.
    ///
    /// Options: Level 0-8 (default 8, the top level's search, limited only by go; a lower
    /// level adds its depth and node caps and its noise, and 0 plays a random legal move);
    /// Hash in MiB (the transposition table, rounded down to a power of two entries); Threads
    /// is accepted and ignored: one thread searches.
    ///
    /// go takes movetime N, wtime/btime/winc/binc [movestogo N] (the time left over the moves
    /// to go, 25 if not given, plus three quarters of the increment, at most half the time
    /// left), depth N, nodes N and infinite (bestmove only after stop). It prints an info line
    /// per finished iteration (depth, score cp|mate, nodes, time, nps, pv), then bestmove, or
    /// bestmove 0000 when the game is over. Bad input is answered with an info string line
    /// and changes nothing.
    Uci,
    /// A search worker of a running server, which starts it (not for people): one JSON line
    /// per search on stdin, one per answer on stdout.
    #[command(hide = true)]
    EngineWorker,
    /// The computer opponent: the ladder of its levels, matches against other engines.
    Engine {
        #[command(subcommand)]
        command: crate::engine_cli::EngineCommand,
    },
    /// Plays many games against a running server and reports its speed.
    Loadtest(LoadArgs),
    /// Creates the database if missing, runs the migrations and exits.
    Migrate(DatabaseArgs),
    /// Operators' commands: accounts, games and sessions.
    Admin(AdminArgs),
}

/// The database a command works on.
#[derive(Clone, Debug, clap::Args)]
pub struct DatabaseArgs {
    /// PostgreSQL URL.
    #[arg(long, env = "DATABASE_URL", default_value = crate::config::DEFAULT_DATABASE_URL,
          value_name = "URL", hide_env_values = true)]
    pub database_url: String,
}

#[derive(Clone, Debug, clap::Args)]
pub struct AdminArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    #[command(subcommand)]
    pub command: AdminCommand,
}

#[derive(Clone, Debug, Subcommand)]
pub enum AdminCommand {
    /// Disables an account: it can no longer sign in, its sessions end and a running server
    /// closes its sockets.
    DisableAccount {
        /// The account's name (any case).
        username: String,
    },
    /// Lets a disabled account sign in again.
    EnableAccount {
        /// The account's name (any case).
        username: String,
    },
    /// Aborts a game that is waiting or in progress; a running server tells its players.
    AbortGame {
        /// The game's id.
        game_id: uuid::Uuid,
    },
    /// Lists live sessions, newest first.
    Sessions {
        /// Only this account's.
        #[arg(long, value_name = "USERNAME")]
        user: Option<String>,
        /// At most this many.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        limit: u32,
    },
}

/// `oddboard loadtest`'s flags (`oddboard loadtest --help`).
#[derive(Clone, Debug, clap::Args)]
pub struct LoadArgs {
    /// The server to load; several nodes of one cluster: `--addr` repeated or a comma list,
    /// each game's players then on one node in turn (its figures read from the first).
    #[arg(
        long,
        default_value = "127.0.0.1:8080",
        value_name = "HOST:PORT",
        value_delimiter = ','
    )]
    pub addr: Vec<String>,
    /// Several nodes: the players' sockets on the next node, not the one that runs their
    /// game, so that every move is forwarded.
    #[arg(long)]
    pub play_elsewhere: bool,
    /// Games played at once.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Length of the measured run.
    #[arg(long, default_value_t = 20.0, value_name = "S", value_parser = positive_number)]
    pub seconds: f64,
    /// Total moves per second to aim at; without it the games run flat out.
    #[arg(long, value_name = "MOVES_PER_S", value_parser = positive_number)]
    pub rate: Option<f64>,
    /// Variant id.
    #[arg(long, default_value = "chad", value_name = "ID")]
    pub variant: String,
    /// Extra spectator connections to open and hold.
    #[arg(long, default_value_t = 0, value_name = "CONNECTIONS")]
    pub idle: u64,
    /// Games each player's socket carries (more than 1: multiplexed sockets), at most what
    /// the server lets one socket watch.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub games_per_socket: u64,
    /// Games against the computer to keep going beside the measured ones (not measured), so
    /// that the engine searches throughout the run.
    #[arg(long, default_value_t = 0, value_name = "GAMES")]
    pub computer_games: u64,
    /// The computer's level in those games.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(0..=8))]
    pub computer_level: u8,
}

/// A finite number above zero (a NaN or infinite duration would panic the tool).
fn positive_number(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(number) if number.is_finite() && number > 0.0 => Ok(number),
        _ => Err(format!("`{text}` is not a number above 0")),
    }
}

impl From<LoadArgs> for LoadOptions {
    /// Caps the games per socket at what the server lets one socket watch.
    fn from(args: LoadArgs) -> LoadOptions {
        let most_per_socket = crate::web::mux::MAX_WATCHED as u64;
        let nodes = if args.addr.len() > 1 {
            args.addr.clone()
        } else {
            Vec::new()
        };
        LoadOptions {
            addr: args.addr.first().cloned().unwrap_or_default(),
            nodes,
            play_elsewhere: args.play_elsewhere,
            games: usize::try_from(args.games).unwrap_or(usize::MAX),
            duration: Duration::from_secs_f64(args.seconds.clamp(0.1, 1e9)),
            rate: args.rate.map(|rate| rate.max(0.1)),
            variant: args.variant,
            idle: usize::try_from(args.idle).unwrap_or(usize::MAX),
            games_per_socket: args.games_per_socket.min(most_per_socket) as usize,
            computer_games: usize::try_from(args.computer_games).unwrap_or(usize::MAX),
            computer_level: args.computer_level,
        }
    }
}

/// The environment variables the command line falls back to, every subcommand's.
pub fn setting_variables() -> Vec<String> {
    fn collect(command: &clap::Command, names: &mut Vec<String>) {
        for arg in command.get_arguments() {
            if let Some(name) = arg.get_env().and_then(|name| name.to_str()) {
                if !names.iter().any(|known| known == name) {
                    names.push(name.to_string());
                }
            }
        }
        for sub in command.get_subcommands() {
            collect(sub, names);
        }
    }
    use clap::CommandFactory;
    let mut names = Vec::new();
    collect(&Cli::command(), &mut names);
    names
}

/// Unsets those of [`setting_variables`] that are set but empty: an empty variable means
/// the default (`STATIC_DIR=` in a `.env` file), where clap would take it as an empty value.
/// Called before anything else runs, while the process has one thread.
pub fn unset_empty_settings() {
    for name in setting_variables() {
        if std::env::var_os(&name).is_some_and(|value| value.is_empty()) {
            std::env::remove_var(&name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(words: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("oddboard").chain(words.iter().copied()))
    }

    #[test]
    fn the_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn rules_commands_parse() {
        let cli = parse(&["rules", "perft", "suicide", "3", "--divide"]);
        assert!(
            matches!(
                cli.map(|c| c.command),
                Ok(Some(Command::Rules {
                    command: RulesCommand::Perft {
                        depth: 3,
                        divide: true,
                        ..
                    }
                }))
            ),
            "perft with --divide"
        );
        assert!(parse(&["rules", "perft", "suicide", "33"]).is_err());
        assert!(parse(&["rules", "bogus"]).is_err());
    }

    #[test]
    fn help_and_version_are_answered() {
        for words in [&["--help"][..], &["--version"], &["rules", "--help"]] {
            let error = parse(words).err().map(|e| e.kind());
            assert!(
                matches!(
                    error,
                    Some(
                        clap::error::ErrorKind::DisplayHelp
                            | clap::error::ErrorKind::DisplayVersion
                    )
                ),
                "{words:?}: {error:?}"
            );
        }
    }

    mod server {
        use super::*;
        use crate::config::DEFAULT_BIND;

        #[test]
        fn a_bare_command_serves_with_the_flags_given() {
            let cli = parse(&["--bind", "127.0.0.1:9"]).unwrap_or_else(|e| panic!("{e}"));
            assert!(cli.command.is_none());
            assert_eq!(cli.serve.bind_addr, "127.0.0.1:9");
            let cli = parse(&["serve", "--bind", "127.0.0.1:10", "--static-dir", "/srv/s"])
                .unwrap_or_else(|e| panic!("{e}"));
            let Some(Command::Serve(config)) = cli.command else {
                panic!("not serve");
            };
            assert_eq!(config.bind_addr, "127.0.0.1:10");
            assert_eq!(config.static_dir, Some(std::path::PathBuf::from("/srv/s")));
            // Server flags belong to serving: not beside another command.
            assert!(parse(&["--bind", "127.0.0.1:9", "migrate"]).is_err());
        }

        #[test]
        fn log_format_is_global_and_checked() {
            let cli = parse(&["serve", "--log-format", "json"]).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(cli.log_format, crate::telemetry::LogFormat::Json);
            for words in [
                &["--log-format", "json"][..],
                &["migrate", "--log-format", "json"],
                &["admin", "sessions", "--log-format", "json"],
            ] {
                let cli = parse(words).unwrap_or_else(|e| panic!("{words:?}: {e}"));
                assert_eq!(cli.log_format, crate::telemetry::LogFormat::Json);
            }
            assert!(parse(&["--log-format", "xml"]).is_err());
        }

        #[test]
        fn admin_commands_parse_and_check_their_arguments() {
            let cli = parse(&[
                "admin",
                "abort-game",
                "0190b7c4-0000-7000-8000-000000000000",
            ])
            .unwrap_or_else(|e| panic!("{e}"));
            assert!(matches!(
                cli.command,
                Some(Command::Admin(AdminArgs {
                    command: AdminCommand::AbortGame { .. },
                    ..
                }))
            ));
            assert!(parse(&["admin", "abort-game", "not-a-uuid"]).is_err());
            assert!(parse(&["admin", "sessions", "--limit", "0"]).is_err());
            assert!(parse(&["admin", "disable-account"]).is_err());
            let cli =
                parse(&["admin", "sessions", "--user", "alice"]).unwrap_or_else(|e| panic!("{e}"));
            assert!(matches!(
                cli.command,
                Some(Command::Admin(AdminArgs {
                    command: AdminCommand::Sessions {
                        user: Some(_),
                        limit: 100
                    },
                    ..
                }))
            ));
        }

        /// The load tool's options from `oddboard loadtest` and these flags.
        fn loadtest_options(flags: &[&str]) -> LoadOptions {
            let words: Vec<&str> = std::iter::once("loadtest")
                .chain(flags.iter().copied())
                .collect();
            match parse(&words) {
                Ok(Cli {
                    command: Some(Command::Loadtest(args)),
                    ..
                }) => LoadOptions::from(args),
                other => panic!("{flags:?}: {other:?}"),
            }
        }

        #[test]
        fn loadtest_flags_are_checked() {
            let options = loadtest_options(&["--games", "5", "--seconds", "2.5"]);
            assert_eq!(options.games, 5);
            assert_eq!(options.duration, Duration::from_millis(2500));
            assert_eq!((options.rate, options.games_per_socket), (None, 1));
            assert_eq!(options.variant, "chad");
            for bad in ["nan", "inf", "-1", "0"] {
                assert!(parse(&["loadtest", "--seconds", bad]).is_err(), "{bad}");
            }
            assert!(parse(&["loadtest", "--games", "0"]).is_err());
            assert!(parse(&["loadtest", "--games"]).is_err());
            assert!(parse(&["loadtest", "--bogus", "1"]).is_err());
            let paced = loadtest_options(&[
                "--variant",
                "suicide",
                "--rate",
                "5000",
                "--games-per-socket",
                "50",
            ]);
            assert_eq!(paced.variant, "suicide");
            assert_eq!((paced.rate, paced.games_per_socket), (Some(5000.0), 50));
            let capped = loadtest_options(&["--games-per-socket", "1000"]);
            assert_eq!(
                capped.games_per_socket,
                crate::web::mux::MAX_WATCHED,
                "the server's limit"
            );
        }

        /// Which variables the settings fall back to. Reading them is tested through the
        /// real binary (`tests/it/ops.rs`, with a `.env` file): changing this process's
        /// environment would race with the other tests' threads.
        #[test]
        fn settings_name_their_variables() {
            let variables = setting_variables();
            for name in ["BIND_ADDR", "DATABASE_URL", "STATIC_DIR", "LOG_FORMAT"] {
                assert!(variables.iter().any(|v| v == name), "{name}");
            }
            let Ok(Cli {
                command: Some(Command::Serve(flagged)),
                ..
            }) = parse(&["serve", "--bind", "127.0.0.1:7171"])
            else {
                panic!("not serve");
            };
            assert_eq!(flagged.bind_addr, "127.0.0.1:7171");
            assert_ne!(DEFAULT_BIND, flagged.bind_addr);
        }
    }
}
