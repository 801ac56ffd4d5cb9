//! Parquet and Arrow IPC (Feather v2) input: fixtures are written here with
//! the arrow-rs writers, read back by meanscape's loader and compared with
//! the same table read from CSV.

use arrow_array::builder::{Float64Builder, Int32Builder, StringDictionaryBuilder};
use arrow_array::types::Int8Type;
use arrow_array::{
    ArrayRef, Float32Array, Float64Array, Int64Array, RecordBatch, StringArray, UInt8Array,
};
use meanscape::data::{DataSource, Dataset, LabelChoice, LoadOptions, Missing, load};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::WriterProperties;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn batch(cols: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(cols.into_iter().map(|(n, a)| (n.to_string(), a))).unwrap()
}

fn write_parquet(path: &Path, batches: &[RecordBatch], compression: Compression, rg: usize) {
    let props = WriterProperties::builder()
        .set_compression(compression)
        .set_max_row_group_row_count(Some(rg))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, batches[0].schema(), Some(props)).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
}

fn write_feather(path: &Path, batches: &[RecordBatch], lz4: bool) {
    use arrow_ipc::writer::{FileWriter, IpcWriteOptions};
    let mut opts = IpcWriteOptions::default();
    if lz4 {
        opts = opts
            .try_with_compression(Some(arrow_ipc::CompressionType::LZ4_FRAME))
            .unwrap();
    }
    let file = std::fs::File::create(path).unwrap();
    let mut w = FileWriter::try_new_with_options(file, &batches[0].schema(), opts).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
}

fn write_stream(path: &Path, batches: &[RecordBatch]) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(file, &batches[0].schema()).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
}

fn read(path: &Path, opts: &LoadOptions) -> meanscape::Result<Dataset> {
    load(&DataSource::File(path.to_path_buf()), opts)
}

fn err(path: &Path, opts: &LoadOptions) -> String {
    read(path, opts).unwrap_err().to_string()
}

fn opts() -> LoadOptions {
    LoadOptions::default()
}

fn label(l: LabelChoice) -> LoadOptions {
    LoadOptions { label: l, ..opts() }
}

const SPECIES: [&str; 3] = ["setosa", "versicolor", "virginica"];

/// Iris as a table: four float columns and the species as text, in
/// batches of 50 rows (so several record batches and row groups).
fn iris() -> (Dataset, Vec<RecordBatch>) {
    let ds = load(&DataSource::Bundled("iris"), &opts()).unwrap();
    let names = ["sepal_length", "sepal_width", "petal_length", "petal_width"];
    let l = ds.labels.clone().unwrap();
    let mut batches = Vec::new();
    for start in (0..ds.n()).step_by(50) {
        let rows = start..(start + 50).min(ds.n());
        let mut cols: Vec<(&str, ArrayRef)> = Vec::new();
        for (j, name) in names.iter().enumerate() {
            let v: Vec<f64> = rows.clone().map(|i| ds.x.f64()[[i, j]]).collect();
            cols.push((name, Arc::new(Float64Array::from(v))));
        }
        let species: Vec<&str> = rows.map(|i| SPECIES[l.ids[i]]).collect();
        cols.push(("species", Arc::new(StringArray::from(species))));
        batches.push(batch(cols));
    }
    (ds, batches)
}

/// The same table as CSV.
fn iris_csv(path: &Path, ds: &Dataset) {
    let l = ds.labels.as_ref().unwrap();
    let mut s = String::from("sepal_length,sepal_width,petal_length,petal_width,species\n");
    for i in 0..ds.n() {
        for j in 0..4 {
            s.push_str(&format!("{},", ds.x.f64()[[i, j]]));
        }
        s.push_str(SPECIES[l.ids[i]]);
        s.push('\n');
    }
    std::fs::write(path, s).unwrap();
}

fn same(a: &Dataset, b: &Dataset) {
    assert_eq!(a.x.f64(), b.x.f64());
    assert_eq!(a.feature_names, b.feature_names);
    assert_eq!(a.labels, b.labels);
    assert_eq!((a.n(), a.p()), (b.n(), b.p()));
}

#[test]
fn iris_reads_as_the_same_csv_does_in_every_compression() {
    let dir = tmp();
    let (orig, batches) = iris();
    let csv = dir.path().join("iris.csv");
    iris_csv(&csv, &orig);
    let by_name = label(LabelChoice::Name("species".into()));
    let from_csv = read(&csv, &by_name).unwrap();
    assert_eq!(from_csv.x.f64(), orig.x.f64());
    for (i, c) in [
        Compression::UNCOMPRESSED,
        Compression::SNAPPY,
        Compression::ZSTD(ZstdLevel::default()),
        Compression::GZIP(GzipLevel::default()),
        Compression::LZ4_RAW,
    ]
    .into_iter()
    .enumerate()
    {
        let pq = dir.path().join(format!("iris{i}.parquet"));
        write_parquet(&pq, &batches, c, 40);
        let ds = read(&pq, &by_name).unwrap();
        same(&ds, &from_csv);
        assert_eq!(ds.name, format!("iris{i}"));
        assert_eq!(
            ds.labels.as_ref().unwrap().names,
            ["setosa", "versicolor", "virginica"]
        );
        assert_eq!(ds.inputs, std::slice::from_ref(&pq));
    }
    // Label by index, as for CSV.
    let pq = dir.path().join("iris0.parquet");
    let ds = read(&pq, &label(LabelChoice::Index(4))).unwrap();
    same(&ds, &read(&csv, &label(LabelChoice::Index(4))).unwrap());
    let e = err(&pq, &label(LabelChoice::Index(5)));
    assert!(e.contains("label column index 5 is out of range"), "{e}");
    let e = err(&pq, &label(LabelChoice::Name("nope".into())));
    assert!(
        e.contains("no column named \"nope\"") && e.contains("\"species\""),
        "{e}"
    );
    // Parquet under another name is recognised by its bytes.
    let dat = dir.path().join("iris.dat");
    std::fs::copy(&pq, &dat).unwrap();
    same(&read(&dat, &by_name).unwrap(), &from_csv);
}

#[test]
fn auto_label_and_text_columns() {
    let dir = tmp();
    let (_, batches) = iris();
    let pq = dir.path().join("iris.parquet");
    write_parquet(&pq, &batches, Compression::SNAPPY, 1000);
    // `species` is not one of the automatic label names: it is a text
    // column, refused by name with the ways out.
    let e = err(&pq, &opts());
    assert_eq!(
        e,
        format!(
            "{}: column 'species' is text (Utf8); meanscape reads numeric columns only: drop it, \
             make it the label with --label species, or pass --ignore-non-numeric",
            pq.display()
        )
    );
    let o = LoadOptions {
        ignore_non_numeric: true,
        ..opts()
    };
    let ds = read(&pq, &o).unwrap();
    assert_eq!(ds.p(), 4);
    assert!(ds.labels.is_none());
    assert!(
        ds.notes
            .iter()
            .any(|n| n.contains("ignored 1 non-numeric column(s): 'species' (Utf8)")),
        "{:?}",
        ds.notes
    );

    // A column named `class` is taken as the labels; a further text column
    // is refused or dropped.
    let b = batch(vec![
        (
            "a",
            Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0])) as ArrayRef,
        ),
        ("city", Arc::new(StringArray::from(vec!["x", "y", "z"]))),
        ("b", Arc::new(Int64Array::from(vec![4, 5, 6]))),
        ("class", Arc::new(StringArray::from(vec!["p", "q", "p"]))),
    ]);
    let pq = dir.path().join("t.parquet");
    write_parquet(&pq, &[b], Compression::SNAPPY, 1000);
    let e = err(&pq, &opts());
    assert!(
        e.ends_with(
            "column 'city' is text (Utf8); meanscape reads numeric columns only: drop it, \
             make it the label with --label city, or pass --ignore-non-numeric"
        ),
        "{e}"
    );
    let ds = read(&pq, &o).unwrap();
    assert_eq!(ds.feature_names, ["a", "b"]);
    assert_eq!(ds.x.f64().row(2).to_vec(), [3.0, 6.0]);
    assert_eq!(ds.labels.unwrap().ids, [0, 1, 0]);
    // --label none: `class` is left out (no ground truth, no feature);
    // `city` is still refused.
    let e = err(&pq, &label(LabelChoice::None));
    assert!(e.contains("column 'city' is text (Utf8)"), "{e}");
    // Kept as a feature on request: then `class` is text too.
    let keep = LoadOptions {
        keep_label_column: true,
        ..label(LabelChoice::None)
    };
    let e = err(&pq, &keep);
    assert!(
        e.contains("columns 'city' (Utf8), 'class' (Utf8) are not numeric"),
        "{e}"
    );
}

#[test]
fn csv_ignores_columns_whose_first_row_is_text() {
    let dir = tmp();
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "a,city,b,label\n1,x,4,p\n2,y,5,q\n3,z,6,p\n").unwrap();
    let e = err(&csv, &opts());
    assert!(e.contains("\"x\" is not a number"), "{e}");
    let o = LoadOptions {
        ignore_non_numeric: true,
        ..opts()
    };
    let ds = read(&csv, &o).unwrap();
    assert_eq!(ds.feature_names, ["a", "b"]);
    assert_eq!(ds.x.f64().row(1).to_vec(), [2.0, 5.0]);
    assert!(
        ds.notes.iter().any(|n| n.contains("'city'")),
        "{:?}",
        ds.notes
    );
    // Text further down a numeric column is still an error.
    std::fs::write(&csv, "a,b\n1,2\n3,oops\n").unwrap();
    assert!(err(&csv, &o).contains("\"oops\" is not a number"));
}

fn with_nulls() -> RecordBatch {
    let mut a = Float64Builder::new();
    a.append_value(1.0);
    a.append_null();
    a.append_value(3.0);
    a.append_value(f64::NAN);
    let mut b = Int32Builder::new();
    b.append_value(10);
    b.append_value(20);
    b.append_null();
    b.append_value(40);
    batch(vec![
        ("a", Arc::new(a.finish()) as ArrayRef),
        ("b", Arc::new(b.finish())),
        (
            "label",
            Arc::new(StringArray::from(vec!["u", "v", "u", "v"])),
        ),
    ])
}

#[test]
fn nulls_are_missing_cells() {
    let dir = tmp();
    let pq = dir.path().join("n.parquet");
    write_parquet(&pq, &[with_nulls()], Compression::SNAPPY, 1000);
    let e = err(&pq, &opts());
    assert!(
        e.ends_with("row 2, column 1 (\"a\"): null cell (use --impute mean or --drop-incomplete)"),
        "{e}"
    );
    let ds = read(
        &pq,
        &LoadOptions {
            missing: Missing::ImputeMean,
            ..opts()
        },
    )
    .unwrap();
    assert_eq!(ds.x.f64().column(0).to_vec(), [1.0, 2.0, 3.0, 2.0]);
    assert_eq!(
        ds.x.f64().column(1).to_vec(),
        [10.0, 20.0, 70.0 / 3.0, 40.0]
    );
    assert!(
        ds.notes.iter().any(|n| n.contains("imputed 3")),
        "{:?}",
        ds.notes
    );
    let ds = read(
        &pq,
        &LoadOptions {
            missing: Missing::DropIncomplete,
            ..opts()
        },
    )
    .unwrap();
    assert_eq!(ds.n(), 1);
    assert_eq!(ds.x.f64().row(0).to_vec(), [1.0, 10.0]);
    assert_eq!(ds.labels.unwrap().names, ["u"]);
}

#[test]
fn a_null_label_is_an_error() {
    let dir = tmp();
    let pq = dir.path().join("l.parquet");
    let b = batch(vec![
        (
            "a",
            Arc::new(Float64Array::from(vec![1.0, 2.0])) as ArrayRef,
        ),
        ("y", Arc::new(StringArray::from(vec![Some("p"), None]))),
    ]);
    write_parquet(&pq, &[b], Compression::SNAPPY, 1000);
    let e = err(&pq, &opts());
    assert!(
        e.ends_with("row 2, column 2 (\"y\"): empty label (null)"),
        "{e}"
    );
}

/// Mixed types: a categorical (dictionary) label, small integers, f32.
fn mixed() -> RecordBatch {
    let mut cat = StringDictionaryBuilder::<Int8Type>::new();
    for s in ["red", "blue", "red", "green"] {
        cat.append_value(s);
    }
    batch(vec![
        (
            "u8",
            Arc::new(UInt8Array::from(vec![1u8, 2, 3, 4])) as ArrayRef,
        ),
        (
            "f32",
            Arc::new(Float32Array::from(vec![0.5f32, 1.5, 2.5, 3.5])),
        ),
        ("target", Arc::new(cat.finish())),
    ])
}

fn check_mixed(ds: &Dataset) {
    assert_eq!(ds.feature_names, ["u8", "f32"]);
    assert_eq!(ds.x.f64().row(3).to_vec(), [4.0, 3.5]);
    let l = ds.labels.as_ref().unwrap();
    assert_eq!(l.names, ["red", "blue", "green"]);
    assert_eq!(l.ids, [0, 1, 0, 2]);
}

#[test]
fn feather_and_ipc_round_trips() {
    let dir = tmp();
    let (orig, batches) = iris();
    let by_name = label(LabelChoice::Name("species".into()));
    for lz4 in [false, true] {
        let f = dir.path().join(format!("iris{lz4}.feather"));
        write_feather(&f, &batches, lz4);
        let ds = read(&f, &by_name).unwrap();
        assert_eq!(ds.x.f64(), orig.x.f64());
        assert_eq!(ds.labels.unwrap().ids, orig.labels.as_ref().unwrap().ids);
    }
    // The stream format, under .arrow.
    let s = dir.path().join("iris.arrow");
    write_stream(&s, &batches);
    let ds = read(&s, &by_name).unwrap();
    assert_eq!(ds.x.f64(), orig.x.f64());
    // Categorical labels and other numeric types, in each format.
    let m = mixed();
    let f = dir.path().join("m.feather");
    write_feather(&f, std::slice::from_ref(&m), false);
    check_mixed(&read(&f, &opts()).unwrap());
    let pq = dir.path().join("m.parquet");
    write_parquet(&pq, &[m], Compression::ZSTD(ZstdLevel::default()), 1000);
    check_mixed(&read(&pq, &opts()).unwrap());
}

#[test]
fn damaged_files_are_refused_not_panicked_on() {
    let dir = tmp();
    let (_, batches) = iris();
    let by_name = label(LabelChoice::Name("species".into()));
    let pq = dir.path().join("good.parquet");
    write_parquet(&pq, &batches, Compression::SNAPPY, 40);
    let good = std::fs::read(&pq).unwrap();
    let fe = dir.path().join("good.feather");
    write_feather(&fe, &batches, true);
    let good_fe = std::fs::read(&fe).unwrap();

    let bad = |name: &str, bytes: &[u8]| -> PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    // Truncated.
    let e = err(&bad("cut.parquet", &good[..good.len() / 2]), &by_name);
    assert!(e.contains("not readable as a Parquet file"), "{e}");
    let e = err(&bad("cut.feather", &good_fe[..good_fe.len() / 2]), &by_name);
    assert!(e.contains("not readable as an Arrow IPC"), "{e}");
    // Garbage.
    let garbage: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    for ext in ["parquet", "feather", "arrow"] {
        let e = err(&bad(&format!("junk.{ext}"), &garbage), &by_name);
        assert!(e.contains("not readable as"), "{e}");
    }
    assert!(err(&bad("empty.parquet", b""), &by_name).contains("not readable"));
    // Garbage inside well-framed files, in each compression: every
    // outcome is a result (PARQUET_FUZZ=N sets the mutations per file).
    let mut fixtures = vec![("m.feather", good_fe)];
    for (i, c) in [
        Compression::SNAPPY,
        Compression::ZSTD(ZstdLevel::default()),
        Compression::GZIP(GzipLevel::default()),
        Compression::LZ4_RAW,
    ]
    .into_iter()
    .enumerate()
    {
        let p = dir.path().join(format!("c{i}.parquet"));
        write_parquet(&p, &batches, c, 40);
        fixtures.push(("m.parquet", std::fs::read(&p).unwrap()));
    }
    let zf = dir.path().join("z.feather");
    write_feather(&zf, &[mixed()], true);
    fixtures.push(("m.feather", std::fs::read(&zf).unwrap()));
    let sf = dir.path().join("s.arrow");
    write_stream(&sf, &batches);
    fixtures.push(("m.arrow", std::fs::read(&sf).unwrap()));
    let rounds: usize = std::env::var("PARQUET_FUZZ")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (name, good) in &fixtures {
        for round in 0..rounds {
            let mut b = good.clone();
            for _ in 0..1 + next() % 8 {
                let i = (next() % b.len() as u64) as usize;
                b[i] = next() as u8;
            }
            let p = bad(name, &b);
            let r = std::panic::catch_unwind(|| read(&p, &by_name));
            assert!(r.is_ok(), "{name}, round {round}: the loader panicked");
        }
    }
}

#[test]
fn the_memory_budget_holds() {
    let dir = tmp();
    let (_, batches) = iris();
    let pq = dir.path().join("iris.parquet");
    write_parquet(&pq, &batches, Compression::SNAPPY, 1000);
    let o = LoadOptions {
        label: LabelChoice::Name("species".into()),
        max_memory: Some(2000),
        ..opts()
    };
    let e = read(&pq, &o).unwrap_err();
    assert!(matches!(e, meanscape::Error::Resource(_)), "{e}");
    let len = std::fs::metadata(&pq).unwrap().len();
    // The file fits, its decoded columns do not.
    let o = LoadOptions {
        max_memory: Some(len + 100),
        ..o
    };
    let e = read(&pq, &o).unwrap_err().to_string();
    assert!(e.contains("memory limit"), "{e}");
}

#[test]
fn a_schema_with_no_numeric_column_is_refused() {
    let dir = tmp();
    let pq = dir.path().join("s.parquet");
    let b = batch(vec![(
        "name",
        Arc::new(StringArray::from(vec!["a", "b"])) as ArrayRef,
    )]);
    write_parquet(&pq, &[b], Compression::SNAPPY, 1000);
    let o = LoadOptions {
        ignore_non_numeric: true,
        ..opts()
    };
    assert!(err(&pq, &o).contains("no numeric feature columns"));
    let e = err(&pq, &label(LabelChoice::Index(0)));
    assert!(
        e.contains("the only column (\"name\") holds the labels"),
        "{e}"
    );
}

#[test]
fn the_command_line_reads_parquet() {
    let dir = tmp();
    let pq = dir.path().join("iris.parquet");
    let (_, mut batches) = iris();
    // A text column besides the labels, left out with the flag.
    batches = batches
        .into_iter()
        .map(|b| {
            let n = b.num_rows();
            let mut cols: Vec<(String, ArrayRef)> = b
                .schema()
                .fields()
                .iter()
                .zip(b.columns())
                .map(|(f, c)| (f.name().clone(), c.clone()))
                .collect();
            cols.push(("note".into(), Arc::new(StringArray::from(vec!["x"; n]))));
            RecordBatch::try_from_iter(cols).unwrap()
        })
        .collect();
    write_parquet(&pq, &batches, Compression::SNAPPY, 64);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args(["run", "--data", pq.to_str().unwrap(), "--label", "species"])
        .args(["--ignore-non-numeric", "--json", "--seed", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["n"], 150);
    assert_eq!(v["p"], 4);
    assert_eq!(v["k"], 3);
    assert!(v["labels"].is_object() || v["nmi"].is_number() || v.to_string().contains("nmi"));
    let cmd = v["command"].as_str().unwrap();
    assert!(
        cmd.contains("--label species") && cmd.ends_with("--ignore-non-numeric"),
        "{cmd}"
    );
    // Without the flag: one line on stderr, exit code 2.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_meanscape"))
        .args([
            "run",
            "--data",
            pq.to_str().unwrap(),
            "--label",
            "species",
            "--json",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("column 'note' is text (Utf8)"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn float32_columns_are_read_as_f32_unless_asked() {
    let dir = tmp();
    let f32s = |v: &[f32]| -> ArrayRef { Arc::new(Float32Array::from(v.to_vec())) };
    let b = batch(vec![
        ("a", f32s(&[1.0, 2.0, 3.0, 4.0])),
        ("b", f32s(&[0.5, 0.25, 0.125, 1.5])),
        (
            "label",
            Arc::new(StringArray::from(vec!["x", "y", "x", "y"])),
        ),
    ]);
    let path = dir.path().join("t.parquet");
    write_parquet(&path, &[b], Compression::SNAPPY, 1000);
    let spec = path.to_str().unwrap();
    let auto = meanscape::load(
        spec,
        &LoadOptions::default(),
        meanscape::data::Scaling::None,
    )
    .unwrap();
    assert_eq!(auto.problem.dtype(), meanscape::data::Dtype::F32);
    // One f64 column makes the table f64.
    let mixed = batch(vec![
        ("a", f32s(&[1.0, 2.0, 3.0, 4.0])),
        (
            "b",
            Arc::new(Float64Array::from(vec![0.5, 0.25, 0.125, 1.5])),
        ),
    ]);
    let path2 = dir.path().join("m.parquet");
    write_parquet(&path2, &[mixed], Compression::SNAPPY, 1000);
    let l = meanscape::load(
        path2.to_str().unwrap(),
        &LoadOptions::default(),
        meanscape::data::Scaling::None,
    )
    .unwrap();
    assert_eq!(l.problem.dtype(), meanscape::data::Dtype::F64);
    let asked = LoadOptions {
        dtype: Some(meanscape::data::Dtype::F64),
        ..Default::default()
    };
    let l = meanscape::load(spec, &asked, meanscape::data::Scaling::None).unwrap();
    assert_eq!(l.problem.dtype(), meanscape::data::Dtype::F64);
}
