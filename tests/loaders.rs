//! Every fixture under tests/fixtures/, loaded through the public API
//! (`DataSource` + `load`). The reference data sets are checked in
//! tests/reference.rs.
//!
//! The binary fixtures are written by tests/fixtures/make_binary_fixtures.py.

use meanscape::Error;
use meanscape::data::{DataSource, Dataset, LabelChoice, LoadOptions, Missing, load};
use ndarray::{Array2, array};
use std::path::{Path, PathBuf};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

fn load_fixture(rel: &str, opts: &LoadOptions) -> meanscape::Result<Dataset> {
    load(&DataSource::File(fixture(rel)), opts)
}

fn good(rel: &str) -> Dataset {
    good_with(rel, &LoadOptions::default())
}

fn good_with(rel: &str, opts: &LoadOptions) -> Dataset {
    load_fixture(rel, opts).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The message of the `Error::Data` that loading `rel` must give.
fn data_error(rel: &str, opts: &LoadOptions) -> String {
    match load_fixture(rel, opts) {
        Err(Error::Data(m)) => {
            assert!(!m.contains('\n'), "message on more than one line: {m}");
            assert!(
                m.starts_with(&fixture(rel).display().to_string()),
                "message must start with the path: {m}"
            );
            m
        }
        Err(other) => panic!("{rel}: expected Error::Data, got {other:?}"),
        Ok(ds) => panic!("{rel}: expected an error, loaded {}×{}", ds.n(), ds.p()),
    }
}

fn default_error(rel: &str) -> String {
    data_error(rel, &LoadOptions::default())
}

fn with_label(label: LabelChoice) -> LoadOptions {
    LoadOptions {
        label,
        ..Default::default()
    }
}

/// `--label none --keep-label-column`.
fn keep_label_column() -> LoadOptions {
    LoadOptions {
        label: LabelChoice::None,
        keep_label_column: true,
        ..Default::default()
    }
}

fn with_missing(missing: Missing) -> LoadOptions {
    LoadOptions {
        missing,
        ..Default::default()
    }
}

fn label_names(ds: &Dataset) -> Vec<&str> {
    let l = ds.labels.as_ref().expect("labels");
    l.ids.iter().map(|&i| l.names[i].as_str()).collect()
}

// ------------------------------------------------------------- good files

#[test]
fn bom_crlf_and_quoted_fields() {
    let ds = good("good/bom_crlf_quoted.csv");
    assert_eq!((ds.n(), ds.p()), (3, 2));
    assert_eq!(ds.feature_names, ["sepal length", "sepal, width"]);
    assert_eq!(ds.x.f64(), array![[5.1, 3.5], [4.9, 3.0], [6.3, 2.9]]);
    assert_eq!(label_names(&ds), ["setosa", "setosa", "vir,ginica"]);
    assert_eq!(ds.name, "bom_crlf_quoted");
    assert_eq!(
        ds.source,
        fixture("good/bom_crlf_quoted.csv").display().to_string()
    );
}

#[test]
fn tab_separated_with_target_column() {
    let ds = good("good/tabs.tsv");
    assert_eq!((ds.n(), ds.p()), (3, 3));
    assert_eq!(ds.feature_names, ["x", "y", "z"]);
    assert_eq!(ds.x.f64().row(1).to_vec(), [1.1, 1.2, 1.3]);
    assert_eq!(label_names(&ds), ["1", "2", "1"]);
}

#[test]
fn semicolon_separated() {
    let ds = good("good/semicolon.csv");
    assert_eq!((ds.n(), ds.p()), (2, 3));
    assert_eq!(ds.feature_names, ["a", "b", "c"]);
    assert_eq!(ds.x.f64(), array![[1.5, 2.0, 3.0], [4.0, 5.25, 6.0]]);
    assert!(ds.labels.is_none());
}

#[test]
fn whitespace_separated() {
    let ds = good("good/whitespace.txt");
    assert_eq!((ds.n(), ds.p()), (3, 3));
    assert_eq!(ds.feature_names, ["f1", "f2", "f3"]);
    assert_eq!(ds.x.f64(), array![[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]]);
    assert!(ds.labels.is_none());
}

#[test]
fn headerless_file() {
    // Auto without a header: no labels, every column a feature.
    let ds = good("good/headerless.csv");
    assert_eq!((ds.n(), ds.p()), (5, 4));
    assert_eq!(ds.feature_names, ["f1", "f2", "f3", "f4"]);
    assert_eq!(ds.x.f64().row(1).to_vec(), [0.1, 2.0, 300.0, 1.0]);
    assert!(ds.labels.is_none());

    // The last column as labels, by 0-based index: 1 and 1.0 are one class.
    let ds = good_with("good/headerless.csv", &with_label(LabelChoice::Index(3)));
    assert_eq!((ds.n(), ds.p()), (5, 3));
    assert_eq!(ds.feature_names, ["f1", "f2", "f3"]);
    assert_eq!(label_names(&ds), ["1", "1", "2", "2", "1"]);
    assert_eq!(ds.labels.as_ref().unwrap().n_classes(), 2);

    let e = data_error("good/headerless.csv", &with_label(LabelChoice::Index(4)));
    assert!(e.contains("label column index 4 is out of range"), "{e}");
    let e = data_error(
        "good/headerless.csv",
        &with_label(LabelChoice::Name("label".into())),
    );
    assert!(e.contains("no header row"), "{e}");
}

#[test]
fn string_labels_in_a_class_column() {
    let ds = good("good/string_labels.csv");
    assert_eq!((ds.n(), ds.p()), (4, 2));
    assert_eq!(ds.feature_names, ["f_a", "f_b"]);
    assert_eq!(label_names(&ds), ["cat", "dog", "cat", "bird"]);
    assert_eq!(ds.labels.as_ref().unwrap().names, ["cat", "dog", "bird"]);

    // --label none: no ground truth, and the Class column is still no
    // feature (issue 27); the note and `label_left_out` say so.
    let ds = good_with("good/string_labels.csv", &with_label(LabelChoice::None));
    assert_eq!(ds.feature_names, ["f_a", "f_b"]);
    assert!(ds.labels.is_none());
    assert_eq!(ds.label_left_out.as_deref(), Some("Class"));
    assert!(
        ds.notes
            .iter()
            .any(|n| n.contains("column 'Class' left out of the features")),
        "{:?}",
        ds.notes
    );
    // Kept on request: then a feature, and not a number.
    let e = data_error("good/string_labels.csv", &keep_label_column());
    assert!(
        e.ends_with(
            "good/string_labels.csv: line 2, column 3 (\"Class\"): \"cat\" is not a number"
        ),
        "{e}"
    );
    // A label column by name, and a name that is not there.
    for choice in [LabelChoice::Name("class".into()), LabelChoice::Index(2)] {
        let ds = good_with("good/string_labels.csv", &with_label(choice));
        assert_eq!(ds.feature_names, ["f_a", "f_b"]);
        assert_eq!(label_names(&ds), ["cat", "dog", "cat", "bird"]);
    }
    let e = data_error(
        "good/string_labels.csv",
        &with_label(LabelChoice::Name("species".into())),
    );
    assert!(
        e.contains("no column named \"species\"") && e.contains("\"f_a\", \"f_b\", \"Class\""),
        "{e}"
    );
}

#[test]
fn small_npy() {
    let ds = good("good/small.npy");
    assert_eq!((ds.n(), ds.p()), (4, 3));
    assert_eq!(ds.feature_names, ["f1", "f2", "f3"]);
    assert_eq!(
        ds.x.f64(),
        array![
            [1.0, 2.0, 3.0],
            [4.0, 5.0, 6.0],
            [7.5, 8.5, 9.5],
            [-1.0, 0.0, 1e-3]
        ]
    );
    assert!(ds.labels.is_none());
    assert_eq!(ds.name, "small");
}

#[test]
fn fortran_order_int_npy_with_label_column() {
    let ds = good("good/fortran_int.npy");
    assert_eq!(
        ds.x.f64(),
        array![[1., 10., 0.], [2., 20., 1.], [3., 30., 0.]]
    );
    let ds = good_with("good/fortran_int.npy", &with_label(LabelChoice::Index(2)));
    assert_eq!(ds.x.f64(), array![[1., 10.], [2., 20.], [3., 30.]]);
    assert_eq!(label_names(&ds), ["0", "1", "0"]);
}

#[test]
fn small_mat() {
    let ds = good("good/small.mat");
    assert_eq!((ds.n(), ds.p()), (4, 3));
    assert_eq!(
        ds.x.f64(),
        array![
            [1.0, 2.0, 3.0],
            [4.0, 5.0, 6.0],
            [7.5, 8.5, 9.5],
            [-1.0, 0.0, 1e-3]
        ]
    );
    assert_eq!(label_names(&ds), ["1", "2", "2", "3"]);

    // Another variable, compressed with dynamic Huffman codes.
    let o = LoadOptions {
        var: Some("big".into()),
        label: LabelChoice::None,
        ..Default::default()
    };
    let ds = good_with("good/small.mat", &o);
    let expect = Array2::from_shape_fn((30, 20), |(i, j)| ((i * 31 + j * 17) % 13) as f64 / 4.0);
    assert_eq!(ds.x.f64(), expect);
    assert!(ds.labels.is_none());
}

#[test]
fn int32_mat() {
    let ds = good("good/int32.mat");
    let expect = Array2::from_shape_fn((30, 20), |(i, j)| ((i * 31 + j * 17) % 13) as f64 - 6.0);
    assert_eq!(ds.x.f64(), expect);
    let l = ds.labels.as_ref().unwrap();
    assert_eq!(l.names, ["0", "1", "2"]);
    assert_eq!(l.ids[..4], [0, 1, 2, 0]);
}

#[test]
fn mat_variables_that_cannot_be_used() {
    let var = |v: &str| LoadOptions {
        var: Some(v.into()),
        ..Default::default()
    };
    let e = data_error("good/small.mat", &var("nosuch"));
    assert!(
        e.contains("no variable named \"nosuch\"")
            && e.contains(
                "fea (4×3 double), gnd (4×1 double), big (30×20 double), names (1×3 char), \
                 S (2×2 sparse), C (0×0 cell)"
            ),
        "{e}"
    );
    let e = data_error("good/small.mat", &var("S"));
    assert!(
        e.contains("\"S\" is a sparse matrix") && e.contains("full(S)"),
        "{e}"
    );
    let e = data_error("good/small.mat", &var("names"));
    assert!(e.contains("\"names\" is a char array"), "{e}");
    let e = data_error("good/small.mat", &var("C"));
    assert!(e.contains("\"C\" is a cell array"), "{e}");
    let e = data_error(
        "good/small.mat",
        &with_label(LabelChoice::Name("labels".into())),
    );
    assert!(e.contains("no label variable named \"labels\""), "{e}");
    // Labels whose length does not match.
    let o = LoadOptions {
        var: Some("big".into()),
        ..Default::default()
    };
    let e = data_error("good/small.mat", &o);
    assert!(
        e.contains("\"gnd\" has 4 values but \"big\" has 30 rows"),
        "{e}"
    );
}

// -------------------------------------------------------------- bad files

#[test]
fn ragged_row() {
    let e = default_error("bad/ragged.csv");
    assert!(
        e.ends_with("bad/ragged.csv: line 5: 3 fields, expected 5 like the header (line 1)"),
        "{e}"
    );
}

#[test]
fn non_numeric_cell() {
    let e = default_error("bad/not_a_number.csv");
    assert!(
        e.ends_with(
            "bad/not_a_number.csv: line 7, column 3 (\"petal_width\"): \"abc\" is not a number"
        ),
        "{e}"
    );
}

#[test]
fn nan_cell() {
    let e = default_error("bad/nan_cell.csv");
    assert!(
        e.ends_with(
            "bad/nan_cell.csv: line 3, column 2 (\"x2\"): \"NaN\" is a missing value \
             (use --impute mean or --drop-incomplete)"
        ),
        "{e}"
    );
    let ds = good_with("bad/nan_cell.csv", &with_missing(Missing::ImputeMean));
    assert_eq!(ds.x.f64(), array![[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]]);
    assert_eq!(label_names(&ds), ["a", "b", "a"]);
    let ds = good_with("bad/nan_cell.csv", &with_missing(Missing::DropIncomplete));
    assert_eq!(ds.x.f64(), array![[1., 2., 3.], [7., 8., 9.]]);
    assert_eq!(label_names(&ds), ["a", "a"]);
}

#[test]
fn inf_cell() {
    let e = default_error("bad/inf_cell.csv");
    assert!(
        e.ends_with(
            "bad/inf_cell.csv: line 4, column 1 (\"a\"): \"-inf\" is not a finite number \
             (use --impute mean or --drop-incomplete)"
        ),
        "{e}"
    );
    let ds = good_with("bad/inf_cell.csv", &with_missing(Missing::ImputeMean));
    assert_eq!(ds.x.f64(), array![[1., 2.], [3., 4.], [2., 6.]]);
    let ds = good_with("bad/inf_cell.csv", &with_missing(Missing::DropIncomplete));
    assert_eq!(ds.x.f64(), array![[1., 2.], [3., 4.]]);
}

#[test]
fn empty_cell() {
    let e = default_error("bad/empty_cell.csv");
    assert!(
        e.ends_with(
            "bad/empty_cell.csv: line 4, column 2 (\"x2\"): empty cell \
             (use --impute mean or --drop-incomplete)"
        ),
        "{e}"
    );
    let ds = good_with("bad/empty_cell.csv", &with_missing(Missing::ImputeMean));
    assert_eq!((ds.n(), ds.p()), (4, 3));
    assert_eq!(ds.x.f64().row(2).to_vec(), [3.0, 14.0 / 3.0, 9.0]);
    assert_eq!(ds.notes, ["imputed 1 missing cell(s) with column means"]);
    let ds = good_with("bad/empty_cell.csv", &with_missing(Missing::DropIncomplete));
    assert_eq!(
        ds.x.f64(),
        array![[1., 2., 3.], [2., 4., 6.], [4., 8., 12.]]
    );
    assert_eq!(label_names(&ds), ["0", "1", "1"]);
}

#[test]
fn empty_file() {
    let e = default_error("bad/empty.csv");
    assert!(e.ends_with("bad/empty.csv: empty file"), "{e}");
}

#[test]
fn header_only() {
    let e = default_error("bad/header_only.csv");
    assert!(
        e.ends_with("bad/header_only.csv: header only, no data rows"),
        "{e}"
    );
}

#[test]
fn label_column_only() {
    let e = default_error("bad/label_only.csv");
    assert!(e.contains("label_only.csv: no feature columns"), "{e}");
    // With --label none it is left out too, which leaves nothing.
    let e = data_error("bad/label_only.csv", &with_label(LabelChoice::None));
    assert!(
        e.contains("no feature columns") && e.contains("--keep-label-column"),
        "{e}"
    );
    // With --keep-label-column it is an ordinary feature.
    let ds = good_with("bad/label_only.csv", &keep_label_column());
    assert_eq!((ds.n(), ds.p()), (2, 1));
    assert!(ds.label_left_out.is_none());
}

#[test]
fn empty_label() {
    let e = default_error("bad/empty_label.csv");
    assert!(
        e.ends_with("bad/empty_label.csv: line 3, column 3 (\"label\"): empty label"),
        "{e}"
    );
}

#[test]
fn one_dimensional_npy() {
    let e = default_error("bad/vector_1d.npy");
    assert!(
        e.contains("vector_1d.npy: 1-D array of shape (5,)") && e.contains("2-D"),
        "{e}"
    );
}

#[test]
fn three_dimensional_npy() {
    let e = default_error("bad/cube_3d.npy");
    // A 3-D array is a stack of kernels (v×n×n); this one is not symmetric.
    assert!(
        e.contains("cube_3d.npy: a 3-D array is read as a stack of kernels (v×n×n): kernel K1: not symmetric"),
        "{e}"
    );
}

#[test]
fn nan_in_npy() {
    let e = default_error("bad/nan.npy");
    assert!(
        e.contains("nan.npy: row 2, column 2: value NaN is not a finite number"),
        "{e}"
    );
    let ds = good_with("bad/nan.npy", &with_missing(Missing::ImputeMean));
    assert_eq!(ds.x.f64(), array![[1., 2.], [3., 2.]]);
    let ds = good_with("bad/nan.npy", &with_missing(Missing::DropIncomplete));
    assert_eq!(ds.x.f64(), array![[1., 2.]]);
}

// ------------------------------------------------------------ IDX (MNIST)

fn idx_bytes(code: u8, dims: &[u32], data: &[u8]) -> Vec<u8> {
    let mut b = vec![0, 0, code, dims.len() as u8];
    for d in dims {
        b.extend_from_slice(&d.to_be_bytes());
    }
    b.extend_from_slice(data);
    b
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

#[test]
fn idx_images_load_with_the_labels_beside_them() {
    let dir = tempfile::tempdir().unwrap();
    let pixels: Vec<u8> = (0..24).collect();
    let images = idx_bytes(0x08, &[3, 2, 4], &pixels);
    let labels = idx_bytes(0x08, &[3], &[7, 2, 7]);
    for gz in [false, true] {
        let suffix = if gz { ".gz" } else { "" };
        let wrap = |b: &[u8]| if gz { gzip(b) } else { b.to_vec() };
        let img = dir.path().join(format!("t10k-images-idx3-ubyte{suffix}"));
        std::fs::write(&img, wrap(&images)).unwrap();
        let src = DataSource::File(img.clone());
        // Without the labels file: features only.
        let ds = load(&src, &LoadOptions::default()).unwrap();
        assert_eq!((ds.n(), ds.p()), (3, 8));
        assert_eq!(
            ds.x.f64().row(2).to_vec(),
            (16..24).map(f64::from).collect::<Vec<_>>()
        );
        assert!(ds.labels.is_none());
        assert_eq!(ds.name, "t10k-images");
        // With it (found by name): two classes.
        let lab = dir.path().join(format!("t10k-labels-idx1-ubyte{suffix}"));
        std::fs::write(&lab, wrap(&labels)).unwrap();
        let ds = load(&src, &LoadOptions::default()).unwrap();
        let l = ds.labels.unwrap();
        assert_eq!(l.n_classes(), 2);
        assert_eq!(l.ids[0], l.ids[2]);
        let none = LoadOptions {
            label: LabelChoice::None,
            ..LoadOptions::default()
        };
        assert!(load(&src, &none).unwrap().labels.is_none());
        std::fs::remove_file(&lab).unwrap();
    }
}

#[test]
fn bad_idx_files_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("x-images-idx3-ubyte");
    // Truncated data.
    std::fs::write(&img, idx_bytes(0x08, &[3, 2, 2], &[1, 2, 3])).unwrap();
    let e = load(&DataSource::File(img.clone()), &LoadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("need 12 bytes"), "{e}");
    // Labels that do not match the images.
    std::fs::write(&img, idx_bytes(0x08, &[3, 2, 2], &[0; 12])).unwrap();
    let lab = dir.path().join("x-labels-idx1-ubyte");
    std::fs::write(&lab, idx_bytes(0x08, &[2], &[1, 2])).unwrap();
    let e = load(&DataSource::File(img), &LoadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("do not match the 3 images"), "{e}");
    // A labels file given as data.
    let e = load(&DataSource::File(lab), &LoadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("1-D IDX array"), "{e}");
}

// ------------------------------------------------- more formats, fixtures

#[test]
fn idx_fixtures_with_their_labels() {
    for name in [
        "good/four-images-idx3-ubyte",
        "good/four-images-idx3-ubyte.gz",
    ] {
        let ds = good(name);
        assert_eq!((ds.n(), ds.p()), (4, 6));
        assert_eq!(ds.x.f64()[[0, 1]], 37.0);
        assert_eq!(label_names(&ds), ["3", "1", "3", "0"]);
        assert_eq!(ds.name, "four-images");
        let labels = if name.ends_with(".gz") {
            "good/four-labels-idx1-ubyte.gz"
        } else {
            "good/four-labels-idx1-ubyte"
        };
        assert_eq!(ds.inputs, [fixture(name), fixture(labels)]);
        // The labels file belongs to the input even when it is not read.
        let ds = good_with(name, &with_label(LabelChoice::None));
        assert!(ds.labels.is_none());
        assert_eq!(ds.inputs, [fixture(name), fixture(labels)]);
    }
    let ds = good("good/floats-idx2-float");
    assert_eq!(
        ds.x.f64(),
        array![[0.5, -1.0], [2.0, 3.25], [1e-3f32 as f64, 7.0]]
    );
    assert_eq!(ds.inputs, [fixture("good/floats-idx2-float")]);
}

#[test]
fn bad_idx_fixtures() {
    let e = default_error("bad/short-images-idx3-ubyte");
    assert!(
        e.ends_with("IDX dimensions [4, 2, 3] need 24 bytes of data, the file has 20"),
        "{e}"
    );
    let e = default_error("bad/vector-idx1-ubyte");
    assert!(e.contains("a 1-D IDX array (a labels file?)"), "{e}");
    let e = default_error("bad/zero-images-idx3-ubyte");
    assert!(e.contains("no data rows"), "{e}");
}

#[test]
fn concatenated_gzip_members_are_one_file() {
    let ds = good("good/two_members.csv.gz");
    assert_eq!(ds.x.f64(), array![[1., 2.], [3., 4.], [5., 6.]]);
    assert_eq!(label_names(&ds), ["x", "y", "x"]);
}

#[test]
fn gzip_with_junk_appended_is_refused() {
    let e = default_error("bad/junk_after.csv.gz");
    assert!(
        e.contains(
            "not a readable gzip file (8 byte(s) after the end of the compressed data, at offset"
        ) && e.ends_with("are not another gzip member: the file is damaged or has data appended)"),
        "{e}"
    );
}

#[test]
fn old_mac_line_endings() {
    let ds = good("good/old_mac.csv");
    assert_eq!(ds.x.f64(), array![[1., 2.], [3., 4.], [5., 6.]]);
    assert_eq!(label_names(&ds), ["a", "b", "a"]);
    // Line numbers count CR-only line ends.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mac.csv");
    std::fs::write(&p, "a,b\r1,2\r3,x\r").unwrap();
    let e = load(&DataSource::File(p), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("mac.csv: line 3, column 2 (\"b\"): \"x\" is not a number"),
        "{e}"
    );
}

#[test]
fn every_numeric_mat_class_compressed_or_not_either_byte_order() {
    let signed = array![[-2., -1.], [0., 2.], [2., 5.]];
    let unsigned = array![[2., 3.], [4., 6.], [6., 9.]];
    let logical = array![[1., 1.], [0., 0.], [1., 0.]];
    let classes = [
        ("int8", true),
        ("uint8", false),
        ("int16", true),
        ("uint16", false),
        ("int32", true),
        ("uint32", false),
        ("int64", true),
        ("uint64", false),
        ("single", true),
        ("double", true),
    ];
    for (file, only) in [
        ("good/types.mat", None),
        ("good/types_be.mat", Some(["int16", "int64", "double"])),
    ] {
        for (class, is_signed) in classes {
            if only.is_some_and(|o| !o.contains(&class)) {
                continue;
            }
            for form in ["u", "z"] {
                let o = LoadOptions {
                    var: Some(format!("{class}_{form}")),
                    ..Default::default()
                };
                let ds = good_with(file, &o);
                let want = if is_signed { &signed } else { &unsigned };
                assert_eq!(ds.x.f64(), want, "{file} {class}_{form}");
            }
        }
        for form in ["u", "z"] {
            let o = LoadOptions {
                var: Some(format!("logical_{form}")),
                ..Default::default()
            };
            assert_eq!(
                good_with(file, &o).x.f64(),
                logical,
                "{file} logical_{form}"
            );
        }
    }
    let e = data_error("good/types.mat", &LoadOptions::default());
    assert!(
        e.contains("none of the variables \"fea\", \"X\", \"data\" holds the features")
            && e.contains("int8_u (3×2 int8), int8_z (3×2 int8)")
            && e.contains(", … (22 in all)"),
        "{e}"
    );
}

#[test]
fn malformed_npy_header_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.npy");
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), ";
    let header = format!("{dict}{}\n", " ".repeat(128 - 10 - dict.len() - 1));
    b.extend((header.len() as u16).to_le_bytes());
    b.extend(header.as_bytes());
    std::fs::write(&p, b).unwrap();
    let e = load(&DataSource::File(p.clone()), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "{}: not a readable .npy file (the header is not a Python dictionary literal)",
            p.display()
        )
    );
}

/// Loads on another thread, failing instead of blocking if it hangs.
fn load_or_hang(path: &Path) -> meanscape::Result<Dataset> {
    let (tx, rx) = std::sync::mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(load(&DataSource::File(path), &LoadOptions::default()));
    });
    rx.recv_timeout(std::time::Duration::from_secs(20))
        .expect("the load blocked")
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_without_waiting() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.csv");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let sock = dir.path().join("sock.csv");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let link = dir.path().join("random.npy");
    std::os::unix::fs::symlink("/dev/urandom", &link).unwrap();
    let cases = [
        (fifo.clone(), "is a named pipe (FIFO), not a regular file"),
        (sock.clone(), "is a socket, not a regular file"),
        (
            PathBuf::from("/dev/urandom"),
            "is a character device, not a regular file",
        ),
        (link.clone(), "is a character device, not a regular file"),
        (
            dir.path().to_path_buf(),
            "is a directory, not a regular file",
        ),
    ];
    for (path, what) in cases {
        let e = load_or_hang(&path).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "{}: {what}; data is read only from regular files (save the data to a file first)",
                path.display()
            )
        );
    }
}

#[test]
fn file_names_with_control_characters_keep_messages_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("two\nlines.csv");
    std::fs::write(&p, "a,b\n1,x\n").unwrap();
    let e = load(&DataSource::File(p), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        !e.contains('\n') && e.contains("two\\nlines.csv: line 2"),
        "{e}"
    );
}

#[test]
fn generators_and_bundled_data_have_no_input_files() {
    let o = LoadOptions::default();
    let ds = load(&DataSource::parse("gen:blobs,n=50").unwrap(), &o).unwrap();
    assert!(ds.inputs.is_empty());
    assert!(
        load(&DataSource::Bundled("iris"), &o)
            .unwrap()
            .inputs
            .is_empty()
    );
    assert_eq!(good("good/tabs.tsv").inputs, [fixture("good/tabs.tsv")]);
}

#[test]
fn generators_check_the_budget_and_their_parts() {
    let src = DataSource::parse("gen:blobs,n=100000,p=200").unwrap();
    let e = load(
        &src,
        &LoadOptions {
            max_memory: Some(100 << 20),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(e, Error::Resource(_)), "{e}");
    assert!(
        e.to_string()
            .starts_with("gen:blobs: generating it needs 156.4 MiB"),
        "{e}"
    );
    let e = DataSource::parse("gen:blobs,,,").unwrap_err().to_string();
    assert!(e.contains("parameter 1 is empty"), "{e}");
}

// ------------------------------------- --label none leaves the labels out

/// Issue 27: `--label none` means "no ground truth", never "cluster on the
/// label column": yeast-like CSV with a numeric `label` column loses it
/// from the features, keeps it with --keep-label-column, and every name
/// that `auto` takes is left out the same way.
#[test]
fn label_none_leaves_a_label_named_column_out_of_the_features() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["label", "CLASS", "target", "y", "cluster"] {
        let csv = dir.path().join(format!("t_{name}.csv"));
        std::fs::write(&csv, format!("a,b,{name}\n1,2,0\n3,4,1\n5,6,0\n")).unwrap();
        let src = DataSource::File(csv);
        let ds = load(&src, &with_label(LabelChoice::None)).unwrap();
        assert_eq!(ds.feature_names, ["a", "b"], "{name}");
        assert!(ds.labels.is_none());
        assert_eq!(ds.label_left_out.as_deref(), Some(name));
        assert_eq!(ds.x.f64().row(1).to_vec(), [3.0, 4.0]);
        let kept = load(&src, &keep_label_column()).unwrap();
        assert_eq!(kept.feature_names, ["a", "b", name]);
        assert_eq!(kept.x.f64().row(1).to_vec(), [3.0, 4.0, 1.0]);
        assert!(kept.label_left_out.is_none() && kept.labels.is_none());
        assert!(!kept.notes.iter().any(|n| n.contains("left out")));
    }
    // No such column: nothing is left out, and no note.
    let csv = dir.path().join("plain.csv");
    std::fs::write(&csv, "a,b\n1,2\n3,4\n").unwrap();
    let ds = load(&DataSource::File(csv), &with_label(LabelChoice::None)).unwrap();
    assert_eq!((ds.p(), ds.label_left_out.clone()), (2, None));
    assert!(ds.notes.is_empty(), "{:?}", ds.notes);
}

/// --keep-label-column without --label none is a mistake, said so.
#[test]
fn keep_label_column_needs_label_none() {
    let o = LoadOptions {
        keep_label_column: true,
        ..Default::default()
    };
    let e = load_fixture("good/string_labels.csv", &o).unwrap_err();
    assert!(
        matches!(&e, Error::Param(m) if m.to_string().contains("--keep-label-column applies with --label none")),
        "{e}"
    );
}

/// The readers whose labels are not a named column (a .mat's `gnd`, an
/// IDX companion file, a .npy) never turn them into features: `none` gives the
/// same features as `auto`.
#[test]
fn label_none_on_readers_with_separate_labels() {
    for rel in ["good/small.mat", "good/four-images-idx3-ubyte"] {
        let auto = good(rel);
        let none = good_with(rel, &with_label(LabelChoice::None));
        assert!(auto.labels.is_some() && none.labels.is_none(), "{rel}");
        assert_eq!(none.x.f64(), auto.x.f64(), "{rel}");
        assert!(none.label_left_out.is_none());
    }
    // A .npy has no column names: `none` reads every column, as `auto`.
    let auto = good("good/small.npy");
    let none = good_with("good/small.npy", &with_label(LabelChoice::None));
    assert_eq!(none.x.f64(), auto.x.f64());
    assert!(none.label_left_out.is_none());
}

/// Parquet and Arrow: the same rule as CSV, by column name.
#[cfg(feature = "parquet")]
#[test]
fn label_none_leaves_the_label_column_out_of_parquet_and_arrow() {
    use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let b = RecordBatch::try_from_iter([
        (
            "a",
            Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0])) as ArrayRef,
        ),
        (
            "Target",
            Arc::new(Int64Array::from(vec![0, 1, 0])) as ArrayRef,
        ),
        (
            "b",
            Arc::new(Float64Array::from(vec![4.0, 5.0, 6.0])) as ArrayRef,
        ),
    ])
    .unwrap();
    let pq = dir.path().join("t.parquet");
    let mut w =
        parquet::arrow::ArrowWriter::try_new(std::fs::File::create(&pq).unwrap(), b.schema(), None)
            .unwrap();
    w.write(&b).unwrap();
    w.close().unwrap();
    let feather = dir.path().join("t.arrow");
    let mut w = arrow_ipc::writer::FileWriter::try_new(
        std::fs::File::create(&feather).unwrap(),
        &b.schema(),
    )
    .unwrap();
    w.write(&b).unwrap();
    w.finish().unwrap();
    for path in [pq, feather] {
        let src = DataSource::File(path.clone());
        let ds = load(&src, &with_label(LabelChoice::None)).unwrap();
        assert_eq!(ds.feature_names, ["a", "b"], "{}", path.display());
        assert!(ds.labels.is_none());
        assert_eq!(ds.label_left_out.as_deref(), Some("Target"));
        assert!(ds.notes.iter().any(|n| n.contains("'Target' left out")));
        let kept = load(&src, &keep_label_column()).unwrap();
        assert_eq!(kept.feature_names, ["a", "Target", "b"]);
    }
    // A text label column left out needs no --ignore-non-numeric.
    let t = RecordBatch::try_from_iter([
        (
            "a",
            Arc::new(Float64Array::from(vec![1.0, 2.0])) as ArrayRef,
        ),
        (
            "class",
            Arc::new(StringArray::from(vec!["p", "q"])) as ArrayRef,
        ),
    ])
    .unwrap();
    let pq = dir.path().join("text.parquet");
    let mut w =
        parquet::arrow::ArrowWriter::try_new(std::fs::File::create(&pq).unwrap(), t.schema(), None)
            .unwrap();
    w.write(&t).unwrap();
    w.close().unwrap();
    let ds = load(&DataSource::File(pq), &with_label(LabelChoice::None)).unwrap();
    assert_eq!(ds.feature_names, ["a"]);
}
