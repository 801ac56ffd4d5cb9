//! `meanscape --session FILE`: the run history and the current settings
//! in a plain JSON file, read at start and written atomically after every
//! finished run and on quit.
//!
//! The file is trusted only as far as it is known. It is read within
//! [`MAX_BYTES`], and only when it is a regular file (a FIFO or a device
//! is refused from its metadata, then opened non-blocking and checked
//! again, as data files are). Before each save the file must still be the
//! one this UI read or wrote last: the same device and inode, size and
//! modification time, and the same bytes (a hash of them). Anything else
//! (a dataset copied over it, an edit, another file moved there, the file
//! removed, or a file where there was none) is left as it is, saving
//! stops, and the user is told. A file that is not a session is never
//! written over: a damaged session is moved aside to FILE.corrupt-N
//! first, and the user is told; anything that is not JSON is left alone.

use super::history::History;
use crate::data::input;
use crate::error::{Error, Result};
use crate::files;
use crate::memory::fmt_bytes;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The version this program writes; a file of a later one is refused
/// rather than misread.
pub const VERSION: u32 = 1;

/// A value typed for one parameter of one algorithm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Override {
    pub algo: String,
    pub param: String,
    pub value: f64,
}

/// What the UI is set to: enough to start where the session left off.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub data: String,
    pub algo: String,
    /// None: the number of classes.
    pub k: Option<usize>,
    pub seed: u64,
    pub restarts: usize,
    pub init: String,
    /// None: the algorithm's default scaling.
    pub scale: Option<String>,
    pub overrides: Vec<Override>,
    pub options: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    /// Marks the file as a session and says which layout it has.
    pub meanscape_session: u32,
    pub settings: Settings,
    pub history: History,
}

/// The most a session file may hold, read or written: far above what a
/// long session needs (a run takes about a kilobyte, its objective trace
/// thinned to 400 points), and a bound on what reading one costs.
pub const MAX_BYTES: u64 = 64 << 20;

/// What identifies the file as this UI read or wrote it last.
#[derive(Debug, Clone, PartialEq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    modified: Option<SystemTime>,
    /// A hash of the bytes: catches an edit that keeps the size within
    /// the clock's resolution.
    hash: u64,
}

impl Stamp {
    fn new(meta: &std::fs::Metadata, bytes: &[u8]) -> Stamp {
        #[cfg(unix)]
        let (dev, ino) = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let (dev, ino) = (0, 0);
        Stamp {
            dev,
            ino,
            len: meta.len(),
            modified: meta.modified().ok(),
            hash: digest(bytes),
        }
    }
}

/// Stable within one run of the program, which is all the check needs.
fn digest(bytes: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    h.write(bytes);
    h.finish()
}

/// What reading the file gave.
pub enum Read {
    /// No file yet: it is created at the first save.
    Missing,
    Restored(Box<Saved>, Stamp),
    /// A regular file that looks like a damaged session (or is empty);
    /// kept, moved aside at the first save.
    Corrupt(String, Stamp),
    /// Something that cannot be read or replaced (a folder, a link, a
    /// FIFO, a file too big, not JSON, no permission): the session is not
    /// saved.
    Unusable(String),
}

/// The bytes of the regular file at `path` (at most [`MAX_BYTES`]) and
/// their stamp; `Ok(None)` when there is no file.
fn snapshot(path: &Path) -> std::result::Result<Option<(Vec<u8>, Stamp)>, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if meta.file_type().is_symlink() {
        return Err("is a symbolic link; give the file it points to".into());
    }
    let not_regular = |ft| format!("is {}, not a regular file", input::kind(ft));
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let too_big = |len: u64| {
        format!(
            "holds {len} bytes, more than the {} a session file may hold",
            fmt_bytes(MAX_BYTES as f64)
        )
    };
    if meta.len() > MAX_BYTES {
        return Err(too_big(meta.len()));
    }
    // Swapped for a FIFO since the check above: the open does not wait
    // and the check below refuses it.
    let file = input::open_nonblocking(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let bytes = match input::read_capped(&file, MAX_BYTES, meta.len()) {
        Ok(Some(b)) => b,
        // It grew while it was read.
        Ok(None) => return Err(too_big(MAX_BYTES + 1)),
        Err(e) => return Err(e.to_string()),
    };
    // Taken after the read: a file written meanwhile shows a newer time.
    let meta = file.metadata().map_err(|e| e.to_string())?;
    let stamp = Stamp::new(&meta, &bytes);
    Ok(Some((bytes, stamp)))
}

pub fn read(path: &Path) -> Read {
    let (text, stamp) = match snapshot(path) {
        Ok(Some(s)) => s,
        Ok(None) => return Read::Missing,
        Err(why) => return Read::Unusable(format!("{why}; it is left alone")),
    };
    match serde_json::from_slice::<Saved>(&text) {
        Ok(s) if s.meanscape_session > VERSION => Read::Unusable(format!(
            "was written by a newer meanscape (session version {}); this one reads {VERSION}",
            s.meanscape_session
        )),
        Ok(s) => Read::Restored(Box::new(s), stamp),
        // A damaged session (or an empty file) is moved aside before the
        // first save; anything else (a dataset given by mistake) is left
        // where it is.
        Err(e) if looks_like_json(&text) => Read::Corrupt(e.to_string(), stamp),
        Err(_) => {
            Read::Unusable("is not JSON, so not a meanscape session; it is left alone".into())
        }
    }
}

fn looks_like_json(text: &[u8]) -> bool {
    matches!(
        text.iter().find(|b| !b.is_ascii_whitespace()),
        None | Some(b'{')
    )
}

/// The session file of this UI.
#[derive(Debug, Clone)]
pub struct SessionFile {
    pub path: PathBuf,
    /// The file holds something else: move it aside before saving.
    pub corrupt: bool,
    /// Saving is off (the path cannot be written as a session, or the file
    /// changed under this UI).
    pub disabled: bool,
    /// The file as this UI read or wrote it last; None: there was none.
    last: Option<Stamp>,
}

/// What a save did.
#[derive(Debug, PartialEq)]
pub enum Wrote {
    Saved,
    /// Saved, after the damaged file there was moved here.
    MovedAside(PathBuf),
    /// Nothing: saving is off.
    Off,
}

/// The first FILE.corrupt-N that does not exist.
fn aside_name(path: &Path) -> PathBuf {
    let base = path.display().to_string();
    (1..)
        .map(|n| PathBuf::from(format!("{base}.corrupt-{n}")))
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .expect("some N is free")
}

impl SessionFile {
    /// The session file at `path`, as `read` found it.
    pub fn new(path: PathBuf, read: &Read) -> Self {
        let (corrupt, disabled, last) = match read {
            Read::Missing => (false, false, None),
            Read::Restored(_, s) => (false, false, Some(s.clone())),
            Read::Corrupt(_, s) => (true, false, Some(s.clone())),
            Read::Unusable(_) => (false, true, None),
        };
        SessionFile {
            path,
            corrupt,
            disabled,
            last,
        }
    }

    /// Why the file is no longer the one this UI read or wrote last, if it
    /// is not.
    fn changed(&self) -> Option<String> {
        let now = match snapshot(&self.path) {
            Ok(now) => now.map(|(_, s)| s),
            Err(why) => return Some(why),
        };
        match (&self.last, now) {
            (None, None) => None,
            (None, Some(_)) => Some("appeared while this UI ran (there was none at start)".into()),
            (Some(_), None) => Some("was removed while this UI ran".into()),
            (Some(a), Some(b)) if (a.dev, a.ino) != (b.dev, b.ino) => {
                Some("was replaced by another file while this UI ran".into())
            }
            (Some(a), Some(b)) if a != &b => {
                Some("was changed by something else while this UI ran".into())
            }
            _ => None,
        }
    }

    /// Writes `saved` atomically, when the file is still the one this UI
    /// read or wrote last.
    ///
    /// # Errors
    /// The file changed under this UI (then saving stops, and the file is
    /// left as it is), the session outgrew [`MAX_BYTES`], or the write or
    /// the rename failed; the file is as it was.
    pub fn write(&mut self, saved: &Saved) -> Result<Wrote> {
        if self.disabled {
            return Ok(Wrote::Off);
        }
        let shown = input::shown(&self.path);
        if let Some(why) = self.changed() {
            self.disabled = true;
            return Err(Error::param(format!(
                "{shown} {why}; it is left as it is and this session is no longer saved \
                 (E in the History exports its runs)"
            )));
        }
        // One line: objective traces written one number a line would make
        // a long session a very long file.
        let json =
            serde_json::to_string(saved).map_err(|e| Error::param(format!("session: {e}")))? + "\n";
        if json.len() as u64 > MAX_BYTES {
            return Err(Error::param(format!(
                "{shown}: the session has grown to {}, more than the {} a session file may hold; \
                 the file keeps the last save (E in the History exports the runs)",
                fmt_bytes(json.len() as f64),
                fmt_bytes(MAX_BYTES as f64)
            )));
        }
        let mut moved = None;
        if self.corrupt {
            let aside = aside_name(&self.path);
            match std::fs::rename(&self.path, &aside) {
                Ok(()) => moved = Some(aside),
                // Removed meanwhile: nothing left to keep.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(shown, e)),
            }
            self.corrupt = false;
            self.last = None;
        }
        files::write_atomic(&self.path, json.as_bytes())?;
        // What the next save compares with. A file put there between the
        // rename and this look has other bytes: the next save says so.
        self.last = std::fs::symlink_metadata(&self.path)
            .ok()
            .map(|m| Stamp::new(&m, json.as_bytes()));
        Ok(moved.map_or(Wrote::Saved, Wrote::MovedAside))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newer_session_is_refused_and_junk_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        assert!(matches!(read(&p), Read::Missing));
        std::fs::write(&p, "{\"meanscape_session\": 1").unwrap();
        assert!(matches!(read(&p), Read::Corrupt(..)));
        std::fs::write(&p, "").unwrap();
        assert!(matches!(read(&p), Read::Corrupt(..)));
        std::fs::write(&p, "x,y\n1,2\n").unwrap();
        assert!(matches!(read(&p), Read::Unusable(_)));
        let newer = format!(
            r#"{{"meanscape_session": {}, "settings": {{"data": "iris", "algo": "power",
            "k": null, "seed": 0, "restarts": 1, "init": "kmeans++", "scale": null,
            "overrides": [], "options": {{}}}}, "history": {{"entries": []}}}}"#,
            VERSION + 1
        );
        std::fs::write(&p, newer).unwrap();
        match read(&p) {
            Read::Unusable(why) => assert!(why.contains("newer meanscape"), "{why}"),
            _ => panic!("a newer session must not be read"),
        }
        // Refused means never written: saving is off.
        let mut sf = SessionFile::new(p.clone(), &read(&p));
        let saved: Saved = serde_json::from_str(
            &std::fs::read_to_string(&p)
                .unwrap()
                .replace(&format!("{}", VERSION + 1), &VERSION.to_string()),
        )
        .unwrap();
        assert_eq!(sf.write(&saved).unwrap(), Wrote::Off);
        assert!(
            std::fs::read_to_string(&p)
                .unwrap()
                .contains("meanscape_session\": 2")
        );
    }
}
