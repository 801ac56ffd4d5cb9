//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// A file of the reference data beside the repository (`../shared/data`),
/// or `None`, with a note, when it is absent: the project's own tests must
/// pass on a fresh clone without it.
pub fn shared(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data")).join(name);
    if !path.is_file() {
        eprintln!(
            "skipping: {} is absent (reference data lives beside the repository)",
            path.display()
        );
        return None;
    }
    Some(path)
}
