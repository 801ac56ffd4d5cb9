//! What is decompressed before the parquet crate does: the pages it would
//! decompress without a bound, into a small buffer, and the delta-encoded
//! pages whose value counts it allocates from.

use super::*;

impl Pages {
    /// Decompresses the pages the parquet crate would decompress without
    /// a bound, into a small buffer, stopping past the declared size: each
    /// must decompress to exactly what it declares.
    pub fn trial(&self, file: &[u8]) -> Result<()> {
        use std::io::Read;
        let mut buf = vec![0u8; 64 << 10];
        for t in &self.trials {
            let part = &file[t.at.clone()];
            let mut dec: Box<dyn Read> = if t.codec == GZIP {
                Box::new(flate2::read::MultiGzDecoder::new(part))
            } else {
                Box::new(lz4_flex::frame::FrameDecoder::new(part))
            };
            let mut got = 0u64;
            loop {
                match dec.read(&mut buf) {
                    Ok(0) => break,
                    Ok(k) => {
                        got += k as u64;
                        if got > t.expect {
                            return Err(format!(
                                "{}: {} data decompresses to more than the {} bytes it declares",
                                t.what,
                                codec_name(t.codec),
                                t.expect
                            ));
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        return Err(format!(
                            "{}: not {} data ({e})",
                            t.what,
                            codec_name(t.codec)
                        ));
                    }
                }
            }
            if got != t.expect {
                return Err(format!(
                    "{}: {} data of {got} bytes where the page declares {}",
                    t.what,
                    codec_name(t.codec),
                    t.expect
                ));
            }
        }
        for d in &self.deltas {
            let part = &file[d.at.clone()];
            let plain;
            let bytes = if d.codec == UNCOMPRESSED {
                part
            } else {
                plain =
                    decompress(part, d.codec, d.expect).map_err(|e| format!("{}: {e}", d.what))?;
                &plain[..]
            };
            delta_counts(bytes, d).map_err(|e| format!("{}: {e}", d.what))?;
        }
        Ok(())
    }
}

/// A page's bytes decompressed, `expect` of them (what the parquet crate
/// will decompress them to; confirmed already where it can be).
fn decompress(part: &[u8], codec: i32, expect: usize) -> Result<Vec<u8>> {
    use std::io::Read;
    let bad = |e: String| format!("not {} data ({e})", codec_name(codec));
    let take = |r: &mut dyn Read| -> Result<Vec<u8>> {
        let mut v = Vec::new();
        r.take(expect as u64)
            .read_to_end(&mut v)
            .map_err(|e| bad(e.to_string()))?;
        Ok(v)
    };
    let v = match codec {
        SNAPPY => snap::raw::Decoder::new()
            .decompress_vec(part)
            .map_err(|e| bad(e.to_string()))?,
        GZIP => take(&mut flate2::read::MultiGzDecoder::new(part))?,
        ZSTD => zstd::bulk::decompress(part, expect).map_err(|e| bad(e.to_string()))?,
        LZ4_HADOOP if is_lz4_frame(part) => take(&mut lz4_flex::frame::FrameDecoder::new(part))?,
        LZ4_HADOOP => match lz4_hadoop(part, expect) {
            Some(v) => v,
            None => lz4_flex::block::decompress(part, expect).map_err(|e| bad(e.to_string()))?,
        },
        _ => lz4_flex::block::decompress(part, expect).map_err(|e| bad(e.to_string()))?,
    };
    if v.len() != expect {
        return Err(format!(
            "{} data of {} bytes where the page declares {expect}",
            codec_name(codec),
            v.len()
        ));
    }
    Ok(v)
}

/// The Hadoop LZ4 framing: blocks each after their sizes (big-endian).
fn lz4_hadoop(mut part: &[u8], expect: usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    while !part.is_empty() {
        let be = |k: usize| Some(u32::from_be_bytes(part.get(k..k + 4)?.try_into().ok()?) as usize);
        let (d, c) = (be(0)?, be(4)?);
        let block = part.get(8..8usize.checked_add(c)?)?;
        let start = out.len();
        if d > expect - start {
            return None;
        }
        out.resize(start + d, 0);
        if lz4_flex::block::decompress_into(block, &mut out[start..]).ok()? != d {
            return None;
        }
        part = &part[8 + c..];
    }
    Some(out)
}

fn vlq(b: &[u8], at: &mut usize) -> Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let x = *b.get(*at).ok_or("a delta header runs past the page")?;
        *at += 1;
        v |= u64::from(x & 0x7f) << shift;
        if x & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("a delta header holds a varint too long".into())
}

/// Checks the value counts of a delta-encoded byte-array page against the
/// page's: the parquet crate allocates a length per value they declare.
fn delta_counts(b: &[u8], d: &Delta) -> Result<()> {
    let mut at = 0usize;
    if let Some((repeated, max_def, def_encoding)) = d.levels {
        let rle = |at: &mut usize| -> Result<()> {
            let len = b
                .get(*at..at.saturating_add(4))
                .map(|l| u32::from_le_bytes(l.try_into().expect("4 bytes")) as usize)
                .ok_or("its levels run past the page")?;
            *at = at.saturating_add(4 + len);
            Ok(())
        };
        if repeated {
            rle(&mut at)?;
        }
        if max_def > 0 {
            match def_encoding {
                RLE => rle(&mut at)?,
                BIT_PACKED => {
                    let bits = u64::from(32 - max_def.leading_zeros());
                    at = at.saturating_add((d.num_values * bits).div_ceil(8) as usize);
                }
                e => return Err(format!("definition levels in encoding {e}")),
            }
        }
    }
    let header = |at: &mut usize| -> Result<(u64, u64, u64)> {
        let block = vlq(b, at)?;
        let minis = vlq(b, at)?;
        let count = vlq(b, at)?;
        vlq(b, at)?;
        let valid = block > 0
            && block % 128 == 0
            && minis > 0
            && block % minis == 0
            && (block / minis) % 32 == 0;
        if !valid {
            return Err(format!("a delta block of {block} values in {minis} parts"));
        }
        if count > d.num_values {
            return Err(format!(
                "its delta encoding declares {count} values where the page has {}",
                d.num_values
            ));
        }
        Ok((block / minis, minis, count))
    };
    let (per_mini, minis, count) = header(&mut at)?;
    if d.prefixed {
        // The prefix lengths' blocks, to reach the suffixes' header.
        let mut left = count.saturating_sub(1);
        while left > 0 {
            vlq(b, &mut at)?;
            let end = at.saturating_add(usize::try_from(minis).unwrap_or(usize::MAX));
            let widths = b.get(at..end).ok_or("a delta block runs past the page")?;
            at = end;
            for &w in widths {
                if left == 0 {
                    break;
                }
                if w > 32 {
                    return Err(format!("a delta bit width of {w}"));
                }
                let bytes = u64::from(w).saturating_mul(per_mini) / 8;
                at = at.saturating_add(usize::try_from(bytes).unwrap_or(usize::MAX));
                left = left.saturating_sub(per_mini);
            }
        }
        header(&mut at)?;
    }
    Ok(())
}
