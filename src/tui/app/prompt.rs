//! The one-line prompt: what it asks for, and the path entry helpers
//! (`~` expansion and shell-style tab completion).

use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq)]
pub enum PromptKind {
    /// Type an exact value for the parameter at this slider index.
    Value(usize),
    OpenFile,
    Export,
    /// Confirm replacing these files, then export to the base path.
    ConfirmExport(PathBuf),
    /// Feature inspector: the filter, applied as it is typed.
    Search,
    /// Feature inspector: the file for the selected names.
    ExportNames,
    /// Confirm replacing this file with the selected names.
    ConfirmNames(PathBuf),
    /// The axes and seeds of a sweep.
    Sweep,
    /// The range of k, resamples and seeds of a k-scan.
    KScan,
    /// A value for the control of this name (kernel, init, label, …).
    Control(&'static str),
    /// A base name for the History's CSV and JSON.
    HistoryExport,
    /// Confirm replacing these files, then export the History there.
    ConfirmHistoryExport(PathBuf),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
    /// Completion candidates or the reason the last entry was refused.
    pub hint: String,
}

pub fn expand_home(text: &str) -> String {
    if let Some(rest) = text.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest).display().to_string();
    }
    text.to_string()
}

/// Candidates listed after a Tab, at most.
const MAX_SHOWN: usize = 60;

/// Completes `text` to the longest common prefix of the matching entries.
/// Returns the new text and a hint listing the candidates.
pub fn complete_path(text: &str) -> (String, String) {
    let expanded = expand_home(text);
    let (dir, stem) = match expanded.rfind('/') {
        Some(i) => (&expanded[..=i], &expanded[i + 1..]),
        None => ("", expanded.as_str()),
    };
    let read_from = if dir.is_empty() {
        Path::new(".")
    } else {
        Path::new(dir)
    };
    let Ok(entries) = std::fs::read_dir(read_from) else {
        return (
            text.to_string(),
            format!("cannot read {}", read_from.display()),
        );
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with(stem) || (name.starts_with('.') && !stem.starts_with('.')) {
                return None;
            }
            let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
            Some(if is_dir { format!("{name}/") } else { name })
        })
        .collect();
    names.sort();
    match names.len() {
        0 => (text.to_string(), "no match".into()),
        1 => (format!("{dir}{}", names[0]), String::new()),
        _ => {
            let common = names.iter().skip(1).fold(names[0].clone(), |acc, n| {
                acc.chars()
                    .zip(n.chars())
                    .take_while(|(a, b)| a == b)
                    .map(|(a, _)| a)
                    .collect()
            });
            // The prompt wraps the list over as many lines as the screen has.
            let shown: Vec<&str> = names.iter().take(MAX_SHOWN).map(|s| s.as_str()).collect();
            let more = if names.len() > MAX_SHOWN {
                format!(" … ({} in all)", names.len())
            } else {
                String::new()
            };
            (
                format!("{dir}{common}"),
                format!("{}{more}", shown.join("  ")),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_unique_and_common_prefixes() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("alpha.csv"), "").unwrap();
        std::fs::write(d.path().join("alpine.csv"), "").unwrap();
        std::fs::create_dir(d.path().join("beta")).unwrap();
        let base = format!("{}/", d.path().display());
        let (t, hint) = complete_path(&format!("{base}al"));
        assert_eq!(t, format!("{base}alp"));
        assert!(hint.contains("alpha.csv") && hint.contains("alpine.csv"));
        let (t, _) = complete_path(&format!("{base}b"));
        assert_eq!(t, format!("{base}beta/"));
        let (t, hint) = complete_path(&format!("{base}zzz"));
        assert_eq!(t, format!("{base}zzz"));
        assert_eq!(hint, "no match");
    }
}
