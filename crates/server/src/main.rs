//! The `oddboard` binary: parses the command line ([`oddboard::command`]) and runs it.
//!
//! - `oddboard` or `oddboard serve [--bind ADDR] …`: runs the server.
//! - `oddboard rules …`: the rules engine on the command line.
//! - `oddboard loadtest …`, `oddboard migrate`, `oddboard admin …`.
//!
//! `oddboard --help` lists them; a `.env` file in the working directory is read first (its
//! variables never override ones already set).

use clap::Parser;
use oddboard::command::{Cli, Command};
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    load_dotenv();
    oddboard::command::unset_empty_settings();
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Rules { command }) => {
            let status = oddboard::cli::run(
                &command,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr().lock(),
            );
            ExitCode::from(u8::try_from(status).unwrap_or(1))
        }
        Some(Command::Engine { command }) => {
            let status = oddboard::engine_cli::run(
                &command,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr().lock(),
            );
            ExitCode::from(u8::try_from(status).unwrap_or(1))
        }
        Some(Command::EngineWorker) => {
            match oddboard::engine_worker::run(std::io::stdin().lock(), std::io::stdout()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("engine-worker: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Uci) => {
            let stdin = std::io::stdin().lock();
            match oddboard_engine::uci::run(stdin, std::io::stdout()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("uci: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        None => server::serve(&cli.serve, cli.log_format),
        Some(Command::Serve(config)) => server::serve(&config, cli.log_format),
        Some(Command::Loadtest(args)) => server::loadtest(args.into()),
        Some(Command::Migrate(database)) => server::migrate(&database, cli.log_format),
        Some(Command::Admin(admin)) => server::admin(admin, cli.log_format),
    }
}

/// Reads `.env` of the working directory (only there: `dotenvy::dotenv` would also take one
/// from any parent directory) into the environment. A missing file is the normal case; a
/// malformed one is said on stderr (logging is not set up yet) and otherwise ignored.
fn load_dotenv() {
    match dotenvy::from_path(".env") {
        Ok(_) => {}
        Err(e) if e.not_found() => {}
        Err(e) => eprintln!("ignoring .env: {e}"),
    }
}

mod server {
    use oddboard::command::{AdminArgs, DatabaseArgs};
    use oddboard::config::{redact_url, Config};
    use oddboard::telemetry::{self, LogFormat};
    use oddboard::{admin, app, game};
    use oddboard_client::loadtest;
    use std::process::ExitCode;

    fn runtime() -> Option<tokio::runtime::Runtime> {
        match tokio::runtime::Runtime::new() {
            Ok(runtime) => Some(runtime),
            Err(e) => {
                eprintln!("cannot start the async runtime: {e}");
                None
            }
        }
    }

    pub fn serve(config: &Config, log_format: LogFormat) -> ExitCode {
        telemetry::init(log_format);
        let Some(runtime) = runtime() else {
            return ExitCode::FAILURE;
        };
        runtime.block_on(async move {
            let mut settings = game::GameSettings::default();
            if let Some(threads) = config.engine_threads {
                settings.engine_threads = usize::from(threads);
            }
            // Searches run in worker processes of this very binary.
            match std::env::current_exe() {
                Ok(program) => settings.engine_worker = Some(program),
                Err(e) => {
                    eprintln!("cannot find this program's path to start engine workers: {e}");
                    return ExitCode::FAILURE;
                }
            }
            let app = match app::App::build(config, settings).await {
                Ok(app) => app,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            };
            let listener = match app::listen(&config.bind_addr).await {
                Ok(listener) => listener,
                Err(e) => {
                    eprintln!("cannot listen on {}: {e}", config.bind_addr);
                    return ExitCode::FAILURE;
                }
            };
            tracing::info!(addr = %config.bind_addr, "listening");
            match app.run(listener, app::shutdown_signal()).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("server failed: {e}");
                    ExitCode::FAILURE
                }
            }
        })
    }

    pub fn migrate(database: &DatabaseArgs, log_format: LogFormat) -> ExitCode {
        telemetry::init_to_stderr(log_format);
        let Some(runtime) = runtime() else {
            return ExitCode::FAILURE;
        };
        match runtime.block_on(admin::migrate(&database.database_url)) {
            Ok(version) => {
                println!(
                    "{} is at migration {version}",
                    redact_url(&database.database_url)
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        }
    }

    pub fn admin(args: AdminArgs, log_format: LogFormat) -> ExitCode {
        telemetry::init_to_stderr(log_format);
        let Some(runtime) = runtime() else {
            return ExitCode::FAILURE;
        };
        let mut out = std::io::stdout().lock();
        match runtime.block_on(admin::run(&args, &mut out)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(e.exit_status())
            }
        }
    }

    pub fn loadtest(options: loadtest::LoadOptions) -> ExitCode {
        // One thread: the tool shares the machine's two cores with the server and PostgreSQL,
        // and uses well under one core itself; a work-stealing pool only added cross-thread
        // wake-ups to every move.
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(e) => {
                eprintln!("cannot start the async runtime: {e}");
                return ExitCode::FAILURE;
            }
        };
        match runtime.block_on(loadtest::run(options)) {
            Ok(report) => {
                print!("{report}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("load test failed: {e}");
                ExitCode::FAILURE
            }
        }
    }
}
