//! Writing output files without surprises: atomically (a temporary file
//! with an unpredictable name, created exclusively in the same folder, then
//! a rename), never over a file the run reads, never over anything but a
//! regular file, never over an existing file unless asked, and never
//! leaving the temporary behind (errors drop it; an interrupt removes it).

pub mod interrupt;

use crate::error::{Error, Result};
use interrupt::in_flight;
use std::fs::{self, Metadata};
use std::io::Write;
use std::path::Path;

/// The folder `out` goes into.
fn folder(out: &Path) -> &Path {
    out.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

fn kind(meta: &Metadata) -> &'static str {
    let ft = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_socket() {
            return "a socket";
        }
        if ft.is_block_device() || ft.is_char_device() {
            return "a device";
        }
    }
    if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &Metadata, _: &Metadata) -> bool {
    false
}

fn same_path(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// What is at `out` now, refused unless it is nothing or a regular file
/// (a symbolic link is refused, not followed).
fn existing(out: &Path) -> Result<Option<Metadata>> {
    let meta = match fs::symlink_metadata(out) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(out.display(), e)),
    };
    if meta.is_file() {
        return Ok(Some(meta));
    }
    let what = kind(&meta);
    let hint = if meta.is_dir() {
        "give a file name inside it"
    } else {
        "only regular files are replaced, even with --force; write the output elsewhere"
    };
    Err(Error::param(format!(
        "{}: is {what}; {hint}",
        out.display()
    )))
}

/// The file `spec` names when it is a file (not a bundled dataset or a
/// generator): the input known before reading it.
pub fn source_files(spec: &str) -> Vec<&Path> {
    match crate::data::DataSource::parse(spec) {
        Ok(crate::data::DataSource::File(_)) => vec![Path::new(spec.trim())],
        _ => Vec::new(),
    }
}

/// Refuses an output name whose extension promises a format `cmd` does not
/// write (CSV text in `g.mat`).
pub fn check_extension(out: &Path, cmd: &str, allowed: &[&str]) -> Result<()> {
    let ext = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if ext.as_deref().is_some_and(|e| allowed.contains(&e)) {
        return Ok(());
    }
    let list: Vec<String> = allowed.iter().map(|e| format!(".{e}")).collect();
    Err(Error::param(format!(
        "{}: {cmd} writes {} files; give the file one of these extensions",
        out.display(),
        list.join(" or ")
    )))
}

/// A command's output files: `--out` (its text, with an extension from
/// `out_ext`) and `--plot` (an SVG), checked as one before any work.
pub struct Outputs<'a> {
    /// The command, as error messages name it (`sweep`, `path`).
    pub cmd: &'a str,
    pub out: Option<&'a Path>,
    pub out_ext: &'a [&'a str],
    pub plot: Option<&'a Path>,
    pub force: bool,
}

impl Outputs<'_> {
    /// Refuses the two being one file, either one by [`check_target`], and
    /// an extension that promises another format.
    pub fn check(&self, inputs: &[&Path]) -> Result<()> {
        if let (Some(o), Some(p)) = (self.out, self.plot)
            && o == p
        {
            return Err(Error::param(format!(
                "{}: --out and --plot name the same file",
                o.display()
            )));
        }
        for t in self.out.iter().chain(&self.plot) {
            check_target(t, inputs, self.force)?;
        }
        if let Some(o) = self.out {
            check_extension(o, &format!("{} --out", self.cmd), self.out_ext)?;
        }
        if let Some(p) = self.plot {
            check_extension(p, &format!("{} --plot", self.cmd), &["svg"])?;
        }
        Ok(())
    }
}

/// Refuses `out` before any work is done: a path without a file name, a
/// missing or unwritable folder, anything but a regular file, one of
/// `inputs` (the files the run reads; --force or not), or an existing file
/// when `force` is off.
pub fn check_target(out: &Path, inputs: &[&Path], force: bool) -> Result<()> {
    let shown = out.display();
    if out.file_name().is_none() {
        return Err(Error::param(format!(
            "{shown}: not a file name; give a path that ends in one"
        )));
    }
    let dir = folder(out);
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(Error::param(format!(
                "{shown}: {} is not a folder",
                dir.display()
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::param(format!(
                "{shown}: the folder {} does not exist; create it first",
                dir.display()
            )));
        }
        Err(e) => return Err(Error::io(dir.display(), e)),
    }
    if let Some(meta) = existing(out)? {
        let input = inputs
            .iter()
            .find(|i| fs::metadata(i).is_ok_and(|m| same_file(&m, &meta)) || same_path(i, out));
        if let Some(i) = input {
            return Err(Error::param(format!(
                "{shown}: refusing to overwrite the input file {}, even with --force; write the output elsewhere",
                i.display()
            )));
        }
        if !force {
            return Err(Error::param(format!(
                "{shown}: already exists; pass --force to replace it"
            )));
        }
    }
    // The one sure test that the folder takes new files.
    tempfile::Builder::new()
        .prefix(".meanscape-probe.")
        .tempfile_in(dir)
        .map_err(|e| {
            Error::param(format!(
                "{shown}: cannot create files in {}: {e}",
                dir.display()
            ))
        })?;
    Ok(())
}

/// Writes `bytes` to `out` atomically: readers see the old file or the
/// new one, never a part. The temporary is removed on every error and on
/// an interrupt (then the result is `Err(Cancelled)`).
pub fn write_atomic(out: &Path, bytes: &[u8]) -> Result<()> {
    let name = out
        .file_name()
        .ok_or_else(|| Error::param(format!("{}: not a file name", out.display())))?;
    let io = |e: std::io::Error| Error::io(out.display(), e);
    let old = existing(out)?;
    let prefix = format!(".{}.", name.to_string_lossy());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    let perms = {
        use std::os::unix::fs::PermissionsExt;
        // A replaced file keeps its mode; a new one gets 0666 less the
        // umask, as any created file.
        let mode = old
            .as_ref()
            .map_or(0o666, |m| m.permissions().mode() & 0o777);
        fs::Permissions::from_mode(mode)
    };
    #[cfg(unix)]
    builder.permissions(perms);
    let mut tmp = {
        let mut list = in_flight();
        if interrupt::requested() {
            return Err(Error::Cancelled);
        }
        let tmp = builder.tempfile_in(folder(out)).map_err(io)?;
        list.push(tmp.path().to_path_buf());
        tmp
    };
    let written = tmp.write_all(bytes).and_then(|()| tmp.as_file().sync_all());
    let mut list = in_flight();
    list.retain(|p| p != tmp.path());
    written.map_err(io)?;
    if interrupt::requested() {
        return Err(Error::Cancelled);
    }
    // Again just before the rename: something may have appeared meanwhile.
    existing(out)?;
    tmp.persist(out).map_err(|e| io(e.error))?;
    drop(list);
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

    #[test]
    fn a_hard_link_to_an_input_is_the_input() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.csv");
        std::fs::write(&a, "x").unwrap();
        std::fs::hard_link(&a, &b).unwrap();
        let e = check_target(&b, &[a.as_path()], true).unwrap_err();
        assert!(e.to_string().contains("input file"), "{e}");
    }

    #[test]
    fn folders_and_missing_folders_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = check_target(dir.path(), &[], true).unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
        let e = check_target(&dir.path().join("no/x.csv"), &[], true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
        let e = write_atomic(dir.path(), b"x").unwrap_err().to_string();
        assert!(e.contains("folder") || e.contains("file name"), "{e}");
    }
}
