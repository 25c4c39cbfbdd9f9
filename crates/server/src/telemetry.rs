//! Logging with `tracing`, filtered by `RUST_LOG` (default `info`), written as text for
//! people or as one JSON object per line for log collectors (`--log-format json`): to stdout
//! for the server, to stderr for the commands whose stdout is their answer (`migrate`,
//! `admin`).

use tracing_subscriber::fmt::MakeWriter;
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

/// Installs the global subscriber, writing to stdout, once; later calls (tests) are ignored.
pub fn init(format: LogFormat) {
    install(
        format,
        std::io::stdout,
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
    );
}

/// [`init`], writing to stderr: for commands whose stdout is their answer.
pub fn init_to_stderr(format: LogFormat) {
    install(
        format,
        std::io::stderr,
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
}

fn install<W>(format: LogFormat, writer: W, terminal: bool)
where
    W: for<'writer> MakeWriter<'writer> + Send + Sync + 'static,
{
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // Colours only for a terminal: in a file or the journal they are escape codes.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(terminal)
        .with_writer(writer);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
