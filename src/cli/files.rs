//! Writing output files without surprises: atomically (a temporary file in
//! the same folder, then a rename), never over an input, never over an
//! existing file unless asked.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Refuses to write `out` when it is one of `inputs`, or exists and
/// `force` is off.
pub fn check_target(out: &Path, inputs: &[&Path], force: bool) -> Result<()> {
    let canon = |p: &Path| std::fs::canonicalize(p).ok();
    if let Some(o) = canon(out)
        && inputs
            .iter()
            .any(|i| canon(i).as_deref() == Some(o.as_path()))
    {
        return Err(Error::Param(format!(
            "{}: refusing to overwrite the input file",
            out.display()
        )));
    }
    if out.exists() && !force {
        return Err(Error::Param(format!(
            "{}: already exists; pass --force to replace it",
            out.display()
        )));
    }
    Ok(())
}

/// Writes `bytes` to `out` atomically.
pub fn write_atomic(out: &Path, bytes: &[u8]) -> Result<()> {
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = out
        .file_name()
        .ok_or_else(|| Error::Param(format!("{}: not a file name", out.display())))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, out)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(out.display(), e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_inputs_and_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        std::fs::write(&a, "x").unwrap();
        let e = check_target(&a, &[a.as_path()], true).unwrap_err();
        assert!(e.to_string().contains("input file"));
        let e = check_target(&a, &[], false).unwrap_err();
        assert!(e.to_string().contains("--force"));
        check_target(&a, &[], true).unwrap();
        let b = dir.path().join("b.csv");
        check_target(&b, &[a.as_path()], false).unwrap();
        write_atomic(&b, b"hello").unwrap();
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "hello");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
