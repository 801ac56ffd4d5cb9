//! The IDX header: recognising an IDX file and the length it declares,
//! which the input layer needs before the whole file is read.

use super::sizes::product;

/// Whether `bytes` (already decompressed) start like an IDX file.
pub(crate) fn looks_like_idx(bytes: &[u8]) -> bool {
    bytes.len() >= 4
        && bytes[0] == 0
        && bytes[1] == 0
        && matches!(bytes[2], 0x08 | 0x09 | 0x0B | 0x0C | 0x0D | 0x0E)
        && bytes[3] >= 1
}

/// The header of an IDX array.
pub(crate) struct Header {
    pub(crate) code: u8,
    pub(crate) dims: Vec<u64>,
    /// Bytes before the values.
    pub(crate) head: usize,
    /// Bytes per value.
    pub(crate) size: u64,
}

impl Header {
    /// Bytes of values the dimensions call for (saturating: compared with
    /// what is there, an absurd count is simply more).
    pub(crate) fn data_len(&self) -> u128 {
        product(&self.dims).saturating_mul(u128::from(self.size))
    }
}

/// Reads the header from the first bytes; `None` if they do not hold it all.
pub(crate) fn header(bytes: &[u8]) -> Option<Header> {
    if !looks_like_idx(bytes) {
        return None;
    }
    let (code, ndim) = (bytes[2], bytes[3] as usize);
    let head = 4 + 4 * ndim;
    let raw = bytes.get(4..head)?;
    let dims = raw
        .chunks_exact(4)
        .map(|b| u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
        .collect();
    let size = match code {
        0x08 | 0x09 => 1,
        0x0B => 2,
        0x0C | 0x0D => 4,
        _ => 8,
    };
    Some(Header {
        code,
        dims,
        head,
        size,
    })
}

/// The whole length (header and values) the header at the start of
/// `bytes` declares, if the header is complete; saturates at `u64::MAX`.
pub(crate) fn declared_len(bytes: &[u8]) -> Option<u64> {
    let h = header(bytes)?;
    let total = h.data_len().saturating_add(h.head as u128);
    Some(u64::try_from(total).unwrap_or(u64::MAX))
}
