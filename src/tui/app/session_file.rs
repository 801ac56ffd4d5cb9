//! `meanscape --session FILE`: the run history and the current settings
//! in a plain JSON file, read at start and written atomically after every
//! finished run and on quit. A file that is not a session is never
//! written over: it is moved aside to FILE.corrupt-N first, and the user
//! is told.

use super::history::History;
use crate::cli::files;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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

/// What reading the file gave.
pub enum Read {
    /// No file yet: it is created at the first save.
    Missing,
    Restored(Box<Saved>),
    /// A regular file that is not a session; kept, moved aside at the
    /// first save.
    Corrupt(String),
    /// Something that cannot be read or replaced (a folder, a link, no
    /// permission): the session is not saved.
    Unusable(String),
}

pub fn read(path: &Path) -> Read {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Read::Missing,
        Err(e) => return Read::Unusable(e.to_string()),
    };
    if meta.file_type().is_symlink() {
        return Read::Unusable("is a symbolic link; give the file it points to".into());
    }
    if !meta.is_file() {
        return Read::Unusable("is not a regular file".into());
    }
    let text = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Read::Unusable(e.to_string()),
    };
    match serde_json::from_slice::<Saved>(&text) {
        Ok(s) if s.meanscape_session > VERSION => Read::Unusable(format!(
            "was written by a newer meanscape (session version {}); this one reads {VERSION}",
            s.meanscape_session
        )),
        Ok(s) => Read::Restored(Box::new(s)),
        // A damaged session (or an empty file) is moved aside before the
        // first save; anything else (a dataset given by mistake) is left
        // where it is.
        Err(e) if looks_like_json(&text) => Read::Corrupt(e.to_string()),
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
    /// Saving is off (the path cannot be written as a session).
    pub disabled: bool,
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
    /// Writes `saved` atomically. Returns where a corrupt file was moved
    /// to, when it was.
    ///
    /// # Errors
    /// The write or the rename failed; the file is as it was.
    pub fn write(&mut self, saved: &Saved) -> Result<Option<PathBuf>> {
        if self.disabled {
            return Ok(None);
        }
        // One line: objective traces written one number a line would make
        // a long session a very long file.
        let json =
            serde_json::to_string(saved).map_err(|e| Error::Param(format!("session: {e}")))? + "\n";
        let mut moved = None;
        if self.corrupt {
            let aside = aside_name(&self.path);
            match std::fs::rename(&self.path, &aside) {
                Ok(()) => moved = Some(aside),
                // Removed meanwhile: nothing left to keep.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(self.path.display(), e)),
            }
            self.corrupt = false;
        }
        files::write_atomic(&self.path, json.as_bytes())?;
        Ok(moved)
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
        assert!(matches!(read(&p), Read::Corrupt(_)));
        std::fs::write(&p, "").unwrap();
        assert!(matches!(read(&p), Read::Corrupt(_)));
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
        let mut sf = SessionFile {
            path: p.clone(),
            corrupt: false,
            disabled: true,
        };
        let saved: Saved = serde_json::from_str(
            &std::fs::read_to_string(&p)
                .unwrap()
                .replace(&format!("{}", VERSION + 1), &VERSION.to_string()),
        )
        .unwrap();
        sf.write(&saved).unwrap();
        assert!(
            std::fs::read_to_string(&p)
                .unwrap()
                .contains("meanscape_session\": 2")
        );
    }
}
