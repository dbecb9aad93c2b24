//! Writing to stdout without panicking. `print!` panics when stdout is full (`/dev/full`) or a
//! closed pipe (`scorebench score … | head -c1`); every write to stdout goes through here
//! instead (`clippy::print_stdout` is denied in this crate), and a failed write is reported
//! like Unix tools do: a closed pipe quietly, anything else with a message.

use std::io::Write;
use std::process::ExitCode;

/// Exit status after stdout was closed by the reader: what a shell shows for a process
/// killed by SIGPIPE (128 + 13).
pub const BROKEN_PIPE_EXIT: u8 = 141;

/// Exit status after any other failed write to stdout.
pub const WRITE_FAILED_EXIT: u8 = 1;

/// Write `text` to stdout and flush it.
pub fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Write `value` to stdout as pretty JSON and a newline, streamed (never held as one string:
/// a report with every sample is as big as its input), and flush it. The bytes are
/// `serde_json::to_string_pretty`'s.
pub fn write_json_stdout<T: serde::Serialize>(value: &T) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value).map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// The exit status for a failed write to stdout, after saying why on stderr (nothing for a
/// closed pipe).
pub fn write_failed(e: &std::io::Error) -> ExitCode {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::from(BROKEN_PIPE_EXIT);
    }
    eprintln!("error: cannot write to stdout: {e}");
    ExitCode::from(WRITE_FAILED_EXIT)
}
