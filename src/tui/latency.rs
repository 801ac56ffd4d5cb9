//! `MEANSCAPE_LATENCY_LOG=FILE`: the milliseconds from a key press to the
//! frame that shows it, one a line, for measuring the UI.
//!
//! The file is held to the rules of output files: only a regular file (a
//! FIFO would block the UI until some reader came; a device never ends),
//! never through a symbolic link, and never appended to unless this
//! program started it. A new file is created (exclusively) with
//! [`MARKER`] as its first line; an existing one is appended to only when
//! its first line is that marker. Anything else is refused: the UI runs
//! without the log and says why.

use crate::data::input;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;

/// The environment variable.
pub const VAR: &str = "MEANSCAPE_LATENCY_LOG";

/// The first line of every latency log this program writes.
pub const MARKER: &str = "# meanscape latency log: ms from a key press to its frame";

/// The open log.
pub struct Log(File);

impl Log {
    /// The log the environment asks for: None when it asks for none, or
    /// the one-line reason it is not kept.
    pub fn from_env() -> Option<Result<Log, String>> {
        let path = std::path::PathBuf::from(std::env::var_os(VAR)?);
        Some(Log::open(&path).map_err(|why| {
            format!(
                "{VAR}={}: {why}; key latency is not logged",
                input::shown(&path)
            )
        }))
    }

    /// Creates `path` with the marker, or opens it for appending when it
    /// starts with the marker.
    ///
    /// # Errors
    /// Why `path` is not a log this program may write.
    pub fn open(path: &Path) -> Result<Log, String> {
        #[cfg(unix)]
        use std::os::unix::fs::OpenOptionsExt;
        let mut opts = OpenOptions::new();
        // Neither waits on a FIFO put there meanwhile nor follows a link.
        #[cfg(unix)]
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
        let meta = match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut f = opts
                    .write(true)
                    .create_new(true)
                    .open(path)
                    .map_err(|e| e.to_string())?;
                writeln!(f, "{MARKER}").map_err(|e| e.to_string())?;
                return Ok(Log(f));
            }
            Err(e) => return Err(e.to_string()),
            Ok(m) => m,
        };
        if meta.file_type().is_symlink() {
            return Err("is a symbolic link; give a new file name".into());
        }
        if !meta.is_file() {
            return Err(format!(
                "is {}, not a regular file; give a new file name",
                input::kind(meta.file_type())
            ));
        }
        let mut f = opts
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| e.to_string())?;
        let meta = f.metadata().map_err(|e| e.to_string())?;
        if !meta.is_file() {
            return Err(format!(
                "is {}, not a regular file; give a new file name",
                input::kind(meta.file_type())
            ));
        }
        let mut head = vec![0; MARKER.len() + 1];
        let started_here =
            f.read_exact(&mut head).is_ok() && head == format!("{MARKER}\n").as_bytes();
        if !started_here {
            return Err(format!(
                "exists and was not started by meanscape (its first line is not \"{MARKER}\"); \
                 give a new file name"
            ));
        }
        Ok(Log(f))
    }

    /// Appends one latency; a failed write is not worth stopping the UI.
    pub fn record(&mut self, ms: f64) {
        let _ = writeln!(self.0, "{ms:.3}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_is_created_new_or_continued_only_when_this_program_started_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lat.txt");
        let mut log = Log::open(&p).unwrap();
        log.record(1.5);
        drop(log);
        let mut log = Log::open(&p).unwrap();
        log.record(2.25);
        drop(log);
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            format!("{MARKER}\n1.500\n2.250\n")
        );
        // A file of the user's is neither appended to nor changed.
        let mine = dir.path().join("notes.txt");
        std::fs::write(&mine, "my notes\n").unwrap();
        let why = Log::open(&mine).err().unwrap();
        assert!(why.contains("not started by meanscape"), "{why}");
        assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my notes\n");
        let empty = dir.path().join("empty.txt");
        std::fs::write(&empty, "").unwrap();
        assert!(Log::open(&empty).is_err());
        assert_eq!(std::fs::read(&empty).unwrap(), b"");
        let why = Log::open(dir.path()).err().unwrap();
        assert!(why.contains("a directory"), "{why}");
    }

    #[cfg(unix)]
    #[test]
    fn links_and_special_files_are_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // No reader ever comes: an open that waited would hang the test.
        let why = Log::open(&fifo).err().unwrap();
        assert!(why.contains("named pipe (FIFO)"), "{why}");
        let why = Log::open(Path::new("/dev/null")).err().unwrap();
        assert!(why.contains("character device"), "{why}");
        // Even a link to a log this program started.
        let real = dir.path().join("real.txt");
        drop(Log::open(&real).unwrap());
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let why = Log::open(&link).err().unwrap();
        assert!(why.contains("symbolic link"), "{why}");
    }
}
