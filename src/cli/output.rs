//! What the program writes at its edge: a command's output on stdout, and
//! its error as one line on stderr with the exit code.

use crate::error::Error;
use crate::text::printable;
use std::sync::atomic::{AtomicBool, Ordering};

/// How a command failed. A cancelled run is told apart from the library's
/// error as it passes here, before it joins the program's own errors.
pub(crate) enum Failure {
    /// The user cancelled the run (exit code 130).
    Cancelled,
    /// An error, said on stderr (exit code 2).
    Error(anyhow::Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        match e {
            Error::Cancelled => Failure::Cancelled,
            e => Failure::Error(e.into()),
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Error(e)
    }
}

/// Whether the program started with file descriptor 1 closed (`>&-`).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Notes whether stdout was closed when the program started. Rust's
/// runtime points a closed descriptor 0–2 at /dev/null, opened read-write,
/// before `main` (so that the first file opened cannot take its number),
/// and the output then vanishes with exit 0. A shell's `>/dev/null` opens
/// it write-only: /dev/null read-write on descriptor 1 is the runtime's.
pub(super) fn note_closed_stdout() {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (Ok(null), Ok(out)) = (
            std::fs::metadata("/dev/null"),
            std::fs::metadata("/dev/stdout"),
        ) else {
            return;
        };
        // SAFETY: fcntl on a descriptor number, no memory.
        let flags = unsafe { libc::fcntl(1, libc::F_GETFL) };
        if out.rdev() == null.rdev()
            && out.dev() == null.dev()
            && flags != -1
            && flags & libc::O_ACCMODE == libc::O_RDWR
        {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
    }
}

/// Writes a command's text output to stdout, with the control characters
/// a name or value from a file may hold escaped (lines and tabs kept).
pub(crate) fn print_text(text: &str) -> anyhow::Result<()> {
    print(printable(text, &['\n', '\t']).as_bytes())
}

/// Writes a command's output to stdout as it is. A closed pipe (`| head`)
/// is not an error worth a message; anything else is.
pub(crate) fn print(bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    use std::io::Write;
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        anyhow::bail!(
            "stdout is closed, so the output would be lost; give the command an open stdout \
             (or --out FILE where it has one)"
        );
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("writing the output to stdout")
        }
        _ => Ok(()),
    }
}

/// The exit code of a finished command, with its error on stderr in one
/// line: 130 for a cancelled run, 2 for an error.
pub(super) fn exit_code(result: Result<(), Failure>) -> i32 {
    let e = match result {
        Ok(()) => return 0,
        Err(Failure::Cancelled) => {
            eprintln!("meanscape: cancelled");
            return 130;
        }
        Err(Failure::Error(e)) => e,
    };
    // The context the program added, then the cause; a library error's
    // message already names its own cause, so the chain stops there.
    let mut parts = Vec::new();
    for cause in e.chain() {
        parts.push(cause.to_string());
        if cause.is::<Error>() {
            break;
        }
    }
    // One line, whatever a file name or a library put in the text; no
    // terminal command from a name in a file.
    let text = parts.join(": ").replace(['\n', '\r'], " ");
    eprintln!("meanscape: error: {}", printable(&text, &[]));
    2
}
