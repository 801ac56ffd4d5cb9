//! Loading benchmark: how long parsing and loading a delimited file take
//! (the timing that used to be an ignored test). Prints one JSON object.
//!
//!     cargo run --release --example load_bench -- ../shared/data/usps.csv [rounds]

use meanscape::data::{DataSource, LoadOptions, load};
use meanscape::internals::delimited;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: load_bench FILE [rounds]")?;
    let rounds: usize = args.next().map_or(Ok(5), |r| r.parse())?;
    let text = std::fs::read_to_string(&path)?;
    let opts = LoadOptions::default();

    let mut parse_best = f64::INFINITY;
    let mut shape = (0, 0);
    for _ in 0..rounds.max(1) {
        let t = Instant::now();
        let ds = delimited::parse(&text, &path, &opts)?;
        parse_best = parse_best.min(t.elapsed().as_secs_f64());
        shape = (ds.n(), ds.p());
    }
    let mut load_best = f64::INFINITY;
    for _ in 0..rounds.max(1) {
        let t = Instant::now();
        load(&DataSource::File(path.clone().into()), &opts)?;
        load_best = load_best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{}",
        serde_json::json!({
            "file": path,
            "bytes": text.len(),
            "n": shape.0,
            "p": shape.1,
            "rounds": rounds,
            "parse_ms_best": parse_best * 1e3,
            "read_parse_validate_ms_best": load_best * 1e3,
            "parse_mb_per_s": text.len() as f64 / parse_best / 1e6,
        })
    );
    Ok(())
}
