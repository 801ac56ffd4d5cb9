//! A reader of the Thrift compact protocol, for the Parquet footer and page
//! headers that meanscape checks before the parquet crate reads them
//! (parquet_scan.rs). It never allocates from a declared size: every
//! string and list length is checked against the bytes left, and values of
//! fields it does not know are skipped with an explicit stack of bounded
//! depth, not by recursion.
//!
//! The encoding: <https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md>.

/// Compact-protocol type codes.
pub(crate) const TRUE: u8 = 1;
pub(crate) const FALSE: u8 = 2;
pub(crate) const BYTE: u8 = 3;
pub(crate) const I16: u8 = 4;
pub(crate) const I32: u8 = 5;
pub(crate) const I64: u8 = 6;
pub(crate) const DOUBLE: u8 = 7;
pub(crate) const BINARY: u8 = 8;
pub(crate) const LIST: u8 = 9;
pub(crate) const SET: u8 = 10;
pub(crate) const MAP: u8 = 11;
pub(crate) const STRUCT: u8 = 12;

/// How deep structs, lists and maps may nest in a value that is skipped
/// (what Parquet defines nests 4 deep at most).
pub(crate) const MAX_DEPTH: usize = 64;

pub(crate) type Result<T> = std::result::Result<T, String>;

/// A position in a buffer of compact-protocol data.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes read so far.
    pub fn pos(&self) -> usize {
        self.pos
    }

    fn left(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn byte(&mut self) -> Result<u8> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or("the metadata ends in the middle of a value")?;
        self.pos += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                break;
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a varint in the metadata is too long".into())
    }

    pub fn i64(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    pub fn i32(&mut self) -> Result<i32> {
        i32::try_from(self.i64()?).map_err(|_| "an i32 in the metadata is out of range".into())
    }

    /// A string or binary value, its length checked against the bytes left.
    pub fn binary(&mut self) -> Result<&'a [u8]> {
        let n = self.varint()?;
        if n > self.left() as u64 {
            return Err(format!(
                "a string declares {n} bytes where {} are left",
                self.left()
            ));
        }
        let s = &self.buf[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    /// A list or set header: the element type and the count, which is
    /// checked against the bytes left (every element takes one at least).
    pub fn list(&mut self) -> Result<(u8, usize)> {
        let b = self.byte()?;
        let n = match b >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        let elem = b & 0x0f;
        let width = if elem == DOUBLE { 8 } else { 1 };
        if n.saturating_mul(width) > self.left() as u64 {
            return Err(format!(
                "a list declares {n} elements where {} bytes are left",
                self.left()
            ));
        }
        Ok((elem, n as usize))
    }

    fn map(&mut self) -> Result<(u8, u8, usize)> {
        let n = self.varint()?;
        if n == 0 {
            return Ok((0, 0, 0));
        }
        let kv = self.byte()?;
        if n.saturating_mul(2) > self.left() as u64 {
            return Err(format!(
                "a map declares {n} entries where {} bytes are left",
                self.left()
            ));
        }
        Ok((kv >> 4, kv & 0x0f, n as usize))
    }

    /// The next field header of a struct: its type and id, `None` at the
    /// end of the struct. `last` is the previous field's id.
    pub fn field(&mut self, last: &mut i16) -> Result<Option<(u8, i16)>> {
        let b = self.byte()?;
        if b == 0 {
            return Ok(None);
        }
        let ty = b & 0x0f;
        let id = match b >> 4 {
            0 => i16::try_from(self.i64()?).map_err(|_| "a field id is out of range")?,
            d => last
                .checked_add(i16::from(d))
                .ok_or("a field id is out of range")?,
        };
        *last = id;
        Ok(Some((ty, id)))
    }

    /// Reads the fields of a struct (after its start), handing each to
    /// `f` with its type; those `f` does not take (it returns false) are
    /// skipped.
    pub fn fields(&mut self, mut f: impl FnMut(&mut Self, u8, i16) -> Result<bool>) -> Result<()> {
        let mut last = 0;
        while let Some((ty, id)) = self.field(&mut last)? {
            if !f(self, ty, id)? {
                self.skip(ty, false)?;
            }
        }
        Ok(())
    }

    /// Skips a value of type `ty`; `in_list` for an element of a list or
    /// map, where a boolean takes a byte (in a struct it is in the field
    /// header). Iterative, with at most [`MAX_DEPTH`] levels.
    pub fn skip(&mut self, ty: u8, in_list: bool) -> Result<()> {
        /// What is left of a container being skipped.
        enum Open {
            Struct(i16),
            /// Element type, elements left.
            List(u8, usize),
            /// Key and value types, keys and values left (two per entry).
            Map(u8, u8, usize),
        }
        let mut stack: Vec<Open> = Vec::new();
        let mut next = Some((ty, in_list));
        loop {
            if let Some((ty, in_list)) = next.take() {
                match ty {
                    TRUE | FALSE if !in_list => {}
                    TRUE | FALSE | BYTE => {
                        self.byte()?;
                    }
                    I16 | I32 | I64 => {
                        self.varint()?;
                    }
                    DOUBLE => {
                        if self.left() < 8 {
                            return Err("the metadata ends in the middle of a value".into());
                        }
                        self.pos += 8;
                    }
                    BINARY => {
                        self.binary()?;
                    }
                    LIST | SET | MAP | STRUCT => {
                        if stack.len() >= MAX_DEPTH {
                            return Err(format!(
                                "the metadata nests more than {MAX_DEPTH} levels deep"
                            ));
                        }
                        stack.push(match ty {
                            STRUCT => Open::Struct(0),
                            MAP => {
                                let (k, v, n) = self.map()?;
                                Open::Map(k, v, 2 * n)
                            }
                            _ => {
                                let (e, n) = self.list()?;
                                Open::List(e, n)
                            }
                        });
                    }
                    t => return Err(format!("unknown Thrift type {t} in the metadata")),
                }
            }
            match stack.last_mut() {
                None => return Ok(()),
                Some(Open::Struct(last)) => match self.field(last)? {
                    Some((ty, _)) => next = Some((ty, false)),
                    None => {
                        stack.pop();
                    }
                },
                Some(Open::List(e, left)) => {
                    if *left == 0 {
                        stack.pop();
                    } else {
                        *left -= 1;
                        next = Some((*e, true));
                    }
                }
                Some(Open::Map(k, v, left)) => {
                    if *left == 0 {
                        stack.pop();
                    } else {
                        next = Some((if *left % 2 == 0 { *k } else { *v }, true));
                        *left -= 1;
                    }
                }
            }
        }
    }
}

/// Checks that a field has the type its id calls for.
pub(crate) fn expect(ty: u8, want: u8, what: &str) -> Result<()> {
    let same = ty == want || (want == TRUE && ty == FALSE);
    if same {
        Ok(())
    } else {
        Err(format!("{what} has Thrift type {ty}, not {want}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_zigzag() {
        let mut r = Reader::new(&[0x03, 0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert_eq!(r.i64().unwrap(), -2);
        assert_eq!(r.i64().unwrap(), 64);
        assert_eq!(r.i64().unwrap(), -(1 << 31));
        // Eleven continuation bytes are refused, not shifted past 64 bits.
        let mut r = Reader::new(&[0xff; 11]);
        assert!(r.i64().is_err());
    }

    #[test]
    fn lengths_are_checked_against_the_bytes_left() {
        // A string of 2^31 bytes in a buffer of 6.
        let e = Reader::new(&[0x80, 0x80, 0x80, 0x80, 0x08, b'x'])
            .binary()
            .unwrap_err();
        assert!(e.contains("2147483648 bytes"), "{e}");
        // A list of 2^31 structs.
        let e = Reader::new(&[0xfc, 0x80, 0x80, 0x80, 0x80, 0x08, 0])
            .list()
            .unwrap_err();
        assert!(e.contains("2147483648 elements"), "{e}");
    }

    #[test]
    fn skipping_is_iterative_and_bounded() {
        // 100 000 structs, each the first field (id 1) of the one before.
        let mut deep = vec![0x1c; 100_000];
        deep.extend(vec![0; 100_000]);
        let e = Reader::new(&deep).skip(STRUCT, false).unwrap_err();
        assert!(e.contains("64 levels"), "{e}");
        // 60 levels are fine, and the reader ends after them.
        let mut ok = vec![0x1c; 60];
        ok.extend(vec![0; 61]);
        let mut r = Reader::new(&ok);
        r.skip(STRUCT, false).unwrap();
        assert_eq!(r.pos(), ok.len());
    }

    #[test]
    fn fields_skip_what_is_not_taken() {
        // {1: i32 7, 2: list<i64> [1, 2], 3: true, 4: string "ab"}
        let buf = [0x15, 14, 0x19, 0x26, 2, 4, 0x11, 0x18, 2, b'a', b'b', 0];
        let mut r = Reader::new(&buf);
        let mut seen = Vec::new();
        r.fields(|r, ty, id| {
            seen.push((id, ty));
            if id == 1 {
                assert_eq!(r.i32()?, 7);
                return Ok(true);
            }
            Ok(false)
        })
        .unwrap();
        assert_eq!(seen, [(1, I32), (2, LIST), (3, TRUE), (4, BINARY)]);
        assert_eq!(r.pos(), buf.len());
    }
}
