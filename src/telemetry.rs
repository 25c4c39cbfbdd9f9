//! Logging with `tracing`, filtered by `RUST_LOG` (default `info`), written to stdout as
//! text for people or as one JSON object per line for log collectors (`--log-format json`).

use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line: `timestamp`, `level`, `fields` (the message and the event's
    /// fields) and `span`/`spans` (e.g. the request an access line is about).
    Json,
}

/// Installs the global subscriber once; later calls (tests) are ignored.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // Colours only for a terminal: in a file or the journal they are escape codes.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()));
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
