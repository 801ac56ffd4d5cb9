//! The crate's layers hold: faces (cli, tui) over the session (load, run,
//! report, sweep, model, the label-free scores of a fit) over the families (algo) over kernels and data
//! over the solver core over the ground (metrics, linalg, errors, memory,
//! text); safe output files sit with the session. A module may use its own layer and those below, never one
//! above. Read from the sources, so a new upward `use` fails here with the
//! file that made it.

use std::collections::BTreeSet;
use std::path::Path;

/// Each top-level module of `src/` and its layer (higher is nearer the
/// user).
const LAYERS: &[(&str, u8)] = &[
    ("error", 0),
    ("linalg", 0),
    ("memory", 0),
    ("metrics", 0),
    ("numfmt", 0),
    ("text", 0),
    ("solver", 1),
    ("kernel", 2),
    ("data", 2),
    ("algo", 3),
    ("session", 4),
    ("report", 4),
    ("sweep", 4),
    ("model", 4),
    // The label-free scores of a fit, in the algorithm's own space: they
    // read the solver's rows and the kernels' matrices.
    ("fit_scores", 4),
    // Safe output files: both faces write through it; it knows which
    // files a data spec reads, so it sits with the session.
    ("files", 4),
    ("cli", 5),
    ("tui", 5),
];

/// Upward uses that remain, each with why it is not mended yet. The test
/// fails when one of them goes away too, so this list stays true.
const KNOWN: &[(&str, &str, &str)] = &[];

fn layer(name: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == name).map(|&(_, l)| l)
}

/// The module of `src/` that `path` (relative to `src/`) belongs to.
fn top(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    Some(first.trim_end_matches(".rs").to_string())
}

/// `crate::NAME` references outside the file's test module and comments.
fn uses(source: &str) -> BTreeSet<String> {
    let code = source.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            let name: String = rest[i + 7..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.insert(name);
            rest = &rest[i + 7..];
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// (file, the layer it reaches up to) for every upward use in `src/`.
fn upward_uses() -> BTreeSet<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = BTreeSet::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let Some(own) = top(rel).as_deref().and_then(layer) else {
            continue;
        };
        for used in uses(&std::fs::read_to_string(&file).unwrap()) {
            if layer(&used).is_some_and(|l| l > own) {
                let shown = format!("src/{}", rel.display());
                found.insert((shown, used));
            }
        }
    }
    found
}

#[test]
fn no_module_uses_a_layer_above_its_own() {
    let found = upward_uses();
    let known: BTreeSet<(String, String)> = KNOWN
        .iter()
        .map(|(f, m, _)| (f.to_string(), m.to_string()))
        .collect();
    let new: Vec<_> = found.difference(&known).collect();
    assert!(new.is_empty(), "upward uses (file, module used): {new:?}");
    let mended: Vec<_> = known.difference(&found).collect();
    assert!(
        mended.is_empty(),
        "mended, take them out of KNOWN: {mended:?}"
    );
}

#[test]
fn every_top_level_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = top(path.strip_prefix(&src).unwrap()).unwrap();
        if ["lib", "main"].contains(&name.as_str()) {
            continue;
        }
        if layer(&name).is_none() {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "modules without a layer: {missing:?}");
}

#[test]
fn the_reader_finds_an_upward_use_and_skips_comments_and_tests() {
    let source = "use crate::solver::Problem;\n// crate::tui::App\nfn f() { crate::text::clipped(\"\", 1); }\n#[cfg(test)]\nmod tests { use crate::cli::Cli; }\n";
    let got: Vec<String> = uses(source).into_iter().collect();
    assert_eq!(got, ["solver", "text"]);
}
