//! The `oddboard` binary: `oddboard rules …` runs the rules engine on the command line.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let status = match args.split_first() {
        Some((command, rest)) if command == "rules" => {
            oddboard::cli::run_rules(rest, &mut stdout.lock(), &mut stderr.lock())
        }
        _ => {
            let _ = writeln!(stderr.lock(), "{}", oddboard::cli::USAGE);
            2
        }
    };
    ExitCode::from(u8::try_from(status).unwrap_or(1))
}
