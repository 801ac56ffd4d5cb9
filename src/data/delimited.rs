//! Delimited text: comma, tab, semicolon or whitespace separated values,
//! with or without a header row, with or without a label column.
//!
//! The delimiter and the header are detected from the first lines; quoted
//! fields, a UTF-8 byte-order mark, CRLF and CR-only (old Mac) line endings
//! and blank lines are handled. Every error names the origin, the 1-based line as an editor
//! shows it, and where there is one the 1-based column and its name.

use super::input::Budget;
use super::sizes::NAME_BYTES;
use super::{
    Dataset, LabelChoice, Labels, LoadOptions, Missing, auto_label_column, default_feature_names,
    left_out_column, left_out_note,
};
use crate::error::{Error, Result};
use ndarray::Array2;
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::ControlFlow;

/// How the fields of a line are separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delimiter {
    /// A single byte: `,`, `\t` or `;` (read with the `csv` crate).
    Byte(u8),
    /// Runs of spaces and tabs (split by hand; no quoting).
    Whitespace,
}

/// Candidates tried in order of preference when several fit.
const CANDIDATES: [u8; 3] = [b'\t', b';', b','];
/// How many non-blank lines the detection looks at.
const SAMPLE_LINES: usize = 20;

/// Reads delimited text into a dataset. `origin` (a path or `bundled:NAME`)
/// starts every error message.
pub fn parse(text: &str, origin: &str, opts: &LoadOptions) -> Result<Dataset> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text: Cow<str> = if has_lone_cr(text.as_bytes()) {
        let mut bytes = text.as_bytes().to_vec();
        lone_cr_to_lf(&mut bytes);
        Cow::Owned(String::from_utf8(bytes).expect("CR to LF keeps UTF-8"))
    } else {
        Cow::Borrowed(text)
    };
    let text: &str = &text;
    if text.trim().is_empty() {
        return Err(Error::Data(format!("{origin}: empty file")));
    }
    let delim = detect_delimiter(text);
    let decimal_comma = delim == Delimiter::Byte(b';');
    let budget = Budget::of(opts);
    check_line_costs(text, delim, origin, &budget)?;

    // The first two rows decide whether there is a header.
    let mut first: Vec<(usize, Vec<String>)> = Vec::with_capacity(2);
    for_each_row(text, delim, origin, &mut |line, f| {
        first.push((
            line,
            (0..f.count()).map(|i| f.field(i).to_string()).collect(),
        ));
        Ok(if first.len() >= 2 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    })?;
    let Some((first_line, row0)) = first.first().cloned() else {
        return Err(Error::Data(format!("{origin}: empty file")));
    };
    let row1 = first.get(1).map(|(_, r)| r.as_slice());
    let has_header = looks_like_header(&row0, row1, decimal_comma);

    let header: Option<Vec<String>> = has_header.then(|| {
        let mut names: Vec<String> = row0.iter().map(|s| s.trim().to_string()).collect();
        // `numpy.savetxt(..., header=...)` writes "# a b c".
        if delim == Delimiter::Whitespace
            && let Some(first_name) = names.first_mut()
            && let Some(rest) = first_name.strip_prefix('#')
        {
            *first_name = rest.trim().to_string();
            if first_name.is_empty() {
                names.remove(0);
            }
        }
        names
    });
    let ncols = header.as_ref().map_or(row0.len(), |h| h.len());
    if has_header && row1.is_none() {
        return Err(Error::Data(format!("{origin}: header only, no data rows")));
    }

    let label_col = choose_label(&opts.label, header.as_deref(), ncols)
        .map_err(|e| Error::Data(format!("{origin}: {e}")))?;
    if label_col.is_some() && ncols == 1 {
        let what = header
            .as_ref()
            .map_or_else(|| "column 1".to_string(), |h| format!("column {:?}", h[0]));
        return Err(Error::Data(format!(
            "{origin}: no feature columns: the only column ({what}) holds the labels"
        )));
    }

    // --label none: the column named like labels is no feature either.
    let left_out = header.as_deref().and_then(|h| left_out_column(opts, h));
    if let (Some(j), Some(h)) = (left_out, &header)
        && ncols == 1
    {
        return Err(Error::Data(format!(
            "{origin}: no feature columns: the only column ({:?}) holds labels, left out with \
             --label none (add --keep-label-column to cluster on it)",
            h[j]
        )));
    }
    // --ignore-non-numeric: the columns whose first data row is text.
    let mut skip = vec![false; ncols];
    if opts.ignore_non_numeric {
        let data_row = if has_header {
            row1
        } else {
            Some(row0.as_slice())
        };
        for (j, cell) in data_row.unwrap_or(&[]).iter().enumerate().take(ncols) {
            skip[j] = Some(j) != label_col
                && Some(j) != left_out
                && classify(cell, decimal_comma) == Cell::Text;
        }
    }
    let skipped: Vec<usize> = (0..ncols).filter(|&j| skip[j]).collect();
    if let Some(j) = left_out {
        skip[j] = true;
    }
    let p =
        ncols - usize::from(label_col.is_some()) - skipped.len() - usize::from(left_out.is_some());
    // The values must fit beside the text; names cost a little per column.
    budget.check(
        origin,
        text.len() as u128 + u128::from(NAME_BYTES) * ncols as u128,
        &format!("the text, and names for {ncols} columns"),
    )?;
    let max_values = (budget.limit.saturating_sub(text.len() as u64) / 8)
        .saturating_sub(NAME_BYTES / 8 * ncols as u64);
    // The capacity hint counts lines, but blank lines hold no values and a
    // value takes at least two bytes of text with its separator: a short
    // file of blank lines under a wide header asks for little.
    let estimated_rows = text.bytes().filter(|&b| b == b'\n').count() + 1;
    let hint = estimated_rows
        .saturating_mul(p)
        .min(text.len() / 2 + p)
        .min(usize::try_from(max_values).unwrap_or(usize::MAX));
    let mut data = Vec::new();
    data.try_reserve_exact(hint)
        .map_err(|_| out_of_memory(origin, hint))?;
    let mut b = Builder {
        origin,
        missing: opts.missing,
        ncols,
        label_col,
        skip: &skip,
        p,
        auto_label: opts.label == LabelChoice::Auto,
        header: header.as_deref(),
        reference_line: first_line,
        decimal_comma,
        data,
        max_values,
        budget,
        labels: label_col.map(|_| LabelBuilder::default()),
        nrows: 0,
        used_decimal_comma: false,
    };
    for_each_row(text, delim, origin, &mut |line, f| {
        if !(has_header && line == first_line) {
            b.row(line, f)?;
        }
        Ok(ControlFlow::Continue(()))
    })?;
    if b.nrows == 0 {
        return Err(Error::Data(format!("{origin}: no data rows")));
    }

    let feature_names: Vec<String> = match &header {
        Some(h) => h
            .iter()
            .enumerate()
            .filter(|&(j, _)| Some(j) != label_col && !skip[j])
            .enumerate()
            .map(|(k, (_, name))| {
                if name.is_empty() {
                    format!("f{}", k + 1)
                } else {
                    name.clone()
                }
            })
            .collect(),
        None => default_feature_names(p),
    };
    let mut notes = Vec::new();
    if !skipped.is_empty() {
        let listed: Vec<String> = skipped
            .iter()
            .map(|&j| match &header {
                Some(h) if !h[j].is_empty() => format!("'{}'", h[j]),
                _ => format!("column {}", j + 1),
            })
            .collect();
        notes.push(format!(
            "ignored {} non-numeric column(s) (text on the first data row): {}",
            skipped.len(),
            listed.join(", ")
        ));
    }
    let left_out_name = left_out.and_then(|j| header.as_ref().map(|h| h[j].clone()));
    if let Some(name) = &left_out_name {
        notes.push(left_out_note(name));
    }
    if b.used_decimal_comma {
        notes.push("read numbers with a decimal comma (semicolon-separated file)".to_string());
    }
    let nrows = b.nrows;
    let labels = b.labels.take().map(LabelBuilder::finish);
    let x = Array2::from_shape_vec((nrows, p), std::mem::take(&mut b.data))
        .expect("every row pushes p values");
    let mut ds = Dataset::new(short_name(origin), origin, x);
    ds.feature_names = feature_names;
    ds.labels = labels;
    ds.notes = notes;
    ds.label_left_out = left_out_name;
    Ok(ds)
}

/// What a field of the first row costs while the header is detected: its
/// text copied, its class, its name.
const FIELD_BYTES: u64 = 96;
/// What a byte of the longest line may cost while it is split: a field
/// may be as short as its delimiter, and each has a bound and a slot.
const LINE_BYTE_COST: u64 = 32;

/// Refuses text whose first row or longest line would take more memory
/// to split than the budget leaves beside the text (20 MB of commas on
/// one line is 20 million fields).
fn check_line_costs(text: &str, delim: Delimiter, origin: &str, budget: &Budget) -> Result<()> {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let fields = match delim {
        Delimiter::Byte(d) => count_unquoted(first, d) + 1,
        Delimiter::Whitespace => first.split_ascii_whitespace().count(),
    } as u64;
    let longest = text.split('\n').map(str::len).max().unwrap_or(0) as u64;
    budget.check(
        origin,
        text.len() as u128
            + u128::from(fields * FIELD_BYTES)
            + u128::from(longest * LINE_BYTE_COST),
        &format!(
            "the text, its first row of {fields} fields and its longest line of {longest} bytes"
        ),
    )
}

fn out_of_memory(origin: &str, values: usize) -> Error {
    Error::Resource(format!(
        "{origin}: out of memory for {values} values; lower --max-memory"
    ))
}

/// Whether some CR is not followed by LF.
fn has_lone_cr(b: &[u8]) -> bool {
    b.iter()
        .enumerate()
        .any(|(i, &c)| c == b'\r' && b.get(i + 1) != Some(&b'\n'))
}

/// Turns every CR that is not followed by LF into LF, in place: old Mac
/// files end lines with CR alone, and the line counting (and splitting of
/// whitespace-separated rows) goes by LF.
pub(crate) fn lone_cr_to_lf(b: &mut [u8]) {
    for i in 0..b.len() {
        if b[i] == b'\r' && b.get(i + 1) != Some(&b'\n') {
            b[i] = b'\n';
        }
    }
}

/// `bundled:iris` → `iris`, `dir/data.csv` → `data`.
fn short_name(origin: &str) -> String {
    let base = origin
        .strip_prefix("bundled:")
        .unwrap_or(origin)
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(origin);
    match base.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => base.to_string(),
    }
}

// ---------------------------------------------------------------- detection

/// Counts `delim` on one line outside double quotes.
fn count_unquoted(line: &str, delim: u8) -> usize {
    let mut in_quotes = false;
    let mut n = 0;
    for &b in line.as_bytes() {
        if b == b'"' {
            in_quotes = !in_quotes;
        } else if b == delim && !in_quotes {
            n += 1;
        }
    }
    n
}

/// Picks the delimiter from the first non-blank lines: the first of tab,
/// semicolon, comma that occurs the same non-zero number of times on every
/// sampled line; else runs of whitespace if they split every line into the
/// same number (> 1) of fields; else the most frequent candidate on the first
/// line (ragged rows are then reported by line); else one column.
pub(crate) fn detect_delimiter(text: &str) -> Delimiter {
    let sample: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(SAMPLE_LINES)
        .collect();
    let Some(first) = sample.first() else {
        return Delimiter::Byte(b',');
    };
    for d in CANDIDATES {
        let n0 = count_unquoted(first, d);
        if n0 > 0 && sample.iter().all(|l| count_unquoted(l, d) == n0) {
            return Delimiter::Byte(d);
        }
    }
    let ws = |l: &str| l.split_ascii_whitespace().count();
    let w0 = ws(first);
    if w0 > 1 && sample.iter().all(|l| ws(l) == w0) {
        return Delimiter::Whitespace;
    }
    let best = CANDIDATES
        .iter()
        .map(|&d| (count_unquoted(first, d), d))
        .filter(|&(n, _)| n > 0)
        .max_by_key(|&(n, d)| (n, d == b','));
    match best {
        Some((_, d)) => Delimiter::Byte(d),
        None if w0 > 1 => Delimiter::Whitespace,
        None => Delimiter::Byte(b','),
    }
}

/// What one cell holds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cell {
    Number(f64),
    Missing(MissingKind),
    Text,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MissingKind {
    Empty,
    NotANumber,
    Infinite,
}

/// Spellings of a missing value besides empty cells, NaN and infinities
/// (which `f64::from_str` reads itself, in any case).
const NA_TOKENS: [&str; 5] = ["NA", "N/A", "#N/A", "null", "?"];

fn classify(raw: &str, decimal_comma: bool) -> Cell {
    let s = raw.trim_ascii();
    if s.is_empty() {
        return Cell::Missing(MissingKind::Empty);
    }
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Cell::Number(v),
        Ok(v) if v.is_nan() => Cell::Missing(MissingKind::NotANumber),
        Ok(_) => Cell::Missing(MissingKind::Infinite),
        Err(_) => {
            if NA_TOKENS.iter().any(|t| s.eq_ignore_ascii_case(t)) {
                Cell::Missing(MissingKind::NotANumber)
            } else if let Some(v) = decimal_comma.then(|| parse_decimal_comma(s)).flatten() {
                Cell::Number(v)
            } else {
                Cell::Text
            }
        }
    }
}

/// `1,5` → 1.5 (one comma, no point), for semicolon-separated files.
fn parse_decimal_comma(s: &str) -> Option<f64> {
    let bytes = s.as_bytes();
    if bytes.len() > 64
        || bytes.contains(&b'.')
        || bytes.iter().filter(|&&b| b == b',').count() != 1
    {
        return None;
    }
    let mut buf = [0u8; 64];
    for (dst, &src) in buf.iter_mut().zip(bytes) {
        *dst = if src == b',' { b'.' } else { src };
    }
    let v: f64 = std::str::from_utf8(&buf[..bytes.len()])
        .ok()?
        .parse()
        .ok()?;
    v.is_finite().then_some(v)
}

/// Whether the first row is a header: every cell is text (or empty, with at
/// least one text cell), or some column has text on the first row and a
/// number on the second while the first row's numbers (if any) look like
/// column indices (`0,1,2,…,label` as pandas writes an unnamed frame).
pub(crate) fn looks_like_header<S: AsRef<str>>(
    row0: &[S],
    row1: Option<&[S]>,
    decimal_comma: bool,
) -> bool {
    let c0: Vec<Cell> = row0
        .iter()
        .map(|s| classify(s.as_ref(), decimal_comma))
        .collect();
    let any_text = c0.contains(&Cell::Text);
    if !any_text {
        return false;
    }
    let all_text_or_empty = c0
        .iter()
        .all(|c| matches!(c, Cell::Text | Cell::Missing(MissingKind::Empty)));
    if all_text_or_empty {
        return true;
    }
    let Some(row1) = row1 else {
        return false;
    };
    let text_over_number = c0.iter().zip(row1).any(|(c, s)| {
        *c == Cell::Text && matches!(classify(s.as_ref(), decimal_comma), Cell::Number(_))
    });
    let numbers_are_indices = c0.iter().enumerate().all(|(j, c)| match *c {
        Cell::Number(v) => {
            v.fract() == 0.0 && (v - j as f64).abs() <= 1.0 && !row0[j].as_ref().contains('.')
        }
        _ => true,
    });
    text_over_number && numbers_are_indices
}

/// The 0-based label column for `choice`, given the header names if any.
pub(crate) fn choose_label(
    choice: &LabelChoice,
    header: Option<&[String]>,
    ncols: usize,
) -> std::result::Result<Option<usize>, String> {
    match choice {
        LabelChoice::None => Ok(None),
        LabelChoice::Auto => Ok(header.and_then(auto_label_column)),
        LabelChoice::Index(i) => {
            if *i < ncols {
                Ok(Some(*i))
            } else {
                Err(format!(
                    "label column index {i} is out of range: the file has {ncols} column(s), \
                     indices 0 to {} (0-based)",
                    ncols.saturating_sub(1)
                ))
            }
        }
        LabelChoice::Name(name) => {
            let Some(h) = header else {
                return Err(format!(
                    "no header row, so no column is named {name:?}; give the label column \
                     as a 0-based index instead"
                ));
            };
            let wanted = name.trim();
            h.iter()
                .position(|n| n == wanted)
                .or_else(|| h.iter().position(|n| n.eq_ignore_ascii_case(wanted)))
                .map(Some)
                .ok_or_else(|| {
                    format!(
                        "no column named {name:?}; the columns are {}",
                        list_names(h)
                    )
                })
        }
    }
}

/// `"a", "b", "c"`, shortened past 20 names.
pub(crate) fn list_names<S: AsRef<str>>(names: &[S]) -> String {
    const SHOWN: usize = 20;
    let mut s = names
        .iter()
        .take(SHOWN)
        .map(|n| format!("{:?}", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(", … ({} in all)", names.len()));
    }
    s
}

/// The offending text as it will be quoted in a message.
fn quote(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() > MAX {
        let cut: String = s.chars().take(MAX).collect();
        format!("{cut:?}…")
    } else {
        format!("{s:?}")
    }
}

// ---------------------------------------------------------------- reading

/// The fields of one row, however it was split.
trait Fields {
    fn count(&self) -> usize;
    fn field(&self, i: usize) -> &str;
}

impl Fields for csv::StringRecord {
    fn count(&self) -> usize {
        self.len()
    }
    fn field(&self, i: usize) -> &str {
        &self[i]
    }
}

impl<S: AsRef<str>> Fields for Vec<S> {
    fn count(&self) -> usize {
        self.len()
    }
    fn field(&self, i: usize) -> &str {
        self[i].as_ref()
    }
}

type RowFn<'f> = dyn FnMut(usize, &dyn Fields) -> Result<ControlFlow<()>> + 'f;

/// Calls `f(line, fields)` for each non-blank row, with the 1-based line on
/// which the row starts.
fn for_each_row(text: &str, delim: Delimiter, origin: &str, f: &mut RowFn<'_>) -> Result<()> {
    match delim {
        Delimiter::Whitespace => {
            let mut fields: Vec<&str> = Vec::new();
            for (i, line) in text.split('\n').enumerate() {
                fields.clear();
                fields.extend(line.split_ascii_whitespace().map(strip_quotes));
                if fields.is_empty() {
                    continue;
                }
                if f(i + 1, &fields)?.is_break() {
                    break;
                }
            }
        }
        Delimiter::Byte(d) => {
            let mut rdr = csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .delimiter(d)
                .from_reader(text.as_bytes());
            let mut rec = csv::StringRecord::new();
            let mut lines = LineCounter::new(text);
            loop {
                match rdr.read_record(&mut rec) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        let line = e
                            .position()
                            .map(|p| lines.line_at(p.byte() as usize))
                            .map(|l| format!("line {l}: "))
                            .unwrap_or_default();
                        return Err(Error::Data(format!("{origin}: {line}{e}")));
                    }
                }
                let start = rec.position().map_or(0, |p| p.byte() as usize);
                let line = lines.line_at(start);
                if rec.len() == 1 && rec[0].trim().is_empty() {
                    continue; // a line of spaces
                }
                if f(line, &rec)?.is_break() {
                    break;
                }
            }
        }
    }
    Ok(())
}

fn strip_quotes(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(s)
}

/// Turns the byte offsets the csv reader reports into line numbers, in one
/// forward pass over the text.
struct LineCounter<'t> {
    bytes: &'t [u8],
    pos: usize,
    line: usize,
}

impl<'t> LineCounter<'t> {
    fn new(text: &'t str) -> Self {
        LineCounter {
            bytes: text.as_bytes(),
            pos: 0,
            line: 1,
        }
    }

    /// The line of the record whose reading started at byte `offset` (the
    /// reader skips line ends and blank lines before a record, so do we).
    fn line_at(&mut self, offset: usize) -> usize {
        let mut start = offset.min(self.bytes.len());
        while start < self.bytes.len() && matches!(self.bytes[start], b'\r' | b'\n') {
            start += 1;
        }
        if start >= self.pos {
            self.line += self.bytes[self.pos..start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            self.pos = start;
        } else {
            // Not expected (offsets only grow); count from the beginning.
            self.line = 1 + self.bytes[..start].iter().filter(|&&b| b == b'\n').count();
            self.pos = start;
        }
        self.line
    }
}

// ---------------------------------------------------------------- building

/// Dense label ids from label text, `1` and `1.0` one class (shared with
/// the columnar reader).
#[derive(Default)]
pub(crate) struct LabelBuilder {
    /// Trimmed text as written → class id.
    by_raw: HashMap<String, usize>,
    /// Canonical spelling (`1` for `1.0`) → class id.
    by_canon: HashMap<String, usize>,
    ids: Vec<usize>,
    names: Vec<String>,
}

impl LabelBuilder {
    pub(crate) fn push(&mut self, raw: &str) {
        let id = match self.by_raw.get(raw) {
            Some(&id) => id,
            None => {
                let canon = canonical_label(raw);
                let next = self.names.len();
                let id = *self.by_canon.entry(canon.clone()).or_insert(next);
                if id == next {
                    self.names.push(canon);
                }
                self.by_raw.insert(raw.to_string(), id);
                id
            }
        };
        self.ids.push(id);
    }

    pub(crate) fn finish(self) -> Labels {
        Labels {
            ids: self.ids,
            names: self.names,
        }
    }
}

/// Numeric labels are spelled as [`Labels::from_codes`] does (`1`, not
/// `1.0` or `+1`), so that `1` and `1.0` are the same class.
fn canonical_label(raw: &str) -> String {
    match raw.parse::<f64>() {
        Ok(c) if c.is_finite() => {
            if c.fract() == 0.0 && c.abs() < 1e15 {
                format!("{}", c as i64)
            } else {
                format!("{c}")
            }
        }
        _ => raw.to_string(),
    }
}

struct Builder<'a> {
    origin: &'a str,
    missing: Missing,
    ncols: usize,
    label_col: Option<usize>,
    /// Columns left out (`--ignore-non-numeric`).
    skip: &'a [bool],
    /// Values per row.
    p: usize,
    auto_label: bool,
    header: Option<&'a [String]>,
    /// The header's line, or the first data line without a header.
    reference_line: usize,
    decimal_comma: bool,
    data: Vec<f64>,
    /// How many values the memory budget allows.
    max_values: u64,
    budget: Budget,
    labels: Option<LabelBuilder>,
    nrows: usize,
    used_decimal_comma: bool,
}

impl Builder<'_> {
    fn row(&mut self, line: usize, f: &dyn Fields) -> Result<()> {
        let k = f.count();
        if k != self.ncols {
            let like = if self.header.is_some() {
                format!("like the header (line {})", self.reference_line)
            } else {
                format!("like line {}", self.reference_line)
            };
            return Err(Error::Data(format!(
                "{}: line {line}: {k} field{}, expected {} {like}",
                self.origin,
                if k == 1 { "" } else { "s" },
                self.ncols
            )));
        }
        self.make_room(line, self.p)?;
        for j in 0..k {
            if self.skip[j] {
                continue;
            }
            let raw = f.field(j);
            if Some(j) == self.label_col {
                let t = raw.trim();
                if t.is_empty() {
                    return Err(self.cell_error(line, j, "empty label"));
                }
                self.labels.as_mut().expect("label column").push(t);
                continue;
            }
            // Fast path: a plain number.
            if let Ok(v) = raw.trim_ascii().parse::<f64>()
                && v.is_finite()
            {
                self.data.push(v);
                continue;
            }
            match classify(raw, self.decimal_comma) {
                Cell::Number(v) => {
                    self.used_decimal_comma = true;
                    self.data.push(v);
                }
                Cell::Missing(kind) => {
                    if self.missing == Missing::Error {
                        let t = raw.trim();
                        let what = match kind {
                            MissingKind::Empty => "empty cell".to_string(),
                            MissingKind::NotANumber => format!("{} is a missing value", quote(t)),
                            MissingKind::Infinite => format!("{} is not a finite number", quote(t)),
                        };
                        return Err(self.cell_error(
                            line,
                            j,
                            &format!("{what} (use --impute mean or --drop-incomplete)"),
                        ));
                    }
                    self.data.push(f64::NAN);
                }
                Cell::Text => {
                    let mut what = format!("{} is not a number", quote(raw.trim()));
                    // Text on the first data row may be a label column
                    // nobody named; after numbers it is just a bad cell.
                    if self.auto_label && self.label_col.is_none() && self.nrows == 0 {
                        let arg = match self.header {
                            Some(h)
                                if h[j]
                                    .chars()
                                    .all(|c| c.is_alphanumeric() || "_-.".contains(c))
                                    && !h[j].is_empty() =>
                            {
                                h[j].clone()
                            }
                            Some(h) if !h[j].is_empty() => format!("{:?}", h[j]),
                            _ => format!("{j} (a 0-based index)"),
                        };
                        what.push_str(&format!(
                            " (if this column holds class labels, use --label {arg})"
                        ));
                    }
                    return Err(self.cell_error(line, j, &what));
                }
            }
        }
        self.nrows += 1;
        Ok(())
    }

    /// Room for one more row of `p` values, growing by doubling up to the
    /// budget, and refusing past it.
    fn make_room(&mut self, line: usize, p: usize) -> Result<()> {
        let len = self.data.len();
        if len + p <= self.data.capacity() {
            return Ok(());
        }
        if (len + p) as u64 > self.max_values {
            return Err(Error::Resource(format!(
                "{}: line {line}: the values up to this row need more than the memory limit of {}{}",
                self.origin,
                crate::memory::fmt_bytes(self.budget.limit as f64),
                self.budget.advice()
            )));
        }
        let grown = (self.data.capacity().saturating_mul(2))
            .max(len + p)
            .min(usize::try_from(self.max_values).unwrap_or(usize::MAX));
        self.data
            .try_reserve_exact(grown - len)
            .map_err(|_| out_of_memory(self.origin, grown))
    }

    fn cell_error(&self, line: usize, j: usize, what: &str) -> Error {
        let name = match self.header {
            Some(h) if !h[j].is_empty() => format!(" ({:?})", h[j]),
            _ => String::new(),
        };
        Error::Data(format!(
            "{}: line {line}, column {}{name}: {what}",
            self.origin,
            j + 1
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> LoadOptions {
        LoadOptions::default()
    }

    fn err(text: &str, o: &LoadOptions) -> String {
        parse(text, "t.csv", o).unwrap_err().to_string()
    }

    #[test]
    fn detects_delimiters() {
        assert_eq!(detect_delimiter("a,b,c\n1,2,3\n"), Delimiter::Byte(b','));
        assert_eq!(
            detect_delimiter("a\tb\tc\n1\t2\t3\n"),
            Delimiter::Byte(b'\t')
        );
        assert_eq!(detect_delimiter("a;b;c\n1;2;3\n"), Delimiter::Byte(b';'));
        // Decimal commas inside a semicolon file.
        assert_eq!(
            detect_delimiter("1,5;2,25;3\n4,0;5,5;6\n"),
            Delimiter::Byte(b';')
        );
        assert_eq!(
            detect_delimiter("1.0  2.0   3.0\n4 5 6\n"),
            Delimiter::Whitespace
        );
        assert_eq!(
            detect_delimiter("  1.0\t 2.0 \n4 5\n"),
            Delimiter::Whitespace
        );
        // Quoted delimiters do not count.
        assert_eq!(
            detect_delimiter("\"a;b\",c\n\"x;y\",2\n1,\"p;q;r\"\n"),
            Delimiter::Byte(b',')
        );
        // Ragged: still comma, so the bad line can be reported.
        assert_eq!(detect_delimiter("1,2,3\n1,2\n"), Delimiter::Byte(b','));
        assert_eq!(detect_delimiter("1 2 3\n1 2\n"), Delimiter::Whitespace);
        // One column.
        assert_eq!(detect_delimiter("1\n2\n3\n"), Delimiter::Byte(b','));
        // Blank lines are ignored.
        assert_eq!(
            detect_delimiter("\n\n1\t2\n\n3\t4\n"),
            Delimiter::Byte(b'\t')
        );
    }

    #[test]
    fn detects_headers() {
        let h = |a: &[&str], b: Option<&[&str]>| looks_like_header(a, b, false);
        assert!(h(&["x", "y", "label"], Some(&["1", "2", "0"])));
        assert!(h(&["x", "y"], None));
        assert!(!h(&["1", "2", "3"], Some(&["4", "5", "6"])));
        // String labels without a header: column 3 is text on both rows.
        assert!(!h(
            &["5.1", "3.5", "setosa"],
            Some(&["4.9", "3.0", "setosa"])
        ));
        // pandas: integer column names plus a label.
        assert!(h(
            &["0", "1", "2", "label"],
            Some(&["0.5", "1.5", "2.5", "3"])
        ));
        assert!(h(&["", "0", "1", "label"], Some(&["0", "1.5", "2.5", "3"])));
        // A typo on the first data line is not a header.
        assert!(!h(&["1.5", "abc", "3.2"], Some(&["4.5", "5.5", "6.5"])));
        // Missing-value tokens are not names.
        assert!(!h(&["NA", "2"], Some(&["1", "2"])));
        // Empty header names are allowed.
        assert!(h(&["", "a"], Some(&["1", "2"])));
    }

    #[test]
    fn chooses_label_columns() {
        let hdr: Vec<String> = ["a", "Class", "label"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let h = Some(hdr.as_slice());
        // `label` ranks before `class` in AUTO_LABEL_NAMES.
        assert_eq!(choose_label(&LabelChoice::Auto, h, 3), Ok(Some(2)));
        let xy: Vec<String> = ["x", "Y", "target", "class"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(choose_label(&LabelChoice::Auto, Some(&xy), 4), Ok(Some(3)));
        let two: Vec<String> = ["y", "a", "Y"].iter().map(|s| s.to_string()).collect();
        assert_eq!(choose_label(&LabelChoice::Auto, Some(&two), 3), Ok(Some(0)));
        assert_eq!(choose_label(&LabelChoice::Auto, None, 3), Ok(None));
        assert_eq!(choose_label(&LabelChoice::None, h, 3), Ok(None));
        assert_eq!(choose_label(&LabelChoice::Index(2), None, 3), Ok(Some(2)));
        assert!(
            choose_label(&LabelChoice::Index(3), None, 3)
                .unwrap_err()
                .contains("out of range")
        );
        assert_eq!(
            choose_label(&LabelChoice::Name("label".into()), h, 3),
            Ok(Some(2))
        );
        assert_eq!(
            choose_label(&LabelChoice::Name("A".into()), h, 3),
            Ok(Some(0))
        );
        let e = choose_label(&LabelChoice::Name("zz".into()), h, 3).unwrap_err();
        assert!(e.contains("\"zz\"") && e.contains("\"Class\""), "{e}");
        assert!(choose_label(&LabelChoice::Name("a".into()), None, 3).is_err());
    }

    #[test]
    fn classifies_cells() {
        assert_eq!(classify(" +1.5e3 ", false), Cell::Number(1500.0));
        assert_eq!(classify("-7", false), Cell::Number(-7.0));
        assert_eq!(classify(".5", false), Cell::Number(0.5));
        for m in ["", "  ", "NaN", "nan", "NA", "n/a", "null", "?", "#N/A"] {
            assert!(matches!(classify(m, false), Cell::Missing(_)), "{m}");
        }
        for m in ["inf", "-inf", "Infinity", "-infinity", "1e999"] {
            assert_eq!(
                classify(m, false),
                Cell::Missing(MissingKind::Infinite),
                "{m}"
            );
        }
        assert_eq!(classify("abc", false), Cell::Text);
        assert_eq!(classify("1,5", false), Cell::Text);
        assert_eq!(classify("1,5", true), Cell::Number(1.5));
        assert_eq!(classify("1,5,6", true), Cell::Text);
    }

    #[test]
    fn parses_basic_csv_with_labels() {
        let ds = parse("a,b,label\n1,2,x\n3,4,y\n5,6,x\n", "t.csv", &opts()).unwrap();
        assert_eq!((ds.n(), ds.p()), (3, 2));
        assert_eq!(ds.feature_names, ["a", "b"]);
        let l = ds.labels.unwrap();
        assert_eq!(l.ids, [0, 1, 0]);
        assert_eq!(l.names, ["x", "y"]);
        assert_eq!(ds.x.f64().row(2).to_vec(), [5.0, 6.0]);
        assert_eq!(ds.name, "t");
    }

    #[test]
    fn numeric_labels_with_different_spellings_are_one_class() {
        let ds = parse("a,y\n1,1\n2,1.0\n3,+1\n4,2\n", "t.csv", &opts()).unwrap();
        let l = ds.labels.unwrap();
        assert_eq!(l.ids, [0, 0, 0, 1]);
        assert_eq!(l.names, ["1", "2"]);
    }

    #[test]
    fn headerless_and_label_index() {
        let o = LoadOptions {
            label: LabelChoice::Index(0),
            ..opts()
        };
        let ds = parse("a 1 2\nb 3 4\n", "t.txt", &o).unwrap();
        assert_eq!(ds.feature_names, ["f1", "f2"]);
        assert_eq!(ds.labels.unwrap().names, ["a", "b"]);
        let ds = parse("1,2\n3,4\n", "t.csv", &opts()).unwrap();
        assert!(ds.labels.is_none());
        assert_eq!(ds.p(), 2);
    }

    #[test]
    fn line_numbers_count_header_and_blank_lines() {
        let e = err("a,b\r\n\r\n1,2\r\n\r\n\r\n3,x\r\n", &opts());
        assert_eq!(e, "t.csv: line 6, column 2 (\"b\"): \"x\" is not a number");
        let e = err("a,b c\n1,x\n", &opts());
        assert!(
            e.ends_with("(if this column holds class labels, use --label \"b c\")"),
            "{e}"
        );
        let e = err("1,x\n2,y\n", &opts());
        assert!(e.ends_with("use --label 1 (a 0-based index))"), "{e}");
        let e = err("1 2\n\n3 4 5\n", &opts());
        assert_eq!(e, "t.csv: line 3: 3 fields, expected 2 like line 1");
        // A quoted field spanning lines.
        let e = err("n,v\n\"1\n\",1\n2,\n", &opts());
        assert!(
            e.starts_with("t.csv: line 4, column 2 (\"v\"): empty cell"),
            "{e}"
        );
    }

    #[test]
    fn missing_values() {
        let e = err("a,b\n1,NA\n", &opts());
        assert!(
            e.contains("line 2, column 2 (\"b\"): \"NA\" is a missing value"),
            "{e}"
        );
        let e = err("a,b\n1,-inf\n", &opts());
        assert!(e.contains("\"-inf\" is not a finite number"), "{e}");
        let o = LoadOptions {
            missing: Missing::ImputeMean,
            ..opts()
        };
        let ds = parse("a,b\n1,NA\n2,3\n", "t.csv", &o).unwrap();
        assert!(ds.x.f64()[[0, 1]].is_nan());
    }

    #[test]
    fn empty_label_is_an_error() {
        let e = err("a,label\n1,x\n2,\n", &opts());
        assert_eq!(e, "t.csv: line 3, column 2 (\"label\"): empty label");
    }

    #[test]
    fn decimal_comma_in_semicolon_files() {
        let ds = parse("a;b\n1,5;2\n3;4,25\n", "t.csv", &opts()).unwrap();
        assert_eq!(ds.x.f64().row(0).to_vec(), [1.5, 2.0]);
        assert_eq!(ds.x.f64().row(1).to_vec(), [3.0, 4.25]);
        assert_eq!(ds.notes.len(), 1);
    }

    #[test]
    fn numpy_savetxt_header() {
        let ds = parse("# a b c\n1 2 3\n4 5 6\n", "t.txt", &opts()).unwrap();
        assert_eq!(ds.feature_names, ["a", "b", "c"]);
        assert_eq!(ds.n(), 2);
    }

    #[test]
    fn short_names() {
        assert_eq!(short_name("bundled:iris"), "iris");
        assert_eq!(short_name("/a/b/data.csv"), "data");
        assert_eq!(short_name("noext"), "noext");
    }
}
