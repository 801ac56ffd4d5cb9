//! The method notes (docs/methods/) are what the code cites for the
//! mathematics it implements. This test keeps the citations inside the
//! repository:
//!
//! - no file cites the implementer's specifications the project began
//!   with, which live outside the repository (`../shared/spec/…`,
//!   `Spec: kernel-power-kmeans.md §2.4`, a bare `spec §3`, a section
//!   number `§6.1`);
//! - every `docs/methods/<note>.md#<anchor>` (and every relative link between
//!   the notes) names a note that exists and a heading of that note;
//! - every note is listed in docs/methods/README.md, and no note has two
//!   headings with the same anchor.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Folders and files whose citations are checked.
const SCANNED: &[&str] = &[
    "src",
    "tests",
    "bench",
    "examples",
    "scripts",
    "python/meanscape",
    "python/src",
    "python/tests",
    "python/tools",
    "docs",
    "README.md",
];

/// Paths checked for broken note anchors but not for outside citations:
/// this file (its rule tests quote what the rules refuse).
const NOT_YET: &[&str] = &["tests/method_notes.rs"];

/// File types that hold prose or comments.
const TEXT: &[&str] = &["rs", "py", "md", "toml", "R", "sh", "txt", "pyi"];

/// Build output, virtual environments and generated results.
const SKIPPED_DIRS: &[&str] = &["target", "out", "__pycache__", "node_modules"];

/// The specifications outside the repository, by file name. A note of the
/// same name under docs/methods/ may be cited; these names elsewhere may not.
const OLD_SPECS: &[&str] = &[
    "kernel-power-kmeans.md",
    "rff-power-kmeans.md",
    "lw-kmeans.md",
    "dmkkm.md",
    "prior-art.md",
];

fn root() -> &'static Path {
    Path::new(ROOT)
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// The text files under `path` (or `path` itself), sorted.
fn text_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if TEXT.contains(&ext) {
            out.push(path.to_path_buf());
        }
        return;
    }
    let Ok(dir) = std::fs::read_dir(path) else {
        return;
    };
    let mut entries: Vec<PathBuf> = dir.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() && (name.starts_with('.') || SKIPPED_DIRS.contains(&name)) {
            continue;
        }
        text_files(&p, out);
    }
}

fn scanned_files() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for s in SCANNED {
        text_files(&root().join(s), &mut files);
    }
    files
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            Some((rel(&p), text))
        })
        .collect()
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Why `line` cites a document outside the repository, if it does.
/// `in_notes`: the line is in docs/methods/, where relative links between
/// notes are allowed.
fn outside_citation(line: &str, in_notes: bool) -> Option<&'static str> {
    if line.contains("shared/spec") {
        return Some("cites ../shared/spec");
    }
    let chars: Vec<char> = line.chars().collect();
    let lower: Vec<char> = line.to_lowercase().chars().collect();
    if lower.len() == chars.len() {
        for i in 0..lower.len() {
            if lower[i..].starts_with(&['s', 'p', 'e', 'c'])
                && (i == 0 || !is_word(lower[i - 1]))
                && lower.get(i + 4).is_none_or(|&c| !is_word(c))
            {
                let mut j = i + 4;
                if lower.get(j) == Some(&':') {
                    j += 1;
                }
                while lower.get(j) == Some(&' ') {
                    j += 1;
                }
                let rest: String = lower[j.min(lower.len())..].iter().collect();
                let first = rest.chars().next();
                let names_md = rest
                    .split(|c: char| {
                        !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
                    })
                    .next()
                    .is_some_and(|w| w.len() > 3 && w.ends_with(".md"));
                if first == Some('§') || first.is_some_and(|c| c.is_ascii_digit()) || names_md {
                    return Some("cites a specification section (`spec §…`, `Spec: X.md`)");
                }
            }
        }
    }
    let mut rest = line;
    while let Some(at) = rest.find('§') {
        let after = &rest[at + '§'.len_utf8()..];
        if after.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return Some("cites a numbered section (§N) of a specification");
        }
        rest = after;
    }
    for name in OLD_SPECS {
        for (at, _) in line.match_indices(name) {
            let before = &line[..at];
            if before
                .chars()
                .last()
                .is_some_and(|c| is_word(c) || c == '-')
            {
                continue; // part of a longer name (e.g. rff-power-kmeans.md)
            }
            let inside = before.ends_with("docs/methods/")
                || before.ends_with("methods/")
                || (in_notes && *name != "prior-art.md");
            if !inside {
                return Some("names a specification file outside docs/methods/");
            }
        }
    }
    None
}

/// GitHub's anchor for a heading: lower case, only letters, digits,
/// spaces, hyphens and underscores kept, spaces to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|&c| c.is_alphanumeric() || c == ' ' || c == '-' || c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a note's headings (ATX headings outside fenced code),
/// and the anchors that occur twice.
fn anchors(text: &str) -> (BTreeSet<String>, Vec<String>) {
    let mut seen = BTreeSet::new();
    let mut twice = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let s = slug(title);
        if !seen.insert(s.clone()) {
            twice.push(s);
        }
    }
    (seen, twice)
}

/// Every `docs/methods/<note>.md[#<anchor>]` in a line, as (note, anchor).
fn cited_notes(line: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for (at, m) in line.match_indices("docs/methods/") {
        let rest = &line[at + m.len()..];
        let name: String = rest
            .chars()
            .take_while(|&c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
            .collect();
        let name = name.trim_end_matches('.').to_string();
        if !name.ends_with(".md") {
            continue; // the folder itself, or a placeholder
        }
        let after = &rest[name.len()..];
        let anchor = after.strip_prefix('#').map(|a| {
            a.chars()
                .take_while(|&c| c.is_alphanumeric() || c == '-' || c == '_')
                .collect::<String>()
        });
        out.push((name, anchor));
    }
    out
}

/// Markdown link targets `](target)` of a line that point into the notes:
/// relative `X.md#a` or `#a` inside docs/methods, `../methods/X.md#a` from
/// elsewhere in docs/.
fn relative_links(line: &str, in_notes: bool) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for (at, _) in line.match_indices("](") {
        let target: String = line[at + 2..].chars().take_while(|&c| c != ')').collect();
        if target.contains("://") {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((f, a)) => (f.to_string(), Some(a.to_string())),
            None => (target.clone(), None),
        };
        let note = if let Some(n) = file.strip_prefix("../methods/") {
            n.to_string()
        } else if in_notes && !file.contains('/') {
            file
        } else {
            continue;
        };
        out.push((note, anchor));
    }
    out
}

#[test]
fn no_file_cites_a_specification_outside_the_repository() {
    let mut found = Vec::new();
    for (file, text) in scanned_files() {
        if NOT_YET.iter().any(|p| file.starts_with(p)) {
            continue;
        }
        let in_notes = file.starts_with("docs/methods/");
        for (i, line) in text.lines().enumerate() {
            if let Some(why) = outside_citation(line, in_notes) {
                found.push(format!("{file}:{}: {why}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} line(s) cite documents outside the repository; cite docs/methods/<note>.md#<anchor> instead:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn every_cited_note_and_anchor_exists() {
    let notes_dir = root().join("docs/methods");
    let mut broken = Vec::new();
    let mut checked = 0;
    for (file, text) in scanned_files() {
        let in_notes = file.starts_with("docs/methods/");
        for (i, line) in text.lines().enumerate() {
            let mut cites = cited_notes(line);
            cites.extend(relative_links(line, in_notes));
            for (note, anchor) in cites {
                checked += 1;
                let path = if note.is_empty() {
                    root().join(&file)
                } else {
                    notes_dir.join(&note)
                };
                let Ok(body) = std::fs::read_to_string(&path) else {
                    broken.push(format!("{file}:{}: no note docs/methods/{note}", i + 1));
                    continue;
                };
                if let Some(a) = anchor.filter(|a| !a.is_empty())
                    && !anchors(&body).0.contains(&a)
                {
                    broken.push(format!(
                        "{file}:{}: docs/methods/{note} has no heading with anchor #{a}",
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} citations found: is the scan looking in the right places?"
    );
    assert!(
        broken.is_empty(),
        "{} broken citation(s):\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn every_note_is_indexed_and_its_anchors_are_unique() {
    let dir = root().join("docs/methods");
    let index = std::fs::read_to_string(dir.join("README.md")).expect("docs/methods/README.md");
    let mut notes: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("docs/methods exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    notes.sort();
    assert!(
        notes.len() >= 6,
        "expected the six notes and the index, found {notes:?}"
    );
    for note in notes {
        let name = note.file_name().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&note).unwrap();
        let (_, twice) = anchors(&text);
        assert!(
            twice.is_empty(),
            "docs/methods/{name}: headings with the same anchor: {twice:?}"
        );
        if name != "README.md" {
            assert!(
                index.contains(&format!("]({name})")),
                "docs/methods/README.md does not list {name}"
            );
        }
    }
}

// The rules themselves, on crafted lines: each must be able to fail.

#[test]
fn the_rules_flag_old_citations_and_accept_note_citations() {
    for line in [
        "//! Power k-means (Xu & Lange 2019). Spec: kernel-power-kmeans.md §1–3.",
        "/// the sign Algorithm 1 requires (spec §10.1).",
        "# copied from ../shared/spec/lw-kmeans.md section 11.6.",
        "(spec lw-kmeans.md §8, §11.2; bench/lw_protocol.py)",
        "    # uses 0.01, which reproduces 0.0506 (spec 11.7). We use 0.01.",
        "/// §10.1).",
        "//! kernel family (prior-art.md section 1.11).",
        "see `dmkkm.md` for the QP",
    ] {
        assert!(
            outside_citation(line, false).is_some(),
            "not flagged: {line}"
        );
    }
    for line in [
        "//! Method: docs/methods/power-kmeans.md#the-mm-step.",
        "/// (docs/methods/lw-kmeans.md#ties).",
        "let spec = KernelSpec::parse(text, \"--kernel\")?;",
        "use crate::solver::specs::{max_iter_spec, tol_spec};",
        "/// The spec as given, with the post-processing defaults.",
        "        '§' => \"S\",",
        "See [the RFF note](../methods/rff-power-kmeans.md#typicality).",
    ] {
        assert_eq!(outside_citation(line, false), None, "flagged: {line}");
    }
    // Inside the notes, relative links to a note of an old name are fine;
    // prior-art.md has no note.
    assert_eq!(
        outside_citation("[kernel note](kernel-power-kmeans.md#defaults)", true),
        None
    );
    assert!(outside_citation("see prior-art.md", true).is_some());
}

#[test]
fn citations_and_anchors_parse_as_github_renders_them() {
    assert_eq!(slug(" The authors' code"), "the-authors-code");
    assert_eq!(slug(" Number of frequencies D"), "number-of-frequencies-d");
    assert_eq!(slug(" Simulation VII-B"), "simulation-vii-b");
    assert_eq!(slug(" The 12-kernel set"), "the-12-kernel-set");
    assert_eq!(
        cited_notes("(docs/methods/lw-kmeans.md#ties). See docs/methods/dmkkm.md."),
        vec![
            ("lw-kmeans.md".to_string(), Some("ties".to_string())),
            ("dmkkm.md".to_string(), None)
        ]
    );
    assert!(cited_notes("`docs/methods/` and docs/methods/<note>.md#<anchor>").is_empty());
    let (found, twice) =
        anchors("# T\n\n## Defaults\n\n```\n## Not a heading\n```\n    # code\n## Defaults\n");
    assert!(found.contains("defaults") && !found.contains("not-a-heading"));
    assert_eq!(twice, vec!["defaults".to_string()]);
    assert_eq!(
        relative_links(
            "[a](power-kmeans.md#starts) [b](#defaults) [c](https://x.org/y.md)",
            true
        ),
        vec![
            ("power-kmeans.md".to_string(), Some("starts".to_string())),
            (String::new(), Some("defaults".to_string()))
        ]
    );
}
