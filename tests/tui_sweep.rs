//! Sweeps in the UI: marking sliders, the prompt, cells that fill in and
//! equal the engine's, the cursor and Enter, cancelling, the k-scan; the
//! view's frames at two sizes, in colour and in ASCII.

mod tui_support;

use meanscape::algo::{self, Init};
use meanscape::sweep::{self, Axis, Request, Truth};
use meanscape::tui::app::sweep_view::SweepKind;
use meanscape::tui::app::{Action, App, Pane, PromptKind, RunStatus};
use meanscape::tui::keys::Context;
use std::sync::Arc;
use tui_support::{ASCII, COLOR, finished, screen, settle, start, type_text};

fn sweep_done(app: &App) -> bool {
    app.sweep.as_ref().is_some_and(|s| !s.running)
}

/// Focus Parameters and mark the sliders `names` with m.
fn mark(app: &mut App, names: &[&str]) {
    app.update(Action::Focus(Pane::Parameters));
    for name in names {
        let i = app
            .sliders()
            .iter()
            .position(|s| s.spec.name == *name)
            .unwrap();
        app.update(Action::Move(i as i32 - app.param_cursor as i32));
        app.update(Action::Mark);
    }
}

/// An s₀ × η sweep of power on iris from the prompt, run to the end.
fn small_sweep() -> App {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    mark(&mut app, &["s0", "eta"]);
    assert_eq!(app.marks(), ["s0", "eta"]);
    app.update(Action::OpenSweep);
    let p = app.prompt.as_ref().unwrap();
    assert_eq!(p.kind, PromptKind::Sweep);
    // The marked sliders' ranges around their values, and seeds.
    assert!(p.text.starts_with("s0=-10:-0.1:6:log eta="), "{}", p.text);
    assert!(p.text.ends_with("seeds=3"), "{}", p.text);
    type_text(&mut app, "s0=-4:-1:4 eta=1.01,1.04,1.3 seeds=2");
    app.update(Action::Activate);
    assert!(app.prompt.is_none());
    assert_eq!(app.context(), Context::Sweep);
    settle(&mut app, sweep_done);
    app
}

#[test]
fn marked_sliders_sweep_and_the_cells_are_the_engines() {
    let app = small_sweep();
    let sv = app.sweep.as_ref().unwrap();
    assert!(!sv.cancelled && sv.error.is_none());
    assert_eq!(sv.shape(), (4, 3));
    assert_eq!(sv.done, 12);
    // The same grid through the library gives the same cells.
    let l = app.loaded().unwrap();
    let power = algo::find("power").unwrap();
    let plan = sweep::plan(
        power.as_ref(),
        &l.problem,
        Request {
            k: 3,
            seed: 0,
            seeds: 2,
            init: Init::KmeansPP,
            given: Vec::new(),
            options: Vec::new(),
            axes: vec![
                Axis::parse("s0=-4:-1:4").unwrap(),
                Axis::parse("eta=1.01,1.04,1.3").unwrap(),
            ],
            time_limit: None,
        },
    )
    .unwrap();
    let truth = l.dataset.labels.as_ref().map(|t| t.ids.as_slice());
    let want = sweep::run(
        power.as_ref(),
        &l.problem,
        &plan,
        Truth {
            labels: truth,
            relevance: None,
        },
        Arc::default(),
        &|_, _, _| {},
    )
    .unwrap();
    for (got, want) in sv.cells.iter().zip(&want.cells) {
        let got = got.as_ref().unwrap();
        assert_eq!(got.at, want.at);
        assert_eq!(got.score("nmi"), want.score("nmi"));
        assert_eq!(got.score("cost"), want.score("cost"));
        assert_eq!(got.score("stability"), want.score("stability"));
    }
    // The score selector: NMI first with labels, then the others.
    assert_eq!(sv.score_name(), "nmi");
    assert!(sv.score_names().contains(&"silhouette"));
    // The sliders' position (-1, 1.04) is marked.
    assert_eq!(sv.current_at(), Some((3, 1)));
}

#[test]
fn enter_on_a_cell_sets_the_sliders_and_runs_it() {
    let mut app = small_sweep();
    app.update(Action::Move(2));
    app.update(Action::Step {
        steps: 2,
        coarse: false,
    });
    assert_eq!(app.sweep.as_ref().unwrap().cursor, (2, 2));
    app.update(Action::SweepScore);
    assert_eq!(app.sweep.as_ref().unwrap().score_name(), "ari");
    // b jumps to the best cell, and back to (2, 2) by hand.
    app.update(Action::SweepBest);
    let sv = app.sweep.as_ref().unwrap();
    assert_eq!(Some(sv.cursor), sv.best());
    app.sweep.as_mut().unwrap().cursor = (2, 2);
    app.update(Action::Activate);
    assert!(!app.show_sweep);
    assert_eq!(app.context(), Context::Panes);
    assert!(matches!(app.status, RunStatus::Pending(_)));
    let value = |app: &App, n: &str| {
        app.sliders()
            .iter()
            .find(|s| s.spec.name == n)
            .unwrap()
            .value
    };
    assert_eq!(value(&app, "s0"), -2.0);
    assert_eq!(value(&app, "eta"), 1.3);
    settle(&mut app, finished);
    // The run is the cell's first seed.
    let cell = app.sweep.as_ref().unwrap().cell(2, 2).unwrap().clone();
    let nmi = app.view.scores.unwrap().nmi;
    assert_eq!(Some(nmi), cell.runs[0].external.map(|e| e.nmi));
    // v shows the sweep again; Esc (not running) closes it.
    app.update(Action::ToggleSweep);
    assert_eq!(app.context(), Context::Sweep);
    app.update(Action::Cancel);
    assert_eq!(app.context(), Context::Panes);
    // On another dataset the cells are not applied.
    app.update(Action::NextBundled);
    settle(&mut app, |a| finished(a) && a.data_spec != "iris");
    app.update(Action::ToggleSweep);
    app.update(Action::Activate);
    assert!(
        app.message
            .as_deref()
            .unwrap_or("")
            .contains("the sweep ran on iris"),
        "{:?}",
        app.message
    );
    assert_eq!(app.context(), Context::Sweep);
}

#[test]
fn a_bad_grid_is_refused_in_the_prompt_with_the_reason() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.update(Action::Focus(Pane::Parameters));
    app.update(Action::Move(3));
    app.update(Action::OpenSweep);
    // Nothing marked: the focused slider (s0).
    assert!(app.prompt.as_ref().unwrap().text.starts_with("s0="));
    for (text, why) in [
        ("s0=-1:-4:3", "reversed"),
        ("s0=1:4:3", "out of range"),
        ("sigma=1:4:3", "does not apply"),
        ("s0=-3,-1 seeds=0", "seeds=0"),
        ("seeds=2", "one or two axes"),
    ] {
        type_text(&mut app, text);
        app.update(Action::Activate);
        let p = app.prompt.as_ref().expect("the prompt stays open");
        assert!(p.hint.contains(why), "{text}: {}", p.hint);
        assert!(app.sweep.is_none());
    }
    app.update(Action::Cancel);
    assert!(app.prompt.is_none());
}

#[test]
fn esc_cancels_a_running_sweep_and_keeps_the_cells_done() {
    let mut app = start("gen:blobs,n=3000,k=8,p=8", "power");
    settle(&mut app, finished);
    app.update(Action::Focus(Pane::Parameters));
    app.update(Action::Move(3));
    app.update(Action::OpenSweep);
    type_text(&mut app, "s0=-10:-0.1:30:log seeds=4");
    app.update(Action::Activate);
    settle(&mut app, |a| a.sweep.as_ref().unwrap().done >= 2);
    app.update(Action::Cancel);
    settle(&mut app, sweep_done);
    let sv = app.sweep.as_ref().unwrap();
    assert!(sv.cancelled, "cancelled");
    assert!(sv.done >= 2 && sv.done < 30, "{} cells", sv.done);
    assert_eq!(sv.cells.iter().flatten().count(), sv.done);
    // Still shown; a second Esc closes it.
    assert_eq!(app.context(), Context::Sweep);
    app.update(Action::Cancel);
    assert_eq!(app.context(), Context::Panes);
}

#[test]
fn a_k_scan_suggests_k_by_silhouette_and_a_adopts_it() {
    let mut app = start("gen:blobs,n=400,k=4,p=2,sep=12", "kmeans");
    settle(&mut app, finished);
    app.update(Action::KScan);
    settle(&mut app, sweep_done);
    let sv = app.sweep.as_ref().unwrap();
    assert_eq!(sv.kind, SweepKind::KScan);
    assert_eq!(sv.plan.axes[0].values.first(), Some(&2.0));
    assert_eq!(sv.plan.axes[0].values.last(), Some(&12.0));
    let best = (0..sv.shape().0)
        .max_by(|&a, &b| {
            let s = |r| sv.cell(r, 0).unwrap().score("silhouette").unwrap().mean;
            s(a).total_cmp(&s(b))
        })
        .unwrap();
    let k = sv.suggested_k().unwrap();
    assert_eq!(k, sv.plan.axes[0].values[best] as usize);
    assert_eq!(k, 4, "four separated blobs");
    app.update(Action::AdoptK);
    assert_eq!(app.k, Some(4));
    assert_eq!(app.context(), Context::Panes);
}

#[test]
fn sweep_view_frames() {
    let mut app = small_sweep();
    app.update(Action::Move(1));
    for (name, w, h, theme) in [
        ("sweep_heatmap_120x40", 120, 40, COLOR),
        ("sweep_heatmap_120x40_ascii", 120, 40, ASCII),
        ("sweep_heatmap_80x24", 80, 24, COLOR),
        ("sweep_heatmap_80x24_ascii", 80, 24, ASCII),
    ] {
        insta::assert_snapshot!(name, screen(&mut app, w, h, theme));
    }
    app.update(Action::SweepNumbers);
    insta::assert_snapshot!("sweep_numbers_120x40", screen(&mut app, 120, 40, ASCII));

    // One axis: a line with its band.
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.update(Action::OpenSweep);
    type_text(&mut app, "eta=1.01:1.3:5 seeds=2");
    app.update(Action::Activate);
    settle(&mut app, sweep_done);
    insta::assert_snapshot!("sweep_line_120x40_ascii", screen(&mut app, 120, 40, ASCII));
    insta::assert_snapshot!("sweep_line_80x24", screen(&mut app, 80, 24, COLOR));

    let mut app = start("iris", "kmeans");
    settle(&mut app, finished);
    app.update(Action::KScan);
    settle(&mut app, sweep_done);
    for (name, w, h, theme) in [
        ("kscan_120x40", 120, 40, COLOR),
        ("kscan_120x40_ascii", 120, 40, ASCII),
        ("kscan_80x24", 80, 24, COLOR),
        ("kscan_80x24_ascii", 80, 24, ASCII),
    ] {
        insta::assert_snapshot!(name, screen(&mut app, w, h, theme));
    }
}
