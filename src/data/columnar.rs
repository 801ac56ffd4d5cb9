//! Columnar files: Parquet (`.parquet`) and Arrow IPC (`.arrow`,
//! `.feather`: Feather v2 is the Arrow IPC file format; the IPC stream
//! format is read too), with the arrow-rs crates, behind the `parquet`
//! feature.
//!
//! The columns are read as the delimited reader reads a file with a
//! header: the label column is chosen by [`LabelChoice`] among the column
//! names, every other column is a feature named as in the file. Integer,
//! floating-point and decimal columns (nullable or not, and dictionary
//! encoded) become f64; a null, NaN or infinite cell is a missing value,
//! handled by [`Missing`] as an empty CSV cell is. Any other column is
//! refused by name unless `ignore_non_numeric` drops it. The label column
//! may be text, categorical (dictionary), numeric or boolean.
//!
//! The file is read whole within the memory budget, and the values as
//! they are decoded are checked against it too. What a Parquet file
//! declares (schema, column chunks, page headers, decompressed sizes) is
//! checked before the parquet crate allocates from it (parquet_scan.rs);
//! for Arrow IPC, the footer, blocks, message bodies and compressed buffer
//! sizes (the flatbuffers themselves are verified by arrow-ipc, to a depth
//! of 64). A damaged or hostile file is refused with an error; should the
//! third-party reader panic on it, the panic is caught and reported as an
//! error as well.
//!
//! [`LabelChoice`]: super::LabelChoice
//! [`Missing`]: super::Missing

use super::{Dataset, LoadOptions};
use crate::error::{Error, Result};

/// Which columnar format a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Parquet,
    /// The Arrow IPC file format (Feather v2).
    ArrowFile,
    /// The Arrow IPC stream format.
    ArrowStream,
    /// Feather v1, which predates Arrow IPC: refused with advice.
    FeatherV1,
}

impl Format {
    fn what(self) -> &'static str {
        match self {
            Format::Parquet => "a Parquet file",
            Format::ArrowFile => "an Arrow IPC (Feather v2) file",
            Format::ArrowStream => "an Arrow IPC stream",
            Format::FeatherV1 => "a Feather v1 file",
        }
    }
}

/// The format a file extension (lower case, no dot) names, if columnar.
/// `.arrow`, `.feather` and `.ipc` are told apart from the stream format by
/// their first bytes.
pub(crate) fn by_extension(ext: &str) -> Option<Format> {
    match ext {
        "parquet" | "pq" => Some(Format::Parquet),
        "arrow" | "feather" | "ipc" | "arrows" => Some(Format::ArrowFile),
        _ => None,
    }
}

/// The format `bytes` are in, if columnar (whatever the extension): by
/// the magic bytes these formats have at both ends (text that merely
/// starts with `PAR1` is still text).
pub(crate) fn sniff(bytes: &[u8]) -> Option<Format> {
    let framed = |magic: &[u8]| {
        bytes.len() >= 2 * magic.len() + 4 && bytes.starts_with(magic) && bytes.ends_with(magic)
    };
    if framed(b"PAR1") {
        Some(Format::Parquet)
    } else if framed(b"ARROW1") {
        Some(Format::ArrowFile)
    } else if framed(b"FEA1") {
        Some(Format::FeatherV1)
    } else {
        None
    }
}

/// Reads a columnar file held in `bytes`. `hint` is the format the
/// extension names; the first bytes decide between the IPC file and
/// stream formats.
///
/// # Errors
/// [`Error::Data`] for a file that is not of the format or cannot be read
/// as data (a non-numeric column, a null label, …), naming the column;
/// [`Error::Resource`] above the memory budget; without the `parquet`
/// feature, every such file, saying so.
pub(crate) fn read(
    bytes: Vec<u8>,
    hint: Format,
    origin: &str,
    opts: &LoadOptions,
) -> Result<Dataset> {
    // By extension `.arrow` may hold the IPC stream format too; a file
    // cut short (no magic at its end) is left to the reader its name says,
    // which tells what is wrong.
    let format = match (hint, sniff(&bytes)) {
        (_, Some(f)) => f,
        (Format::ArrowFile, None) if !bytes.starts_with(b"ARROW1") => Format::ArrowStream,
        (f, None) => f,
    };
    if format == Format::FeatherV1 {
        return Err(Error::Data(format!(
            "{origin}: a Feather v1 file, which meanscape does not read; save it again as \
             Feather v2 (pyarrow.feather.write_feather, pandas' to_feather) or Parquet"
        )));
    }
    imp::read(bytes, format, origin, opts)
}

#[cfg(not(feature = "parquet"))]
mod imp {
    use super::*;

    pub(super) fn read(
        _bytes: Vec<u8>,
        format: Format,
        origin: &str,
        _opts: &LoadOptions,
    ) -> Result<Dataset> {
        Err(Error::Data(format!(
            "{origin}: {}, but this build of meanscape lacks the `parquet` feature \
             (Parquet and Arrow IPC input); build it with default features or \
             --features parquet, or save the data as CSV or .npy",
            format.what()
        )))
    }
}

#[cfg(feature = "parquet")]
mod imp {
    use super::super::delimited::{LabelBuilder, choose_label};
    use super::super::input::{Budget, fmt_need};
    use super::*;
    use crate::data::{LabelChoice, Missing};
    use arrow_array::cast::AsArray;
    use arrow_array::types::{
        Decimal32Type, Decimal64Type, Decimal128Type, Float16Type, Float32Type, Float64Type,
        Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
    };
    use arrow_array::{Array, RecordBatch};
    use arrow_schema::{DataType, Schema};
    use ndarray::Array2;
    use std::cell::Cell;
    use std::io::Cursor;

    /// Rows per decoded batch.
    const BATCH_ROWS: usize = 8192;

    pub(super) fn read(
        bytes: Vec<u8>,
        format: Format,
        origin: &str,
        opts: &LoadOptions,
    ) -> Result<Dataset> {
        guarded(origin, format, || match format {
            Format::Parquet => read_parquet(bytes, origin, opts),
            _ => read_ipc(&bytes, format, origin, opts),
        })
        .map_err(one_line)
    }

    /// The error with the control characters of its message escaped: it
    /// quotes column names and the readers' messages, which come from the
    /// file and may hold a line break.
    fn one_line(e: Error) -> Error {
        let escape = |m: String| crate::text::printable(&m, &[]).into_owned();
        match e {
            Error::Data(m) => Error::Data(escape(m)),
            Error::Resource(m) => Error::Resource(escape(m)),
            other => other,
        }
    }

    fn unreadable(origin: &str, format: Format, e: impl std::fmt::Display) -> Error {
        let text = e.to_string();
        Error::Data(format!(
            "{origin}: not readable as {} ({})",
            format.what(),
            super::super::input::first_line(&text)
        ))
    }

    // ------------------------------------------------------------ panics

    thread_local! {
        static QUIET: Cell<bool> = const { Cell::new(false) };
    }

    /// Runs `f`, turning a panic inside the third-party readers into an
    /// error. The panic message is kept off stderr: a hook (installed once,
    /// in front of whatever hook was there) stays silent on a thread that is
    /// inside `guarded`.
    fn guarded<T>(origin: &str, format: Format, f: impl FnOnce() -> Result<T>) -> Result<T> {
        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if !QUIET.with(Cell::get) {
                    previous(info);
                }
            }));
        });
        let was = QUIET.with(|q| q.replace(true));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        QUIET.with(|q| q.set(was));
        r.unwrap_or_else(|p| {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown".into());
            Err(unreadable(
                origin,
                format,
                format!("the reader failed: {what}; the file is damaged"),
            ))
        })
    }

    // ------------------------------------------------------------ formats

    fn read_parquet(bytes: Vec<u8>, origin: &str, opts: &LoadOptions) -> Result<Dataset> {
        use super::super::parquet_scan;
        use parquet::arrow::ProjectionMask;
        use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
        use parquet::file::metadata::PageIndexPolicy;
        let format = Format::Parquet;
        let bad = |e: String| unreadable(origin, format, e);
        let file_len = bytes.len() as u64;
        let budget = Budget::of(opts);
        // What the file declares is checked before the parquet crate
        // allocates from it (parquet_scan.rs): the footer first.
        let footer = parquet_scan::footer(&bytes).map_err(bad)?;
        let metadata = footer.metadata_bytes();
        budget.check(
            origin,
            u128::from(file_len) + metadata,
            &format!("the file and {} for its metadata", fmt_need(metadata)),
        )?;
        // The page index is not read (it is the default; said here because
        // parquet_scan does not check it).
        let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Skip);
        let bytes = bytes::Bytes::from(bytes);
        let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(bytes.clone(), options)
            .map_err(|e| unreadable(origin, format, e))?;
        let plan = Plan::new(builder.schema(), origin, opts)?;
        let mask = ProjectionMask::roots(builder.parquet_schema(), plan.projection.clone());
        if builder.parquet_schema().num_columns() != footer.leaves.len() {
            return Err(bad("the schema is not the one the footer declares".into()));
        }
        // Then the pages of the columns read: what they hold decoded, and
        // the matrix they will make.
        let pages = footer
            .pages(&bytes, |leaf| mask.leaf_included(leaf))
            .map_err(bad)?;
        let rows = footer.rows();
        let matrix = rows * plan.features.len() as u128 * 8;
        budget.check(
            origin,
            u128::from(file_len) + metadata + pages.decoded + matrix,
            &format!(
                "the file, {} of decoded columns and {} for {rows} rows of {} features",
                fmt_need(pages.decoded),
                fmt_need(matrix),
                plan.features.len()
            ),
        )?;
        pages.trial(&bytes).map_err(bad)?;
        let reader = builder
            .with_projection(mask)
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| unreadable(origin, format, e))?;
        let batches = collect(
            reader.map(|b| b.map_err(|e| unreadable(origin, format, e))),
            file_len,
            &plan,
            origin,
            &budget,
        )?;
        plan.build(&batches, origin, opts)
    }

    fn read_ipc(bytes: &[u8], format: Format, origin: &str, opts: &LoadOptions) -> Result<Dataset> {
        use arrow_ipc::reader::{FileReader, StreamReader};
        let file_len = bytes.len() as u64;
        let budget = Budget::of(opts);
        let bad = |e: arrow_schema::ArrowError| unreadable(origin, format, e);
        // Decompression allocates what each compressed buffer declares:
        // those sizes are checked first.
        // So are the message bodies, which the reader copies, and the
        // schema's columns.
        let declared = ipc_declared(bytes, format).map_err(|e| unreadable(origin, format, e))?;
        let schema = declared.fields * FIELD_BYTES;
        budget.check(
            origin,
            u128::from(file_len) + declared.bodies + declared.decompressed + schema,
            &format!(
                "the file, {} of record batches whose compressed buffers declare {} once \
                 decompressed, and {} for {} columns",
                fmt_need(declared.bodies),
                fmt_need(declared.decompressed),
                fmt_need(schema),
                declared.fields
            ),
        )?;
        // The schema first, to choose the columns; then the batches of
        // those columns only.
        // The same steps for both IPC layouts, whose readers are two types.
        macro_rules! read_ipc {
            ($reader:ident) => {{
                let schema = $reader::try_new(Cursor::new(bytes), None)
                    .map_err(bad)?
                    .schema();
                let plan = Plan::new(&schema, origin, opts)?;
                let reader = $reader::try_new(Cursor::new(bytes), Some(plan.projection.clone()))
                    .map_err(bad)?;
                let batches = collect(
                    reader.map(|b| b.map_err(bad)),
                    file_len,
                    &plan,
                    origin,
                    &budget,
                )?;
                (plan, batches)
            }};
        }
        let batches = if format == Format::ArrowFile {
            read_ipc!(FileReader)
        } else {
            read_ipc!(StreamReader)
        };
        let (plan, batches) = batches;
        plan.build(&batches, origin, opts)
    }

    /// The decompressed bytes the compressed buffers of an IPC file or
    /// stream declare (their 8-byte length prefixes), found the way the
    /// reader finds them: through the footer's blocks in the file format,
    /// message after message in the stream format. A block or message that
    /// runs past the end of the file is an error; a message that does not
    /// parse is left to the reader, which says what is wrong with it.
    fn ipc_declared(bytes: &[u8], format: Format) -> std::result::Result<Declared, String> {
        let i32_at = |at: usize| -> Option<i32> {
            Some(i32::from_le_bytes(
                bytes.get(at..at.checked_add(4)?)?.try_into().ok()?,
            ))
        };
        // The message's flatbuffer at `at`, after its length prefix (with
        // or without the continuation marker).
        let message_at = |at: usize| -> Option<(usize, usize)> {
            let (len, start) = if i32_at(at)? == -1 {
                (i32_at(at + 4)?, at + 8)
            } else {
                (i32_at(at)?, at + 4)
            };
            let len = usize::try_from(len).ok()?;
            (start.checked_add(len)? <= bytes.len()).then_some((start, len))
        };
        let past_end = || "a record batch runs past the end of the file".to_string();
        let mut total: u128 = 0;
        let mut bodies: u128 = 0;
        let mut fields: u128 = 0;
        let mut count = |meta: &[u8], body: usize| -> std::result::Result<(), String> {
            let Ok(msg) = arrow_ipc::root_as_message(meta) else {
                return Ok(());
            };
            let batch = msg
                .header_as_record_batch()
                .or_else(|| msg.header_as_dictionary_batch().and_then(|d| d.data()));
            let Some(batch) = batch else { return Ok(()) };
            if batch.compression().is_none() {
                return Ok(());
            }
            for b in batch.buffers().into_iter().flatten() {
                if b.length() < 8 {
                    continue;
                }
                let at = usize::try_from(b.offset())
                    .ok()
                    .and_then(|o| o.checked_add(body))
                    .filter(|&a| a.checked_add(8).is_some_and(|e| e <= bytes.len()))
                    .ok_or_else(past_end)?;
                let declared = i64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
                total += u128::try_from(declared).unwrap_or(0);
            }
            Ok(())
        };
        if format == Format::ArrowFile {
            let n = bytes.len();
            let Some(declared) = n.checked_sub(10).and_then(i32_at) else {
                return Ok(Declared::default());
            };
            // The reader allocates the footer's declared length first.
            let Some(footer_len) = usize::try_from(declared).ok().filter(|&l| l + 10 <= n) else {
                return Err(format!(
                    "the footer declares {declared} bytes in a file of {n} bytes"
                ));
            };
            let Ok(footer) = arrow_ipc::root_as_footer(&bytes[n - 10 - footer_len..n - 10]) else {
                return Ok(Declared::default());
            };
            fields = footer
                .schema()
                .and_then(|s| s.fields())
                .map_or(0, |f| f.len() as u128);
            let blocks = footer
                .dictionaries()
                .into_iter()
                .flatten()
                .chain(footer.recordBatches().into_iter().flatten());
            for block in blocks {
                let (Ok(offset), Ok(meta), Ok(body)) = (
                    usize::try_from(block.offset()),
                    usize::try_from(block.metaDataLength()),
                    usize::try_from(block.bodyLength()),
                ) else {
                    return Err(past_end());
                };
                let body_start = offset.checked_add(meta).ok_or_else(past_end)?;
                if body_start.checked_add(body).is_none_or(|e| e > n) {
                    return Err(past_end());
                }
                // The reader copies each block whole (they may overlap).
                bodies += (meta + body) as u128;
                // The message as the reader parses it: the flatbuffer runs
                // from after its length prefix to the end of the block.
                let block = &bytes[offset..body_start + body];
                let skip = if block.starts_with(&[0xff; 4]) { 8 } else { 4 };
                if let Some(meta) = block.get(skip..) {
                    count(meta, body_start)?;
                }
            }
        } else {
            let mut at = 0usize;
            while let Some((start, len)) = message_at(at) {
                if len == 0 {
                    break;
                }
                let meta = &bytes[start..start + len];
                let Ok(msg) = arrow_ipc::root_as_message(meta) else {
                    break;
                };
                if let Some(s) = msg.header_as_schema() {
                    fields = fields.max(s.fields().map_or(0, |f| f.len() as u128));
                }
                let body_start = start + len;
                let Some(next) = usize::try_from(msg.bodyLength())
                    .ok()
                    .and_then(|b| body_start.checked_add(b))
                    .filter(|&e| e <= bytes.len())
                else {
                    return Err(past_end());
                };
                count(meta, body_start)?;
                bodies += (next - body_start) as u128;
                at = next;
            }
        }
        Ok(Declared {
            decompressed: total,
            bodies,
            fields,
        })
    }

    /// What an IPC file or stream declares, in bytes and columns.
    #[derive(Default)]
    struct Declared {
        /// The compressed buffers once decompressed.
        decompressed: u128,
        /// The message bodies (with their metadata), which the reader copies.
        bodies: u128,
        /// The schema's columns.
        fields: u128,
    }

    /// What the reader holds per column of a schema, at most (its Arrow
    /// field and the names kept here).
    const FIELD_BYTES: u128 = 1024;

    /// The batches, within the budget: what they hold plus the matrix they
    /// will make plus the file.
    fn collect(
        batches: impl Iterator<Item = Result<RecordBatch>>,
        file_len: u64,
        plan: &Plan,
        origin: &str,
        budget: &Budget,
    ) -> Result<Vec<RecordBatch>> {
        let mut out = Vec::new();
        let (mut rows, mut held) = (0u128, 0u128);
        let mut seen = std::collections::HashSet::new();
        for b in batches {
            let b = b?;
            if b.num_columns() != plan.projection.len() {
                return Err(Error::Data(format!(
                    "{origin}: a record batch has {} columns where the schema has {}; the file is \
                     damaged",
                    b.num_columns(),
                    plan.projection.len()
                )));
            }
            rows += b.num_rows() as u128;
            held += distinct_bytes(&b, &mut seen);
            let need = u128::from(file_len) + held + rows * plan.features.len() as u128 * 8;
            if need > u128::from(budget.limit) {
                budget.check(
                    origin,
                    need,
                    &format!("the file and its first {rows} rows, decoded"),
                )?;
            }
            out.push(b);
        }
        Ok(out)
    }

    /// The bytes the arrays of a batch hold, each allocation counted once
    /// (`seen` holds those counted already, across batches): the arrays an
    /// IPC reader makes from one message body all point into it, which
    /// `RecordBatch::get_array_memory_size` counts once per column.
    fn distinct_bytes(b: &RecordBatch, seen: &mut std::collections::HashSet<usize>) -> u128 {
        let mut total = 0u128;
        let mut stack: Vec<_> = b.columns().iter().map(|c| c.to_data()).collect();
        while let Some(d) = stack.pop() {
            let nulls = d.nulls().map(|n| n.buffer());
            for buf in d.buffers().iter().chain(nulls) {
                if seen.insert(buf.data_ptr().as_ptr() as usize) {
                    total += buf.capacity().max(buf.len()) as u128;
                }
            }
            stack.extend(d.child_data().iter().cloned());
        }
        total
    }

    // ------------------------------------------------------------ columns

    /// Which columns are read, and as what.
    struct Plan {
        names: Vec<String>,
        /// Schema indices of the label and feature columns, ascending: the
        /// columns of the projected batches, in order.
        projection: Vec<usize>,
        label: Option<usize>,
        features: Vec<usize>,
        notes: Vec<String>,
        /// The column left out under `--label none`.
        label_left_out: Option<String>,
    }

    fn is_numeric(dt: &DataType) -> bool {
        match dt {
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
            | DataType::Float16
            | DataType::Float32
            | DataType::Float64
            | DataType::Decimal32(_, _)
            | DataType::Decimal64(_, _)
            | DataType::Decimal128(_, _)
            | DataType::Null => true,
            DataType::Dictionary(_, v) => is_numeric(v) && **v != DataType::Null,
            _ => false,
        }
    }

    fn is_text(dt: &DataType) -> bool {
        matches!(
            dt,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        )
    }

    fn can_label(dt: &DataType) -> bool {
        match dt {
            DataType::Dictionary(_, v) => can_label(v),
            DataType::Boolean => true,
            d => is_text(d) || (is_numeric(d) && *d != DataType::Null),
        }
    }

    /// `text (Utf8)`, `categorical (Dictionary(Int32, Utf8))`, `of type Date32`.
    fn describe(dt: &DataType) -> String {
        match dt {
            d if is_text(d) => format!("text ({d})"),
            DataType::Dictionary(_, v) if is_text(v) => format!("categorical ({dt})"),
            DataType::Boolean => "boolean (Boolean)".to_string(),
            d => format!("of type {d}"),
        }
    }

    impl Plan {
        fn new(schema: &Schema, origin: &str, opts: &LoadOptions) -> Result<Plan> {
            let fields = schema.fields();
            let names: Vec<String> = fields.iter().map(|f| f.name().clone()).collect();
            if names.is_empty() {
                return Err(Error::Data(format!("{origin}: no columns")));
            }
            let label = choose_label(&opts.label, Some(names.as_slice()), names.len())
                .map_err(|e| Error::Data(format!("{origin}: {e}")))?;
            if let Some(j) = label {
                let dt = fields[j].data_type();
                if !can_label(dt) {
                    return Err(Error::Data(format!(
                        "{origin}: label column {:?} is {}; labels must be text, categorical, \
                         numbers or booleans",
                        names[j],
                        describe(dt)
                    )));
                }
                if names.len() == 1 {
                    return Err(Error::Data(format!(
                        "{origin}: no feature columns: the only column ({:?}) holds the labels",
                        names[j]
                    )));
                }
            }
            // --label none: the column named like labels is no feature.
            let left_out = crate::data::left_out_column(opts, &names);
            if let Some(j) = left_out
                && names.len() == 1
            {
                return Err(Error::Data(format!(
                    "{origin}: no feature columns: the only column ({:?}) holds labels, left \
                     out with --label none (add --keep-label-column to cluster on it)",
                    names[j]
                )));
            }
            let mut features = Vec::new();
            let mut other = Vec::new();
            for (j, f) in fields.iter().enumerate() {
                if Some(j) == label || Some(j) == left_out {
                    continue;
                }
                if is_numeric(f.data_type()) {
                    features.push(j);
                } else {
                    other.push(j);
                }
            }
            let mut notes = Vec::new();
            if let Some(j) = left_out {
                notes.push(crate::data::left_out_note(&names[j]));
            }
            if !other.is_empty() {
                let listed = |js: &[usize]| {
                    js.iter()
                        .map(|&j| format!("'{}' ({})", names[j], fields[j].data_type()))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                if !opts.ignore_non_numeric {
                    let j = other[0];
                    let first = &names[j];
                    let how = if opts.label == LabelChoice::Auto || label.is_none() {
                        format!(
                            ", make it the label with --label {}",
                            crate::text::quote_arg(first)
                        )
                    } else {
                        String::new()
                    };
                    let head = if other.len() == 1 {
                        format!("column '{first}' is {}", describe(fields[j].data_type()))
                    } else {
                        format!(
                            "columns {} are not numeric",
                            listed(&other[..other.len().min(8)])
                                + if other.len() > 8 { ", …" } else { "" }
                        )
                    };
                    let it = if other.len() == 1 { "it" } else { "them" };
                    return Err(Error::Data(format!(
                        "{origin}: {head}; meanscape reads numeric columns only: drop {it}{how}, \
                         or pass --ignore-non-numeric"
                    )));
                }
                notes.push(format!(
                    "ignored {} non-numeric column(s): {}",
                    other.len(),
                    listed(&other)
                ));
            }
            if features.is_empty() {
                return Err(Error::Data(format!(
                    "{origin}: no numeric feature columns{}",
                    if other.is_empty() {
                        String::new()
                    } else {
                        format!(" (non-numeric: {})", other.len())
                    }
                )));
            }
            let mut projection: Vec<usize> = features.iter().copied().chain(label).collect();
            projection.sort_unstable();
            Ok(Plan {
                label_left_out: left_out.map(|j| names[j].clone()),
                names,
                projection,
                label,
                features,
                notes,
            })
        }

        /// Where schema column `j` is among the projected columns.
        fn pos(&self, j: usize) -> usize {
            self.projection
                .binary_search(&j)
                .expect("a projected column")
        }

        fn build(
            self,
            batches: &[RecordBatch],
            origin: &str,
            opts: &LoadOptions,
        ) -> Result<Dataset> {
            let n: usize = batches.iter().map(RecordBatch::num_rows).sum();
            let p = self.features.len();
            if n == 0 {
                return Err(Error::Data(format!("{origin}: no data rows")));
            }
            let len = n.checked_mul(p).ok_or_else(|| {
                Error::Resource(format!("{origin}: {n} × {p} values are too many"))
            })?;
            // Every feature stored as float32: the solvers read f32 unless
            // asked otherwise (`--dtype`), and the values are then kept in
            // f32 from the start (no f64 copy of the matrix).
            let float32 = self.features.iter().all(|&j| {
                batches
                    .iter()
                    .all(|b| b.column(self.pos(j)).data_type() == &DataType::Float32)
            });
            let keep_f32 = float32 && opts.dtype != Some(crate::data::Dtype::F64)
                || opts.dtype == Some(crate::data::Dtype::F32);
            let oom = || {
                Error::Resource(format!(
                    "{origin}: out of memory for {len} values; lower --max-memory"
                ))
            };
            let mut data: Vec<f64> = Vec::new();
            let mut data32: Vec<f32> = Vec::new();
            if keep_f32 {
                data32.try_reserve_exact(len).map_err(|_| oom())?;
                data32.resize(len, 0.0);
            } else {
                data.try_reserve_exact(len).map_err(|_| oom())?;
                data.resize(len, 0.0);
            }
            for (k, &j) in self.features.iter().enumerate() {
                let pos = self.pos(j);
                let mut row0 = 0;
                for b in batches {
                    let col = b.column(pos);
                    let vals = numbers(col.as_ref())
                        .ok_or_else(|| self.type_changed(origin, j, col.data_type()))?;
                    for (i, v) in vals.into_iter().enumerate() {
                        let r = row0 + i;
                        if !v.is_finite() && opts.missing == Missing::Error {
                            let what = if col.is_null(i)
                                || col.logical_nulls().is_some_and(|l| l.is_null(i))
                            {
                                "null cell".to_string()
                            } else if v.is_nan() {
                                "NaN is a missing value".to_string()
                            } else {
                                format!("{v} is not a finite number")
                            };
                            return Err(self.cell_error(
                                origin,
                                r,
                                j,
                                &format!("{what} (use --impute mean or --drop-incomplete)"),
                            ));
                        }
                        let v = if v.is_finite() { v } else { f64::NAN };
                        if keep_f32 {
                            data32[r * p + k] = v as f32;
                        } else {
                            data[r * p + k] = v;
                        }
                    }
                    row0 += b.num_rows();
                }
            }
            let labels = match self.label {
                None => None,
                Some(j) => {
                    let pos = self.pos(j);
                    let mut lb = LabelBuilder::default();
                    let mut row0 = 0;
                    for b in batches {
                        let col = b.column(pos);
                        let texts = label_texts(col.as_ref())
                            .ok_or_else(|| self.type_changed(origin, j, col.data_type()))?;
                        for (i, t) in texts.iter().enumerate() {
                            match t.as_deref().map(str::trim) {
                                Some(t) if !t.is_empty() => lb.push(t),
                                Some(_) => {
                                    return Err(self.cell_error(
                                        origin,
                                        row0 + i,
                                        j,
                                        "empty label",
                                    ));
                                }
                                None => {
                                    return Err(self.cell_error(
                                        origin,
                                        row0 + i,
                                        j,
                                        "empty label (null)",
                                    ));
                                }
                            }
                        }
                        row0 += b.num_rows();
                    }
                    Some(lb.finish())
                }
            };
            let x: crate::solver::Matrix = if keep_f32 {
                Array2::from_shape_vec((n, p), data32)
                    .expect("n × p values")
                    .into()
            } else {
                Array2::from_shape_vec((n, p), data)
                    .expect("n × p values")
                    .into()
            };
            let mut ds = Dataset::new("", origin, x);
            ds.feature_names = self
                .features
                .iter()
                .enumerate()
                .map(|(k, &j)| {
                    let name = self.names[j].trim();
                    if name.is_empty() {
                        format!("f{}", k + 1)
                    } else {
                        name.to_string()
                    }
                })
                .collect();
            ds.labels = labels;
            ds.float32 = float32;
            ds.notes = self.notes;
            ds.label_left_out = self.label_left_out;
            Ok(ds)
        }

        fn cell_error(&self, origin: &str, row: usize, j: usize, what: &str) -> Error {
            Error::Data(format!(
                "{origin}: row {}, column {} ({:?}): {what}",
                row + 1,
                j + 1,
                self.names[j]
            ))
        }

        fn type_changed(&self, origin: &str, j: usize, dt: &DataType) -> Error {
            Error::Data(format!(
                "{origin}: column {:?} holds {dt} data, not the type its schema declares; the \
                 file is damaged",
                self.names[j]
            ))
        }
    }

    /// A numeric column as f64, nulls as NaN; `None` for another type.
    fn numbers(a: &dyn Array) -> Option<Vec<f64>> {
        macro_rules! prim {
            ($t:ty) => {
                a.as_primitive_opt::<$t>()?
                    .iter()
                    .map(|v| v.map_or(f64::NAN, |x| x as f64))
                    .collect()
            };
        }
        macro_rules! decimal {
            ($t:ty, $scale:expr) => {{
                let div = 10f64.powi(i32::from(*$scale));
                a.as_primitive_opt::<$t>()?
                    .iter()
                    .map(|v| v.map_or(f64::NAN, |x| x as f64 / div))
                    .collect()
            }};
        }
        Some(match a.data_type() {
            DataType::Int8 => prim!(Int8Type),
            DataType::Int16 => prim!(Int16Type),
            DataType::Int32 => prim!(Int32Type),
            DataType::Int64 => prim!(Int64Type),
            DataType::UInt8 => prim!(UInt8Type),
            DataType::UInt16 => prim!(UInt16Type),
            DataType::UInt32 => prim!(UInt32Type),
            DataType::UInt64 => prim!(UInt64Type),
            DataType::Float32 => prim!(Float32Type),
            DataType::Float64 => prim!(Float64Type),
            DataType::Float16 => a
                .as_primitive_opt::<Float16Type>()?
                .iter()
                .map(|v| v.map_or(f64::NAN, |x| x.to_f64()))
                .collect(),
            DataType::Decimal32(_, s) => decimal!(Decimal32Type, s),
            DataType::Decimal64(_, s) => decimal!(Decimal64Type, s),
            DataType::Decimal128(_, s) => decimal!(Decimal128Type, s),
            DataType::Null => vec![f64::NAN; a.len()],
            DataType::Dictionary(_, _) => {
                let d = a.as_any_dictionary_opt()?;
                let values = numbers(d.values().as_ref())?;
                if values.is_empty() {
                    return Some(vec![f64::NAN; a.len()]);
                }
                d.normalized_keys()
                    .into_iter()
                    .enumerate()
                    .map(|(i, k)| if a.is_null(i) { f64::NAN } else { values[k] })
                    .collect()
            }
            _ => return None,
        })
    }

    /// A label column as text, nulls as `None`; `None` for a type labels
    /// cannot have.
    fn label_texts(a: &dyn Array) -> Option<Vec<Option<String>>> {
        fn strings<'a>(it: impl Iterator<Item = Option<&'a str>>) -> Vec<Option<String>> {
            it.map(|s| s.map(str::to_string)).collect()
        }
        Some(match a.data_type() {
            DataType::Utf8 => strings(a.as_string_opt::<i32>()?.iter()),
            DataType::LargeUtf8 => strings(a.as_string_opt::<i64>()?.iter()),
            DataType::Utf8View => strings(a.as_string_view_opt()?.iter()),
            DataType::Boolean => a
                .as_boolean_opt()?
                .iter()
                .map(|v| v.map(|b| b.to_string()))
                .collect(),
            DataType::Dictionary(_, _) => {
                let d = a.as_any_dictionary_opt()?;
                let values = label_texts(d.values().as_ref())?;
                if values.is_empty() {
                    return Some(vec![None; a.len()]);
                }
                d.normalized_keys()
                    .into_iter()
                    .enumerate()
                    .map(|(i, k)| {
                        if a.is_null(i) {
                            None
                        } else {
                            values[k].clone()
                        }
                    })
                    .collect()
            }
            _ => {
                // Numbers: spelled so that LabelBuilder makes `1` of 1.0.
                let is_float = matches!(
                    a.data_type(),
                    DataType::Float16 | DataType::Float32 | DataType::Float64
                );
                let v = numbers(a)?;
                v.into_iter()
                    .enumerate()
                    .map(|(i, x)| {
                        if a.is_null(i) || !x.is_finite() {
                            None
                        } else if !is_float && x.fract() == 0.0 && x.abs() < 1e15 {
                            Some(format!("{}", x as i64))
                        } else {
                            Some(format!("{x}"))
                        }
                    })
                    .collect()
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_by_the_magic_at_both_ends() {
        let mut pq = b"PAR1".to_vec();
        pq.extend([0u8; 8]);
        pq.extend(b"PAR1");
        assert_eq!(sniff(&pq), Some(Format::Parquet));
        // Text that starts like Parquet is text.
        assert_eq!(sniff(b"PAR1,PAR2\n1,2\n"), None);
        assert_eq!(sniff(b"PAR1PAR1"), None);
        let mut ipc = b"ARROW1\0\0".to_vec();
        ipc.extend([0u8; 8]);
        ipc.extend(b"ARROW1");
        assert_eq!(sniff(&ipc), Some(Format::ArrowFile));
        assert_eq!(by_extension("feather"), Some(Format::ArrowFile));
        assert_eq!(by_extension("csv"), None);
    }

    #[test]
    fn feather_v1_is_refused_with_advice() {
        let mut v1 = b"FEA1".to_vec();
        v1.extend([0u8; 8]);
        v1.extend(b"FEA1");
        let e = read(
            v1,
            Format::ArrowFile,
            "old.feather",
            &LoadOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("old.feather: a Feather v1 file"), "{e}");
    }

    #[cfg(not(feature = "parquet"))]
    #[test]
    fn without_the_feature_such_files_are_refused_saying_so() {
        let e = read(
            b"PAR1".to_vec(),
            Format::Parquet,
            "t.parquet",
            &LoadOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("lacks the `parquet` feature"), "{e}");
    }
}
