//! The `oddboard` binary.
//!
//! - `oddboard` or `oddboard serve [--bind ADDR]`: runs the server.
//! - `oddboard rules …`: the rules engine on the command line.

use std::io::Write;
use std::process::ExitCode;

#[cfg(feature = "server")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.split_first() {
        Some((command, rest)) if command == "rules" => {
            let status = oddboard::cli::run_rules(
                rest,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr().lock(),
            );
            ExitCode::from(u8::try_from(status).unwrap_or(1))
        }
        #[cfg(feature = "server")]
        None => serve(&[]),
        #[cfg(feature = "server")]
        Some((command, rest)) if command == "loadtest" => loadtest(rest),
        #[cfg(feature = "server")]
        Some((command, rest)) if command == "serve" => serve(rest),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "usage: oddboard [serve [--bind ADDR]]\n{}\n       oddboard loadtest --help",
                oddboard::cli::USAGE
            );
            ExitCode::from(2)
        }
    }
}

#[cfg(feature = "server")]
fn serve(args: &[String]) -> ExitCode {
    use oddboard::{app, config, game, telemetry};
    let bind = match args {
        [] => None,
        [flag, addr] if flag == "--bind" => Some(addr.clone()),
        _ => {
            eprintln!("usage: oddboard serve [--bind ADDR]");
            return ExitCode::from(2);
        }
    };
    telemetry::init();
    let config = match config::Config::from_env(bind) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let app = match app::App::build(&config, game::GameSettings::default()).await {
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

#[cfg(feature = "server")]
fn loadtest(args: &[String]) -> ExitCode {
    use oddboard::loadtest;
    let options = match loadtest::parse_args(args) {
        Ok(options) => options,
        Err(e) => {
            eprintln!("{e}\n{}", loadtest::USAGE);
            return ExitCode::from(2);
        }
    };
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
