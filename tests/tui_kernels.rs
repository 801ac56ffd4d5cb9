//! The terminal UI on a dataset of precomputed kernels: the Data pane says
//! so, the scatter draws kernel PCA, mkpower runs, and an algorithm that
//! needs features shows its one-line refusal instead of crashing.

mod tui_support;

use meanscape::tui::app::{Action, App, Pane, RunStatus};
use ndarray::Array2;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::Path;

mod mat_support;
use mat_support::write_mat;
use tui_support::{finished, start};

const THEME: meanscape::tui::theme::Theme = tui_support::ASCII;

fn settle(app: &mut App) {
    tui_support::settle(app, finished);
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    tui_support::screen(app, w, h, THEME)
}

/// Three Gaussian kernels (bandwidths 1, 2, 4) on two groups of 20 points
/// on a line, with their classes, as `KH` and `Y`.
fn write_kernels(path: &Path) {
    let n = 40;
    let pos: Vec<f64> = (0..n)
        .map(|i| if i < 20 { 0.0 } else { 6.0 } + (i % 7) as f64 * 0.2)
        .collect();
    let mut ks = Vec::new();
    for s in [1.0f64, 2.0, 4.0] {
        let k = Array2::from_shape_fn((n, n), |(i, j)| {
            (-(pos[i] - pos[j]).powi(2) / (2.0 * s * s)).exp()
        });
        ks.push(k);
    }
    let y: Vec<f64> = (0..n).map(|i| if i < 20 { 1.0 } else { 2.0 }).collect();
    write_mat(path, &ks, Some(&y));
}

#[test]
fn kernel_data_in_the_ui() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mkk.mat");
    write_kernels(&file);
    let spec = file.to_str().unwrap();

    // A features-only algorithm: the refusal, in one line, and no crash.
    let mut app = start(spec, "power");
    settle(&mut app);
    match &app.status {
        RunStatus::Error(e) => assert!(
            e.contains("power needs features; this file holds precomputed kernels")
                && !e.contains('\n'),
            "{e}"
        ),
        s => panic!("{s:?}"),
    }
    let s = screen(&mut app, 120, 40);
    assert!(s.contains("needs features"), "{s}");
    // Keys that would plot features do nothing harmful.
    app.update(Action::Focus(Pane::Scatter));
    for a in [
        Action::ToggleScatterMode,
        Action::ScatterFeature(0),
        Action::ScatterFeature(1),
    ] {
        app.update(a);
    }
    for (w, h) in [(120, 40), (80, 24), (40, 12)] {
        screen(&mut app, w, h);
    }

    // mkpower runs on the stack; its α bars name the kernels.
    let mut app = start(spec, "mkpower");
    settle(&mut app);
    assert_eq!(app.status, RunStatus::Converged, "{:?}", app.status);
    let s = screen(&mut app, 120, 40);
    assert!(s.contains("kernel PCA"), "{s}");
    assert!(s.contains("K1") && s.contains("K3"), "{s}");
    // Label-free scores on kernel data, in the kernels' space, and said so.
    let i = app.view.internal.expect("label-free scores of the run");
    assert_eq!(i.space, meanscape::fit_scores::SpaceKind::Kernel);
    assert!(i.silhouette.is_finite() && i.cost > 0.0, "{i:?}");
    assert!(
        s.contains("silh ") && s.contains("Metrics . kernel space"),
        "{s}"
    );
    let mut t = Terminal::new(TestBackend::new(60, 8)).unwrap();
    t.draw(|f| meanscape::tui::ui::panes::data(f, f.area(), &app, &THEME))
        .unwrap();
    insta::assert_snapshot!("data_pane_precomputed_kernels", format!("{}", t.backend()));
}
