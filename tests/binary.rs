//! What `cargo install --path .` ships is lean: no debug information and
//! no symbol table (the release profile strips both; `--profile
//! profiling` keeps them for perf), and a size that a user can copy over
//! SSH. Checked on an optimised build only: `cargo test` without
//! `--release` builds with debug information on purpose.

use object::{Object, ObjectSection};

const BIN: &str = env!("CARGO_BIN_EXE_meanscape");

#[test]
fn the_release_binary_is_stripped_and_small() {
    if cfg!(debug_assertions) {
        eprintln!("a debug build: the release profile's binary is not checked");
        return;
    }
    let bytes = std::fs::read(BIN).expect("the binary is readable");
    let file = object::File::parse(&*bytes).expect("the binary is an object file");
    let debug: Vec<String> = file
        .sections()
        .filter_map(|s| s.name().ok().map(str::to_string))
        .filter(|name| name.starts_with(".debug_"))
        .collect();
    assert!(debug.is_empty(), "debug sections in {BIN}: {debug:?}");
    assert!(
        file.symbols().next().is_none(),
        "{BIN} still has its symbol table"
    );
    // 119 MB with debug information; about 18 MB stripped. A bound with
    // room for growth that still catches debug information coming back.
    let mb = bytes.len() as f64 / 1e6;
    assert!(mb < 40.0, "{BIN} is {mb:.1} MB");
}
