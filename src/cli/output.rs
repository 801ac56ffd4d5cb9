//! What the program writes at its edge: a command's output on stdout, and
//! its error as one line on stderr with the exit code.

use crate::error::Error;

/// Writes a command's output to stdout. A closed pipe (`| head`) is not an
/// error worth a message; anything else is.
pub(crate) fn print(bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    use std::io::Write;
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
pub(super) fn exit_code(result: anyhow::Result<()>) -> i32 {
    let Err(e) = result else { return 0 };
    if matches!(e.downcast_ref::<Error>(), Some(Error::Cancelled)) {
        eprintln!("meanscape: cancelled");
        return 130;
    }
    // The context the program added, then the cause; a library error's
    // message already names its own cause, so the chain stops there.
    let mut parts = Vec::new();
    for cause in e.chain() {
        parts.push(cause.to_string());
        if cause.is::<Error>() {
            break;
        }
    }
    // One line, whatever a file name or a library put in the text.
    let text = parts.join(": ").replace(['\n', '\r'], " ");
    eprintln!("meanscape: error: {text}");
    2
}
