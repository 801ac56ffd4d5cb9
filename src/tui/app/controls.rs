//! The settings that are not numbers (and so not sliders): the kernel,
//! the kernel list and views of the multi-kernel methods, sparse-kmeans'
//! tuning, the seeding, the label column and missing cells. A list opened
//! with O: ←/→ steps through common values, Enter types one; every value
//! is checked (for an algorithm option, by configuring a run with it) and
//! refused with the reason.

use super::App;
use crate::algo::{self, Init};
use crate::data::{LabelChoice, Missing};
pub use crate::tui::components::controls::{Control, Scope};

fn presets(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

const KERNEL_HELP: &str = "the kernel: gaussian, laplacian, geodesic (σ from the σ slider), poly:a=1,b=2, linear, cosine; options after ':' (gaussian:sigma=2, gaussian:gram=f32)";
const KERNELS_HELP: &str = "the kernel list, separated by ';'; 'auto' (the default): one Gaussian per view with views, else the paper's 12-kernel set ('default'); an explicit list goes on every view; 'precomputed' for the kernels of a kernel file";
const VIEWS_HELP: &str = "column groups as views, 1-based and inclusive: 1-64,65-128 or named fou=1-76,fac=77-292; 'auto' for the dataset's own views, 'none' for one view";
const TUNE_HELP: &str = "choose the sparse bound from the data: gap (largest permutation gap, as sparcl), gap-1sd (smallest within one sd), none (the slider's value)";
const INIT_HELP: &str = "seeding of every start: kmeans++ or random (the papers' random starts)";
const LABEL_HELP: &str = "the ground-truth column: auto (label, class, target, y or cluster), none, a column name or a 0-based index; reloads the data";
const MISSING_HELP: &str = "empty or non-numeric cells: error (refuse the file, naming the cell), mean (impute each column's mean), drop (drop those rows); reloads the data";

fn label_text(l: &LabelChoice) -> String {
    match l {
        LabelChoice::Auto => "auto".into(),
        LabelChoice::None => "none".into(),
        LabelChoice::Name(n) => n.clone(),
        LabelChoice::Index(i) => i.to_string(),
    }
}

fn missing_text(m: Missing) -> &'static str {
    match m {
        Missing::Error => "error",
        Missing::ImputeMean => "mean",
        Missing::DropIncomplete => "drop",
    }
}

impl App {
    /// The value of an algorithm option in force: the one set (kept per
    /// name across algorithms), else the algorithm's default.
    pub fn option_value(&self, name: &str) -> Option<String> {
        let default = self
            .algo()
            .options()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, d)| d.to_string())?;
        Some(
            self.options
                .iter()
                .find(|(n, _)| n == name)
                .map_or(default, |(_, v)| v.clone()),
        )
    }

    /// The options a run of the chosen algorithm takes from those set:
    /// the others stay for when their algorithm comes back.
    pub fn run_options(&self) -> Vec<(String, String)> {
        self.options_for(self.algo())
    }

    /// The options set that algorithm `algo` takes (and the memory limit).
    pub fn options_for(&self, algo: &dyn crate::solver::Algorithm) -> Vec<(String, String)> {
        let takes = algo.options();
        self.options
            .iter()
            .filter(|(n, _)| n == "max_memory" || takes.iter().any(|(t, _)| t == n))
            .cloned()
            .collect()
    }

    /// Every control that applies now, in the list's order.
    pub fn controls(&self) -> Vec<Control> {
        let mut out = Vec::new();
        let p = self.loaded().map_or(1, |l| l.dataset.p());
        for (name, _) in self.algo().options() {
            let value = self.option_value(name).unwrap_or_default();
            let (name, presets, help) = match name {
                "kernel" => (
                    "kernel",
                    presets(&[
                        "gaussian",
                        "laplacian",
                        "geodesic",
                        "poly:a=1,b=2",
                        "linear",
                        "cosine",
                    ]),
                    KERNEL_HELP,
                ),
                "kernels" => {
                    let mut v =
                        presets(&["auto", "default", "gaussian;laplacian;linear", "gaussian"]);
                    if p == 0 {
                        v.insert(0, "precomputed".into());
                    }
                    ("kernels", v, KERNELS_HELP)
                }
                "views" => ("views", presets(&["auto", "none"]), VIEWS_HELP),
                "tune" => ("tune", presets(&["none", "gap", "gap-1sd"]), TUNE_HELP),
                _ => continue,
            };
            out.push(Control {
                name,
                value,
                presets,
                scope: Scope::Algorithm,
                help,
            });
        }
        out.push(Control {
            name: "init",
            value: self.init.to_string(),
            presets: presets(&["kmeans++", "random"]),
            scope: Scope::Run,
            help: INIT_HELP,
        });
        out.push(Control {
            name: "label",
            value: label_text(&self.load_opts.label),
            presets: presets(&["auto", "none"]),
            scope: Scope::Data,
            help: LABEL_HELP,
        });
        out.push(Control {
            name: "missing",
            value: missing_text(self.load_opts.missing).into(),
            presets: presets(&["error", "mean", "drop"]),
            scope: Scope::Data,
            help: MISSING_HELP,
        });
        out
    }

    /// Sets control `name` to `text`, or says why not (nothing changes).
    ///
    /// # Errors
    /// The reason, as the prompt or the status line shows it.
    pub fn set_control(&mut self, name: &str, text: &str) -> Result<(), String> {
        let text = text.trim();
        match name {
            "init" => {
                self.init = match text {
                    "kmeans++" | "k-means++" => Init::KmeansPP,
                    "random" => Init::Random,
                    _ => return Err(format!("init '{text}': kmeans++ or random")),
                };
                self.note(format!("init {text}"));
                self.schedule_run();
            }
            "label" => {
                let l: LabelChoice = text.parse().map_err(|e: String| format!("label: {e}"))?;
                self.load_opts.label = l;
                self.note(format!("labels: {text}; reloading"));
                self.open_data(self.data_spec.clone());
            }
            "missing" => {
                self.load_opts.missing = match text {
                    "error" => Missing::Error,
                    "mean" => Missing::ImputeMean,
                    "drop" => Missing::DropIncomplete,
                    _ => return Err(format!("missing '{text}': error, mean or drop")),
                };
                self.note(format!("missing cells: {text}; reloading"));
                self.open_data(self.data_spec.clone());
            }
            _ => {
                if text.is_empty() {
                    return Err(format!("{name}: give a value (Esc keeps the old one)"));
                }
                let before = self.options.clone();
                self.options.retain(|(n, _)| n != name);
                self.options.push((name.to_string(), text.to_string()));
                if let Err(e) = self.check_options() {
                    self.options = before;
                    return Err(ui_words(&e));
                }
                self.note(format!("{name} {text}"));
                self.schedule_run();
            }
        }
        Ok(())
    }

    /// Whether a run with the options set would be accepted (the data
    /// loaded, the parameters as they are).
    fn check_options(&self) -> Result<(), String> {
        let Some(l) = self.loaded() else {
            return Ok(());
        };
        let algo = algo::find(self.algo().id()).map_err(|e| e.to_string())?;
        let given: Vec<(String, f64)> = self
            .overrides
            .iter()
            .filter(|((a, _), _)| a == algo.id())
            .map(|((_, n), v)| (n.clone(), *v))
            .collect();
        let options = self.run_options();
        let cfg = algo::configure(
            algo.as_ref(),
            &l.problem,
            algo::Request {
                k: self.current_k(),
                seed: self.seed,
                restarts: self.restarts,
                init: self.init,
                given: &given,
                options: &options,
                centres: None,
            },
            &l.dataset.name,
        )
        .map_err(|e| e.to_string())?;
        algo.check(&l.problem, &cfg).map_err(|e| e.to_string())
    }

    /// The data-reading options that differ from the defaults, as
    /// `meanscape run` flags (name, value; an empty value for a switch).
    pub fn load_flags(&self) -> Vec<(String, String)> {
        crate::report::load_flags(&self.load_opts)
    }

    /// The kernel in force, for the Parameters pane, and whether σ means
    /// anything to it.
    pub fn kernel_shown(&self) -> Option<(String, bool)> {
        let k = self.option_value("kernel")?;
        let uses_sigma = crate::kernel::KernelSpec::parse(&k, "--kernel")
            .map(|s| s.kind.has_sigma())
            .unwrap_or(true);
        Some((k, uses_sigma))
    }
}

/// An error text with the UI's control named beside each flag it advises.
pub fn ui_words(text: &str) -> String {
    let mut out = text.to_string();
    for (flag, control) in [
        ("--kernels", "O → kernels"),
        ("--kernel", "O → kernel"),
        ("--views", "O → views"),
        ("--tune", "O → tune"),
        ("--init", "O → init"),
        ("--label", "O → label"),
        ("--impute", "O → missing"),
        ("--drop-incomplete", "O → missing"),
        ("--scale", "z"),
        ("--restarts", "the restarts slider"),
    ] {
        // Only whole flags: --kernel is not the start of --kernels here.
        let mut i = 0;
        while let Some(at) = out[i..].find(flag) {
            let end = i + at + flag.len();
            let whole = out[end..]
                .chars()
                .next()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-'));
            if whole {
                let note = format!(" (in the UI: {control})");
                out.insert_str(end, &note);
                i = end + note.len();
            } else {
                i = end;
            }
        }
    }
    out
}
