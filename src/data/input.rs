//! Reading input files within bounds: only regular files, never more
//! bytes than the memory budget allows, and gzip inflated with a cap.
//!
//! Special files are refused from their metadata, before they are opened:
//! a FIFO or a socket would block the open or the read until some other
//! process writes (forever, for a forgotten pipe), and a character device
//! such as `/dev/urandom` or `/dev/zero` never ends. Data that arrives on a
//! pipe has to be saved to a file first. The file is then opened
//! non-blocking and checked again, so a file swapped for a FIFO between
//! the two steps is refused too, not waited on.

use super::LoadOptions;
use crate::error::{Error, Result};
use crate::memory;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

pub(crate) use crate::memory::{Budget, fmt_need};

// The budget type lives in `memory` (one budget for loaders and
// algorithms); building it from the load options belongs to the loaders.
impl Budget {
    pub fn of(opts: &LoadOptions) -> Budget {
        Budget::from_limit(opts.max_memory)
    }
}

/// A path as it starts messages: control characters (a newline in a file
/// name) are escaped so that every message stays on one line.
pub fn shown(path: &Path) -> String {
    crate::text::printable(&path.display().to_string(), &[]).into_owned()
}

/// The first of `candidates` (the names a companion labels file may
/// have) that is a regular file. One that exists but is something else (a
/// folder, a FIFO, a link to one) is not read, and the returned note says
/// so rather than leaving the labels out in silence.
pub fn companion(
    candidates: impl IntoIterator<Item = PathBuf>,
) -> (Option<PathBuf>, Option<String>) {
    let mut note = None;
    for p in candidates {
        match std::fs::metadata(&p) {
            Ok(m) if m.is_file() => return (Some(p), note),
            Ok(m) => {
                note.get_or_insert_with(|| {
                    format!(
                        "labels not read from {}: it is {}, not a regular file",
                        shown(&p),
                        kind(m.file_type())
                    )
                });
            }
            Err(_) => {}
        }
    }
    (None, note)
}

/// What a file is read as: the refusal of a special file says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    Data,
    Model,
}

/// Refuses anything but a regular file, naming what it is.
fn require_regular(ft: std::fs::FileType, origin: &str, reading: Reading) -> Result<()> {
    if ft.is_file() {
        return Ok(());
    }
    let what = kind(ft);
    Err(match reading {
        Reading::Data => Error::Data(format!(
            "{origin}: is {what}, not a regular file; data is read only from regular files \
             (save the data to a file first)"
        )),
        Reading::Model => Error::Model(format!(
            "{origin}: is {what}, not a regular file; a model is read only from a regular file \
             (as `meanscape run --save-model` writes it)"
        )),
    })
}

#[cfg(unix)]
pub(crate) fn kind(ft: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() {
        "a named pipe (FIFO)"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
pub(crate) fn kind(ft: std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

#[cfg(unix)]
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Opens a regular file for reading; returns it with its length.
pub(crate) fn open(path: &Path, origin: &str) -> Result<(File, u64)> {
    open_as(path, origin, Reading::Data)
}

/// [`open`] for a file read as `reading`.
pub(crate) fn open_as(path: &Path, origin: &str, reading: Reading) -> Result<(File, u64)> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(origin, e))?;
    require_regular(meta.file_type(), origin, reading)?;
    let file = open_nonblocking(path).map_err(|e| Error::io(origin, e))?;
    let meta = file.metadata().map_err(|e| Error::io(origin, e))?;
    require_regular(meta.file_type(), origin, reading)?;
    Ok((file, meta.len()))
}

/// Reads from `r` at most `cap` bytes: `None` if there are more. Grows the
/// buffer by doubling, but never past `cap + 1`, and reports a failed
/// allocation as an error instead of aborting. `hint` is the expected
/// length (a file's size), allocated at once when within the cap.
pub(crate) fn read_capped<R: Read>(mut r: R, cap: u64, hint: u64) -> io::Result<Option<Vec<u8>>> {
    let ceiling = usize::try_from(cap.saturating_add(1)).unwrap_or(usize::MAX);
    let mut out: Vec<u8> = Vec::new();
    let first = usize::try_from(hint.saturating_add(1))
        .unwrap_or(usize::MAX)
        .min(ceiling);
    out.try_reserve_exact(first)
        .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "out of memory"))?;
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let room = ceiling - out.len();
        if room == 0 {
            return Ok(None);
        }
        let want = room.min(chunk.len());
        let n = match r.read(&mut chunk[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if out.len() + n > out.capacity() {
            let grown = out
                .capacity()
                .saturating_mul(2)
                .max(out.len() + n)
                .max(4096);
            out.try_reserve_exact(grown.min(ceiling) - out.len())
                .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "out of memory"))?;
        }
        out.extend_from_slice(&chunk[..n]);
    }
    if out.len() as u64 > cap {
        return Ok(None);
    }
    Ok(Some(out))
}

/// The whole of a regular file, if it fits the budget.
pub(crate) fn read_all(path: &Path, origin: &str, budget: &Budget) -> Result<Vec<u8>> {
    read_all_as(path, origin, budget, Reading::Data)
}

/// [`read_all`] for a file read as `reading`.
pub(crate) fn read_all_as(
    path: &Path,
    origin: &str,
    budget: &Budget,
    reading: Reading,
) -> Result<Vec<u8>> {
    let (file, len) = open_as(path, origin, reading)?;
    budget.check(
        origin,
        u128::from(len),
        &format!("the file is {}", fmt_need(u128::from(len))),
    )?;
    match read_capped(file, budget.limit, len) {
        Ok(Some(bytes)) => Ok(bytes),
        // The file grew while it was read (or its size was not known).
        Ok(None) => Err(Error::Resource(format!(
            "{origin}: the file holds more than the memory limit of {}{}",
            memory::fmt_bytes(budget.limit as f64),
            budget.advice()
        ))),
        Err(e) => Err(Error::io(origin, e)),
    }
}

/// Whether `bytes` start like gzip.
pub(crate) fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// The decompressed stream of a gzip file: its members one after another
/// (concatenated members are valid gzip, as `cat a.gz b.gz` makes), and an
/// error for bytes after the last member that are not another member.
pub(crate) struct Gunzip<'a> {
    decoder: flate2::bufread::GzDecoder<&'a [u8]>,
    done: bool,
    len: usize,
}

impl<'a> Gunzip<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Gunzip {
            decoder: flate2::bufread::GzDecoder::new(bytes),
            done: false,
            len: bytes.len(),
        }
    }
}

impl Read for Gunzip<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.done {
                return Ok(0);
            }
            let n = self.decoder.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let rest: &[u8] = self.decoder.get_ref();
            if rest.is_empty() {
                self.done = true;
                return Ok(0);
            }
            if is_gzip(rest) {
                // One decoder for every member: a file of millions of tiny
                // members must not cost a fresh inflater each.
                self.decoder.reset(rest);
                continue;
            }
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} byte(s) after the end of the compressed data, at offset {}, are not \
                     another gzip member: the file is damaged or has data appended",
                    rest.len(),
                    self.len - rest.len()
                ),
            ));
        }
    }
}

/// How many decompressed bytes decide what a gzipped file holds: an IDX
/// header has at most 4 + 4·255 bytes, and binary data (a NUL byte) in
/// text shows early.
const HEAD: u64 = 64 * 1024;

fn gzip_error(origin: &str, e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::OutOfMemory {
        return Error::Resource(format!(
            "{origin}: out of memory while decompressing; lower --max-memory"
        ));
    }
    Error::Data(format!("{origin}: not a readable gzip file ({e})"))
}

/// The file's bytes, decompressed when it is gzip. The decompressed size is
/// capped before inflating: by the size an IDX header declares (plus the
/// budget check of that size), else by the budget less the compressed
/// bytes. A gzip bomb therefore stops at the cap, and one of binary zeros
/// at the first chunk (NUL bytes are not text).
pub(crate) fn read_maybe_gz(path: &Path, origin: &str, budget: &Budget) -> Result<Vec<u8>> {
    let raw = read_all(path, origin, budget)?;
    if !is_gzip(&raw) {
        return Ok(raw);
    }
    let mut gz = Gunzip::new(&raw);
    let mut out = read_capped((&mut gz).take(HEAD), HEAD, HEAD)
        .map_err(|e| gzip_error(origin, e))?
        .expect("take bounds the head");
    let compressed = raw.len() as u64;
    let cap = if super::idx_header::looks_like_idx(&out) {
        match super::idx_header::declared_len(&out) {
            Some(total) => {
                budget.check(
                    origin,
                    u128::from(compressed) + u128::from(total),
                    &format!(
                        "its IDX header declares {} of data once decompressed",
                        fmt_need(u128::from(total))
                    ),
                )?;
                total
            }
            // A header cut short: what there is tells the parser so.
            None => out.len() as u64,
        }
    } else {
        if let Some(pos) = out.iter().position(|&b| b == 0) {
            return Err(binary_data(origin, pos, " once decompressed"));
        }
        budget.limit.saturating_sub(compressed)
    };
    if (out.len() as u64) < HEAD {
        // The whole stream is in the head (it ended before HEAD bytes).
        if out.len() as u64 > cap {
            return Err(too_long(
                origin,
                cap,
                budget,
                super::idx_header::looks_like_idx(&out),
            ));
        }
        return Ok(out);
    }
    let more = cap.saturating_sub(out.len() as u64);
    match read_capped(&mut gz, more, 0).map_err(|e| gzip_error(origin, e))? {
        Some(rest) => {
            if out.try_reserve_exact(rest.len()).is_err() {
                return Err(gzip_error(
                    origin,
                    io::Error::new(io::ErrorKind::OutOfMemory, "out of memory"),
                ));
            }
            out.extend_from_slice(&rest);
            Ok(out)
        }
        None => Err(too_long(
            origin,
            cap,
            budget,
            super::idx_header::looks_like_idx(&out),
        )),
    }
}

fn too_long(origin: &str, cap: u64, budget: &Budget, idx: bool) -> Error {
    if idx {
        Error::Data(format!(
            "{origin}: decompresses to more than the {cap} bytes its IDX header declares \
             (a damaged file or data appended)"
        ))
    } else {
        Error::Resource(format!(
            "{origin}: decompresses to more than {}, the memory limit of {} less the \
             compressed file{}",
            memory::fmt_bytes(cap as f64),
            memory::fmt_bytes(budget.limit as f64),
            budget.advice()
        ))
    }
}

/// The refusal of binary data where text was expected.
pub(crate) fn binary_data(origin: &str, offset: usize, after: &str) -> Error {
    Error::Data(format!(
        "{origin}: binary data (a NUL byte at offset {offset}{after}), not delimited text; \
         expected a delimited text file, .npy, .mat or IDX (MNIST)"
    ))
}

/// The first line of a third-party error's text, for messages that must
/// stay on one line.
pub(crate) fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("").trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn gunzip(b: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        Gunzip::new(b).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn concatenated_members_are_one_stream_and_junk_is_refused() {
        let mut two = gz(b"a,b\n");
        two.extend(gz(b"1,2\n"));
        assert_eq!(gunzip(&two).unwrap(), b"a,b\n1,2\n");
        let mut junk = gz(b"a,b\n1,2\n");
        let at = junk.len();
        junk.extend_from_slice(b"garbage");
        let e = gunzip(&junk).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "7 byte(s) after the end of the compressed data, at offset {at}"
            )),
            "{e}"
        );
        // Junk that starts like a member but is not one.
        let mut bad = gz(b"x\n");
        bad.extend_from_slice(&[0x1f, 0x8b, 0, 0]);
        assert!(gunzip(&bad).is_err());
    }

    #[test]
    fn capped_reads_stop_at_the_cap() {
        let data = vec![7u8; 200_000];
        assert_eq!(
            read_capped(&data[..], 200_000, 0).unwrap().unwrap().len(),
            200_000
        );
        assert!(read_capped(&data[..], 199_999, 0).unwrap().is_none());
        let v = read_capped(&data[..], 1 << 40, 200_000).unwrap().unwrap();
        assert_eq!(v.capacity(), 200_001);
    }

    #[test]
    fn control_characters_in_paths_are_escaped() {
        assert_eq!(shown(Path::new("a\nb.csv")), "a\\nb.csv");
        assert_eq!(shown(Path::new("plain.csv")), "plain.csv");
    }

    #[test]
    fn budget_messages_say_what_to_do() {
        let b = Budget::from_limit(Some(100 << 20));
        let e = b.check("f.npy", 1 << 40, "x").unwrap_err().to_string();
        assert_eq!(
            e,
            "f.npy: loading it needs 1.0 TiB (x), above the memory limit of 100.0 MiB \
             (--max-memory); raise --max-memory if the machine has the memory"
        );
        assert!(b.check("f", 100 << 20, "x").is_ok());
        assert_eq!(fmt_need(u128::MAX), "more than 1 EiB");
        assert_eq!(
            super::super::sizes::product(&[u64::MAX, u64::MAX, 8]),
            u128::MAX
        );
    }
}
