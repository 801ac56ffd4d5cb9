//! Sweeps in the UI: marking sliders, the prompt, cells that fill in and
//! equal the engine's, the cursor and Enter, cancelling, the k-scan; the
//! view's frames at two sizes, in colour and in ASCII.

mod tui_support;

use meanscape::algo::params::{fmt_num, round_sig};
use meanscape::algo::{self, Init};
use meanscape::sweep::{self, Axis, Request, Truth};
use meanscape::tui::app::sweep_view::SweepKind;
use meanscape::tui::app::{Action, App, Pane, PromptKind, RunStatus};
use meanscape::tui::keys::Context;
use std::sync::Arc;
use tui_support::{ASCII, COLOR, finished, screen, settle, start, type_text};

fn sweep_done(app: &App) -> bool {
    app.sweep.last.as_ref().is_some_and(|s| !s.running)
}

/// The sweep view's text (inside its border, found by its `title`), its
/// rows joined by spaces: a line wrapped over rows reads whole.
fn view_text(frame: &str, title: &str) -> String {
    let rows: Vec<Vec<char>> = frame
        .lines()
        .map(|l| l.trim_matches('"').chars().collect())
        .collect();
    let top: String = rows[0].iter().collect();
    let at = top.find(title).expect("the view's title");
    let col = top[..at].chars().count();
    let inner: Vec<String> = rows[1..]
        .iter()
        .map(|r| {
            let t: String = r.iter().skip(col).collect();
            t.trim_end().trim_end_matches(['|', '┃']).to_string()
        })
        .collect();
    inner
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// K, then the prompt's text (`None`: as offered), Enter, run to the end.
fn kscan(app: &mut App, text: Option<&str>) {
    app.update(Action::KScan);
    assert_eq!(app.prompt.as_ref().unwrap().kind, PromptKind::KScan);
    if let Some(t) = text {
        type_text(app, t);
    }
    app.update(Action::Activate);
    assert!(app.prompt.is_none(), "{:?}", app.prompt);
    settle(app, sweep_done);
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
        app.update(Action::Move(i as i32 - app.panes.parameters.cursor as i32));
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
    let sv = app.sweep.last.as_ref().unwrap();
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
            resamples: 0,
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
    assert_eq!(app.sweep.last.as_ref().unwrap().cursor, (2, 2));
    app.update(Action::SweepScore);
    assert_eq!(app.sweep.last.as_ref().unwrap().score_name(), "ari");
    // b jumps to the best cell, and back to (2, 2) by hand.
    app.update(Action::SweepBest);
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(Some(sv.cursor), sv.best());
    app.sweep.last.as_mut().unwrap().cursor = (2, 2);
    app.update(Action::Activate);
    assert!(!app.sweep.shown);
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
    let cell = app.sweep.last.as_ref().unwrap().cell(2, 2).unwrap().clone();
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
        assert!(app.sweep.last.is_none());
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
    settle(&mut app, |a| a.sweep.last.as_ref().unwrap().done >= 2);
    app.update(Action::Cancel);
    settle(&mut app, sweep_done);
    let sv = app.sweep.last.as_ref().unwrap();
    assert!(sv.cancelled, "cancelled");
    assert!(sv.done >= 2 && sv.done < 30, "{} cells", sv.done);
    assert_eq!(sv.cells.iter().flatten().count(), sv.done);
    // Still shown; a second Esc closes it.
    assert_eq!(app.context(), Context::Sweep);
    app.update(Action::Cancel);
    assert_eq!(app.context(), Context::Panes);
}

/// The k-scan resamples by default, shows prediction strength first and
/// recommends the k the engine's `recommend` gives; `a` runs that k.
#[test]
fn a_k_scan_recommends_k_and_a_adopts_it() {
    let mut app = start("gen:blobs,n=400,k=4,p=2,sep=12", "kmeans");
    settle(&mut app, finished);
    kscan(&mut app, None);
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(sv.kind, SweepKind::KScan);
    assert_eq!(sv.plan.axes[0].values.first(), Some(&2.0));
    assert_eq!(sv.plan.axes[0].values.last(), Some(&12.0));
    assert_eq!(sv.plan.resampling.count, sweep::resample::DEFAULT_RESAMPLES);
    assert_eq!(sv.score_name(), "prediction_strength");
    assert_eq!(
        &sv.score_names()[..4],
        ["prediction_strength", "resample_stability", "pac", "gap"]
    );
    // The engine's recommendation over the same cells.
    let cells: Vec<_> = sv.cells.iter().flatten().cloned().collect();
    assert_eq!(cells.len(), 11);
    let r = sweep::recommend::recommend(&cells, &sv.plan.axes).unwrap();
    assert!(r.by.starts_with("prediction_strength"), "{}", r.by);
    let k = sv.suggested_k().unwrap();
    assert_eq!(k, cells[r.cell].k);
    assert_eq!(k, 4, "four separated blobs");
    // The line says it, with the scores that agree and the others' k.
    let text = view_text(&screen(&mut app, 160, 40, ASCII), " k-scan");
    let agree = r.picks.iter().filter(|p| p.cell == r.cell).count();
    assert!(
        text.contains(&format!(
            "recommended k = 4 (prediction strength: the largest k within two standard errors of the highest; a adopts it) . agree {agree}/{}",
            r.picks.len()
        )),
        "{text}"
    );
    // While cells are still to come it is only the cells' so far.
    app.sweep.last.as_mut().unwrap().running = true;
    let text = view_text(&screen(&mut app, 160, 40, ASCII), " k-scan");
    assert!(text.contains("so far recommended k = 4 ("), "{text}");
    app.sweep.last.as_mut().unwrap().running = false;
    // Another k in the view's cursor, then a: the recommended one runs.
    app.update(Action::Move(5));
    app.update(Action::AdoptK);
    assert_eq!(app.k, Some(4));
    assert_eq!(app.context(), Context::Panes);
    settle(&mut app, finished);
    assert_eq!(app.current_k(), 4);
}

/// c shows the consensus CDF of every k, w the silhouette per cluster of
/// the recommended k (the cursor's after), each toggled back by its key;
/// neither where it has nothing to show.
#[test]
fn a_k_scan_shows_the_consensus_cdf_and_the_silhouette_per_cluster() {
    use meanscape::tui::app::sweep_view::Panel;
    let mut app = start("gen:blobs,n=400,k=4,p=2,sep=12", "kmeans");
    settle(&mut app, finished);
    kscan(&mut app, Some("k=2:7 resamples=10 seeds=2"));
    app.update(Action::SweepConsensus);
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(sv.panel, Panel::Consensus);
    // The cursor on k = 4: its PAC and the CDF's values it is read from.
    app.update(Action::Move(2));
    let sv = app.sweep.last.as_ref().unwrap();
    let c4 = sv.cell(2, 0).unwrap().clone();
    assert_eq!(c4.k, 4);
    let cdf = &c4.consensus_cdf;
    let frame = screen(&mut app, 120, 40, ASCII);
    let text = view_text(&frame, " k-scan");
    assert!(text.contains("consensus CDF: the share of pairs"), "{text}");
    assert!(
        text.contains(&format!(
            "k=4: PAC {} (CDF {} at 0.9 - {} at 0.1)",
            meanscape::tui::panes::sweep::fit_num(c4.score("pac").unwrap().mean, 6),
            meanscape::tui::panes::sweep::fit_num(cdf[18], 6),
            meanscape::tui::panes::sweep::fit_num(cdf[2], 6)
        )),
        "{text}"
    );
    for k in 2..=7 {
        assert!(text.contains(&format!("k={k} ")), "k={k} in {text}");
    }
    insta::assert_snapshot!("kscan_consensus_120x40_ascii", frame);
    insta::assert_snapshot!("kscan_consensus_80x24", screen(&mut app, 80, 24, COLOR));
    app.update(Action::SweepConsensus);
    assert_eq!(app.sweep.last.as_ref().unwrap().panel, Panel::Scores);

    // w: the recommended k's clusters, whatever the cursor was on.
    app.update(Action::Move(-2));
    app.update(Action::SweepSilhouette);
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(sv.panel, Panel::Silhouette);
    assert_eq!(sv.suggested_k(), Some(4));
    assert_eq!(sv.cell(sv.cursor.0, 0).unwrap().k, 4);
    let run = sv.cell(sv.cursor.0, 0).unwrap().best_run().unwrap().clone();
    let cl = &run.silhouette_clusters;
    assert_eq!(cl.len(), 4);
    assert_eq!(cl.iter().map(|c| c.size).sum::<f64>(), 400.0);
    // Separated blobs: every cluster well above 0, none of its rows below.
    assert!(
        cl.iter().all(|c| c.mean > 0.5 && c.negative == 0.0),
        "{cl:?}"
    );
    let frame = screen(&mut app, 120, 40, ASCII);
    let text = view_text(&frame, " k-scan");
    assert!(
        text.contains(&format!(
            "k = 4 (recommended) . silhouette {} on 400 rows in the input features",
            meanscape::tui::panes::sweep::fit_num(run.internal.silhouette, 6)
        )),
        "{text}"
    );
    assert!(text.contains("cluster rows mean <0"), "{text}");
    insta::assert_snapshot!("kscan_silhouette_120x40_ascii", frame);
    insta::assert_snapshot!("kscan_silhouette_80x24", screen(&mut app, 80, 24, COLOR));
    // Another k under the cursor: its clusters, not recommended.
    app.update(Action::Move(1));
    let text = view_text(&screen(&mut app, 120, 40, ASCII), " k-scan");
    assert!(text.contains("k = 5 . silhouette"), "{text}");
    app.update(Action::SweepSilhouette);
    assert_eq!(app.sweep.last.as_ref().unwrap().panel, Panel::Scores);

    // Without resamples there is no consensus to show.
    kscan(&mut app, Some("k=2:4 resamples=0 seeds=1"));
    app.update(Action::SweepConsensus);
    assert_eq!(app.sweep.last.as_ref().unwrap().panel, Panel::Scores);
    let said = app.message.clone().unwrap_or_default();
    assert!(said.contains("resamples=0"), "{said}");
    // A grid has neither.
    let mut app = small_sweep();
    app.update(Action::SweepSilhouette);
    assert_eq!(app.sweep.last.as_ref().unwrap().panel, Panel::Scores);
}

/// `algos=kmeans,spectral` in K's prompt: one family of cells per
/// algorithm, the CLI's two-family rule through the same function, a
/// curve each, and `a` runs the recommended algorithm at its k.
#[test]
fn a_k_scan_over_two_algorithms_recommends_as_the_cli_and_a_adopts_both() {
    use meanscape::sweep::recommend::{ACROSS_RULE, across};
    use meanscape::tui::app::sweep_view::parse_text;
    let mut app = start("gen:blobs,n=300,k=3,p=2,sep=12", "kmeans");
    settle(&mut app, finished);
    kscan(
        &mut app,
        Some("k=2:5 resamples=6 seeds=2 algos=kmeans,spectral"),
    );
    let sv = app.sweep.last.as_ref().unwrap();
    assert!(sv.error.is_none() && !sv.cancelled, "{:?}", sv.error);
    assert_eq!(sv.families(), 2);
    assert_eq!(sv.family_context(1).algo, "spectral");
    assert_eq!(sv.shape(), (4, 2));
    assert_eq!(sv.done, 8);
    let family = |c: usize| -> Vec<sweep::CellResult> {
        (0..4).map(|r| sv.cell(r, c).unwrap().clone()).collect()
    };
    let (km, sp) = (family(0), family(1));
    // Each column is its algorithm's: spectral's objective is not k-means'.
    assert_ne!(km[1].runs[0].objective, sp[1].runs[0].objective);
    assert!(
        km.iter()
            .chain(&sp)
            .all(|c| c.score("prediction_strength").is_some())
    );
    // The gap only where the CLI computes it (not for a kernel method).
    assert!(km[0].score("gap").is_some() && sp[0].score("gap").is_none());
    let want = across(&[&km[..], &sp[..]], true).unwrap();
    let ((r, c), by) = sv.across().unwrap();
    assert_eq!((c, r), (want.family, want.cell));
    assert_eq!(by, ACROSS_RULE);
    assert_eq!(sv.recommended_at(), Some((r, c)));
    let k = sv.cell(r, c).unwrap().k;
    let algo = sv.family_context(c).algo.clone();
    let frame = screen(&mut app, 120, 40, ASCII);
    let text = view_text(&frame, " k-scan");
    assert!(
        text.contains(&format!(
            "recommended {algo} k = {k} (prediction strength: the largest k within two standard errors"
        )),
        "{text}"
    );
    assert!(
        text.contains("- kmeans") && text.contains(" spectral"),
        "{text}"
    );
    insta::assert_snapshot!("kscan_two_120x40_ascii", frame);
    // ↑↓ the algorithm, ←→ k.
    app.update(Action::Move(1));
    app.update(Action::Step {
        steps: 2,
        coarse: false,
    });
    assert_eq!(app.sweep.last.as_ref().unwrap().cursor, (2, 1));
    let text = view_text(&screen(&mut app, 120, 40, ASCII), " k-scan");
    assert!(text.contains("spectral: k=4:"), "{text}");
    // a: the recommended algorithm and k.
    app.update(Action::AdoptK);
    assert_eq!(app.algo().id(), algo);
    assert_eq!(app.k, Some(k));
    settle(&mut app, finished);
    assert_eq!(app.current_k(), k);

    // The prompt refuses what it cannot run.
    for (bad, why) in [
        ("k=2:4 algos=kmeans,nope", "nope"),
        ("k=2:4 algos=kmeans,kmeans", "named twice"),
        ("eta=1:2:3 algos=kmeans,power", "k-scan"),
    ] {
        let e = parse_text(bad).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
    assert_eq!(
        parse_text("k=2:4 algos=kmeans,spectral").unwrap().algos,
        ["kmeans", "spectral"]
    );
}

/// K's prompt sets the range of k (`k=FROM:TO`), the resamples and seeds.
#[test]
fn the_k_scan_prompt_sets_the_range_and_the_resamples() {
    let mut app = start("iris", "kmeans");
    settle(&mut app, finished);
    app.update(Action::KScan);
    assert_eq!(
        app.prompt.as_ref().unwrap().text,
        "k=2:12 resamples=20 seeds=3"
    );
    app.update(Action::Cancel);
    kscan(&mut app, Some("k=3:6 resamples=4 seeds=2"));
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(sv.kind, SweepKind::KScan);
    assert_eq!(sv.plan.axes[0].values, vec![3.0, 4.0, 5.0, 6.0]);
    assert_eq!(sv.plan.resampling.count, 4);
    assert_eq!(sv.plan.seeds, 2);
    assert!(sv.cells.iter().flatten().all(|c| c.score("gap").is_some()));
    // resamples=0: no resampled scores, silhouette first, and the
    // recommendation falls back on it.
    kscan(&mut app, Some("k=2:5 resamples=0 seeds=2"));
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(sv.plan.resampling.count, 0);
    assert_eq!(sv.score_name(), "silhouette");
    assert!(!sv.score_names().contains(&"gap"));
    let r = sv.recommendation().unwrap();
    assert!(r.by.starts_with("silhouette"), "{}", r.by);
}

/// A bad value in the k-scan's prompt (or `resamples=` in the sweep's)
/// keeps the prompt open with the reason on its line.
#[test]
fn a_bad_resamples_value_gives_an_error_line() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.update(Action::KScan);
    for (text, why) in [
        (
            "k=2:8 resamples=x",
            "resamples=x: give a whole number from 0 (none) to 1000",
        ),
        ("k=2:8 resamples=-1", "resamples=-1: give a whole number"),
        (
            "k=2:8 resamples=5000",
            "resamples=5000: give a whole number",
        ),
        (
            "k=8:2",
            "k=8:2: give k=FROM:TO with whole numbers 1 ≤ FROM ≤ TO",
        ),
        ("k=2:x", "k=2:x: give k=FROM:TO"),
        ("s0=-3,-1 resamples=2", "a k-scan varies k alone"),
    ] {
        type_text(&mut app, text);
        app.update(Action::Activate);
        let p = app.prompt.as_ref().expect("the prompt stays open");
        assert_eq!(p.kind, PromptKind::KScan);
        assert!(p.hint.contains(why), "{text}: {}", p.hint);
        assert!(app.sweep.last.is_none());
    }
    // The reason is on the screen, under the text.
    let frame = screen(&mut app, 120, 40, ASCII);
    assert!(frame.contains("k-scan"), "{frame}");
    assert!(frame.contains("a k-scan varies k alone"), "{frame}");
    app.update(Action::Cancel);
    app.update(Action::Focus(Pane::Parameters));
    app.update(Action::Move(3));
    app.update(Action::OpenSweep);
    type_text(&mut app, "s0=-3,-1 resamples=many");
    app.update(Action::Activate);
    let p = app.prompt.as_ref().expect("the prompt stays open");
    assert!(
        p.hint.contains("resamples=many: give a whole number"),
        "{}",
        p.hint
    );
    assert!(app.sweep.last.is_none());
}

/// A grid sweep recommends a cell only with `resamples=N`; `a` runs it.
#[test]
fn a_grid_with_resamples_recommends_a_cell_and_a_runs_it() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.update(Action::OpenSweep);
    type_text(&mut app, "eta=1.01,1.04,1.3 seeds=2");
    app.update(Action::Activate);
    settle(&mut app, sweep_done);
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(sv.plan.resampling.count, 0);
    assert_eq!(sv.recommended_at(), None);
    let frame = screen(&mut app, 120, 40, ASCII);
    assert!(!frame.contains("recommended"), "{frame}");
    app.update(Action::AdoptK);
    assert_eq!(app.context(), Context::Sweep, "nothing to adopt");

    app.update(Action::OpenSweep);
    type_text(&mut app, "eta=1.01,1.04,1.3 seeds=2 resamples=3");
    app.update(Action::Activate);
    settle(&mut app, sweep_done);
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(sv.kind, SweepKind::Grid);
    assert_eq!(sv.plan.resampling.count, 3);
    // With labels NMI is still shown first; the resampled scores follow.
    assert_eq!(
        sv.score_names()[..4],
        ["nmi", "ari", "acc", "prediction_strength"]
    );
    let cells: Vec<_> = sv.cells.iter().flatten().cloned().collect();
    let r = sweep::recommend::recommend(&cells, &sv.plan.axes).unwrap();
    let (row, _) = sv.recommended_at().unwrap();
    assert_eq!(row, r.cell);
    let eta = sv.plan.axes[0].values[row];
    let text = view_text(&screen(&mut app, 160, 40, ASCII), " Sweep");
    assert!(
        text.contains(&format!("recommended eta={} (", fmt_num(eta))),
        "{text}"
    );
    app.update(Action::AdoptK);
    assert_eq!(app.context(), Context::Panes);
    assert_eq!(slider(&app, "eta"), eta);
}

/// The k-scan reaches k + 3 when the current k is above 9, and a sweep of
/// k alone (any range, from `S`) runs as a k-scan with its suggestion.
#[test]
fn the_k_scan_range_follows_k_and_a_k_sweep_is_a_k_scan() {
    let mut app = start("gen:blobs,n=400,k=4,p=2,sep=12", "kmeans");
    settle(&mut app, finished);
    app.k = Some(14);
    app.update(Action::KScan);
    assert_eq!(
        app.prompt.as_ref().unwrap().text,
        "k=2:17 resamples=20 seeds=3"
    );
    app.update(Action::Cancel);
    kscan(&mut app, None);
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(sv.plan.axes[0].values.last(), Some(&17.0));
    app.update(Action::Cancel);
    app.update(Action::OpenSweep);
    app.prompt.as_mut().unwrap().text.clear();
    type_text(&mut app, "k=3:6:4 seeds=2");
    app.update(Action::Activate);
    settle(&mut app, sweep_done);
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(sv.kind, SweepKind::KScan);
    assert_eq!(sv.plan.axes[0].values, vec![3.0, 4.0, 5.0, 6.0]);
    assert_eq!(sv.suggested_k(), Some(4));
}

/// A k where a run lost a cluster is never the recommendation, however
/// well it scores: here (no resampling, so silhouette decides) the k = 6
/// cell is made the best silhouette but collapsed.
#[test]
fn a_k_scan_never_suggests_a_collapsed_k() {
    let mut app = start("gen:blobs,n=400,k=4,p=2,sep=12", "kmeans");
    settle(&mut app, finished);
    kscan(&mut app, Some("k=2:12 resamples=0 seeds=3"));
    let sv = app.sweep.last.as_mut().unwrap();
    let row = sv.plan.axes[0]
        .values
        .iter()
        .position(|&k| k == 6.0)
        .unwrap();
    let cell = sv.cells[row].as_mut().unwrap();
    for (name, v) in cell.scores.iter_mut() {
        if *name == "silhouette" {
            v.mean = 2.0;
        }
    }
    assert_eq!(
        sv.suggested_k(),
        Some(6),
        "the best silhouette, not yet collapsed"
    );
    let cell = sv.cells[row].as_mut().unwrap();
    cell.runs[0].internal.clusters = 5;
    cell.runs[1].converged = false;
    assert!(cell.collapsed());
    assert_eq!(sv.suggested_k(), Some(4));
    // The line under the chart says which k were passed over and why.
    let text = screen(&mut app, 160, 40, ASCII).replace(['\n', '"'], "");
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains("recommended k = 4"), "{text}");
    assert!(text.contains("stopped at max_iter: k 6"), "{text}");
    assert!(
        text.contains("lost a cluster (never recommended): k 6"),
        "{text}"
    );
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
    insta::assert_snapshot!("sweep_numbers_80x24_ascii", screen(&mut app, 80, 24, ASCII));

    // One axis: a line with its band.
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.update(Action::OpenSweep);
    type_text(&mut app, "eta=1.01:1.3:5 seeds=2");
    app.update(Action::Activate);
    settle(&mut app, sweep_done);
    insta::assert_snapshot!("sweep_line_120x40_ascii", screen(&mut app, 120, 40, ASCII));
    insta::assert_snapshot!("sweep_line_80x24", screen(&mut app, 80, 24, COLOR));
    app.update(Action::SweepNumbers);
    insta::assert_snapshot!(
        "sweep_line_numbers_80x24_ascii",
        screen(&mut app, 80, 24, ASCII)
    );

    let mut app = start("iris", "kmeans");
    settle(&mut app, finished);
    kscan(&mut app, None);
    for (name, w, h, theme) in [
        ("kscan_120x40", 120, 40, COLOR),
        ("kscan_120x40_ascii", 120, 40, ASCII),
        ("kscan_80x24", 80, 24, COLOR),
        ("kscan_80x24_ascii", 80, 24, ASCII),
    ] {
        insta::assert_snapshot!(name, screen(&mut app, w, h, theme));
    }
    // The gap on its own scale with its standard error, then the
    // classic scores' curves (silhouette shown).
    for _ in 0..3 {
        app.update(Action::SweepScore);
    }
    assert_eq!(app.sweep.last.as_ref().unwrap().score_name(), "gap");
    insta::assert_snapshot!("kscan_gap_120x40_ascii", screen(&mut app, 120, 40, ASCII));
    app.update(Action::SweepScore);
    assert_eq!(app.sweep.last.as_ref().unwrap().score_name(), "silhouette");
    insta::assert_snapshot!(
        "kscan_curves_120x40_ascii",
        screen(&mut app, 120, 40, ASCII)
    );
    app.update(Action::SweepNumbers);
    insta::assert_snapshot!("kscan_numbers_80x24_ascii", screen(&mut app, 80, 24, ASCII));
}

/// The value of slider `n` now.
fn slider(app: &App, n: &str) -> f64 {
    app.sliders()
        .iter()
        .find(|s| s.spec.name == n)
        .unwrap()
        .value
}

/// A grid sweep of `text` on iris with power, run to the end.
fn iris_sweep(text: &str) -> App {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.update(Action::OpenSweep);
    type_text(&mut app, text);
    app.update(Action::Activate);
    assert!(app.prompt.is_none(), "{:?}", app.prompt);
    settle(&mut app, sweep_done);
    app
}

/// The lines of the right-hand side of a frame (the sweep view), from
/// column `from`.
fn right(frame: &str, from: usize) -> Vec<String> {
    frame
        .lines()
        .map(|l| l.trim_matches('"').chars().skip(from).collect())
        .collect()
}

#[test]
fn enter_runs_the_cell_with_the_sweeps_settings_after_k_changed() {
    // Issue 27, item 2: sweep at k = 3, Esc, k to 4, v, Enter: the run is
    // the cell's (k = 3), said in the status line.
    let mut app = small_sweep();
    assert_eq!(app.current_k(), 3);
    let title = screen(&mut app, 120, 40, ASCII);
    assert!(title.contains("Sweep s0 x eta . power k=3 ."), "{title}");
    app.update(Action::Cancel);
    app.update(Action::Focus(Pane::Parameters));
    app.update(Action::Move(-10));
    app.update(Action::Step {
        steps: 1,
        coarse: false,
    });
    assert_eq!(app.current_k(), 4);
    app.restarts = 3;
    app.update(Action::ToggleSweep);
    assert_eq!(app.context(), Context::Sweep);
    assert_eq!(app.sweep_stale(), ["k 3 (now 4)"]);
    // The view says what it ran with and what differs now.
    let frame = screen(&mut app, 120, 40, ASCII).replace("\"\n\"", " ");
    assert!(
        frame.contains("ran with iris . scale standard . k 3"),
        "{frame}"
    );
    assert!(frame.contains("differs now: k 3 (now 4)"), "{frame}");
    app.update(Action::SweepBest);
    let at = app.sweep.last.as_ref().unwrap().cursor;
    app.update(Action::Activate);
    let msg = app.message.clone().unwrap_or_default();
    assert!(msg.contains("k 3 (was 4)"), "{msg}");
    assert!(msg.contains("restarts 1 (was 3)"), "{msg}");
    assert!(msg.contains("(seed 0, the first of the cell's 2)"), "{msg}");
    assert_eq!(app.current_k(), 3);
    assert_eq!(app.restarts, 1);
    settle(&mut app, finished);
    let cell = app
        .sweep
        .last
        .as_ref()
        .unwrap()
        .cell(at.0, at.1)
        .unwrap()
        .clone();
    let nmi = app.view.scores.unwrap().nmi;
    assert_eq!(Some(nmi), cell.runs[0].external.map(|e| e.nmi));
    assert_eq!(app.view.config.as_ref().unwrap().1.k, 3);
    assert!(app.sweep_stale().is_empty(), "{:?}", app.sweep_stale());
}

#[test]
fn enter_restores_the_algorithm_seed_and_fixed_parameters() {
    let mut app = iris_sweep("s0=-3,-1 seeds=2");
    let eta = slider(&app, "eta");
    // Another seed, another η, another algorithm.
    app.update(Action::Cancel);
    app.update(Action::Reseed);
    app.overrides.insert(("power".into(), "eta".into()), 1.2);
    app.update(Action::Focus(Pane::Algorithm));
    app.update(Action::Move(-2));
    assert_eq!(app.algo().id(), "kmeans");
    assert_eq!(app.sweep_stale(), ["algorithm power (now kmeans)"]);
    app.update(Action::ToggleSweep);
    app.update(Action::Activate);
    assert_eq!(app.algo().id(), "power");
    assert_eq!(app.seed, 0);
    assert_eq!(slider(&app, "eta"), eta);
    assert_eq!(slider(&app, "s0"), -3.0);
    let msg = app.message.clone().unwrap_or_default();
    assert!(msg.contains("algorithm power (was kmeans)"), "{msg}");
    settle(&mut app, finished);
    let cell = app.sweep.last.as_ref().unwrap().cell(0, 0).unwrap().clone();
    let nmi = app.view.scores.unwrap().nmi;
    assert_eq!(Some(nmi), cell.runs[0].external.map(|e| e.nmi));
}

#[test]
fn another_scaling_refuses_the_cell_and_says_what_differs() {
    let mut app = iris_sweep("s0=-3,-1 seeds=1");
    app.update(Action::Cancel);
    app.update(Action::CycleScaling);
    app.update(Action::CycleScaling);
    settle(&mut app, |a| {
        finished(a) && a.loaded().is_some_and(|l| l.scale.to_string() == "minmax")
    });
    app.update(Action::ToggleSweep);
    app.update(Action::Activate);
    let msg = app.message.clone().unwrap_or_default();
    assert!(
        msg.contains("the sweep ran on iris (scale standard)")
            && msg.contains("(scale standard (now minmax))"),
        "{msg}"
    );
    assert_eq!(app.context(), Context::Sweep, "refused: the view stays");
    let frame = screen(&mut app, 120, 40, ASCII).replace("\"\n\"", " ");
    assert!(frame.contains("Enter is refused here"), "{frame}");
}

#[test]
fn a_k_scan_cell_runs_with_the_k_scans_settings() {
    let mut app = start("iris", "kmeans");
    settle(&mut app, finished);
    kscan(&mut app, None);
    // The title has no k (k is the axis); the settings line has the seed.
    let frame = screen(&mut app, 120, 40, ASCII);
    assert!(
        frame.contains("k-scan . kmeans . 11 cells in") && frame.contains(" . 3 seeds "),
        "{frame}"
    );
    assert!(
        frame.contains("ran with iris . scale standard . seed 0"),
        "{frame}"
    );
    app.update(Action::Cancel);
    app.update(Action::Reseed);
    app.update(Action::ToggleSweep);
    assert_eq!(app.sweep_stale(), ["seed 0 (now 1)"]);
    app.update(Action::AdoptK);
    let k = app.sweep.last.as_ref().unwrap().suggested_k().unwrap();
    assert_eq!(app.current_k(), k);
    assert_eq!(app.seed, 0);
}

#[test]
fn the_sliders_marker_says_when_it_is_only_the_nearest_cell() {
    // Issue 27, item 3: η = 1.04 is not on the grid.
    let mut app = iris_sweep("s0=-4,-1 eta=1.01,1.3 seeds=1");
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(sv.current_at(), Some((1, 0)));
    assert!(!sv.current_exact());
    let frame = screen(&mut app, 160, 40, ASCII).replace("\"\n\"", " ");
    assert!(
        frame.contains("o nearest the sliders (s0=-1, eta=1.04)"),
        "{frame}"
    );
    // On the grid: the sliders' own values.
    let mut app = small_sweep();
    assert!(app.sweep.last.as_ref().unwrap().current_exact());
    let frame = screen(&mut app, 160, 40, ASCII).replace("\"\n\"", " ");
    assert!(frame.contains("o sliders (s0=-1, eta=1.04)"), "{frame}");
}

#[test]
fn one_axis_marks_the_cell_nearest_the_sliders() {
    // Issue 27, item 3, on a curve: η = 1.04 is not on the grid; the
    // nearest value (1.05) is marked o and the legend says it is the
    // nearest. (On iris every cell scores alike, so the best is the first.)
    let mut app = iris_sweep("eta=1.3,1.05,1.6 seeds=1");
    let sv = app.sweep.last.as_ref().unwrap();
    assert_eq!(sv.current_at(), Some((1, 0)));
    assert!(!sv.current_exact());
    // Move the cursor and the best marker elsewhere so o shows.
    app.update(Action::Step {
        steps: 2,
        coarse: false,
    });
    let raw = screen(&mut app, 120, 40, ASCII);
    let frame = raw.replace("\"\n\"", " ");
    assert!(
        frame.contains("o nearest the sliders (eta=1.04)"),
        "{frame}"
    );
    // The plot: the right-hand pane's rows under its title down to the x
    // axis, where only numbers and markers are drawn.
    let plot: String = raw
        .lines()
        .skip(1)
        .map(|l| l.chars().skip(41).collect::<String>())
        .take_while(|l| !l.contains("nmi "))
        .collect();
    assert!(plot.contains('o'), "no o on the curve:\n{raw}");
}

#[test]
fn arrows_and_numbers_work_along_one_axis_and_in_a_k_scan() {
    // Issue 27, item 4.
    let mut app = iris_sweep("eta=1.01:1.3:5 seeds=2");
    let right_step = |app: &mut App, steps| {
        app.update(Action::Step {
            steps,
            coarse: false,
        })
    };
    right_step(&mut app, 1);
    assert_eq!(app.sweep.last.as_ref().unwrap().cursor, (1, 0));
    right_step(&mut app, 2);
    assert_eq!(app.sweep.last.as_ref().unwrap().cursor, (3, 0));
    right_step(&mut app, -1);
    app.update(Action::Move(-1));
    assert_eq!(app.sweep.last.as_ref().unwrap().cursor, (1, 0));
    // Every value is labelled under the curve (80 columns), the best is
    // marked.
    let tick = |v: f64| fmt_num(round_sig(v, 3));
    let labels: Vec<String> = app.sweep.last.as_ref().unwrap().plan.axes[0]
        .values
        .iter()
        .map(|v| tick(*v))
        .collect();
    let frame = screen(&mut app, 80, 24, ASCII);
    let ticks = right(&frame, 32)
        .into_iter()
        .find(|l| l.starts_with("|eta "))
        .unwrap_or_else(|| panic!("a tick row in {frame}"));
    for t in &labels {
        assert!(ticks.contains(&format!(" {t}")), "{t} in {ticks:?}");
    }
    let frame = screen(&mut app, 120, 40, ASCII);
    assert!(frame.contains("* best nmi . O cursor"), "{frame}");
    // n: a table of the values.
    app.update(Action::SweepNumbers);
    let frame = screen(&mut app, 80, 24, ASCII);
    let sv = app.sweep.last.as_ref().unwrap();
    let (best, _) = sv.best().unwrap();
    let row = right(&frame, 32)
        .into_iter()
        .find(|l| l.contains(&format!("* {:>4}", labels[best])))
        .unwrap_or_else(|| panic!("the best row marked in {frame}"));
    let v = sv.value(best, 0).unwrap().mean;
    assert!(
        row.contains(&meanscape::tui::panes::sweep::fit_num(v, 7)),
        "{row}"
    );
    assert!(frame.contains("+-sd"), "{frame}");

    // The k-scan: ←/→ move, n shows the table with every score.
    let mut app = start("iris", "kmeans");
    settle(&mut app, finished);
    kscan(&mut app, None);
    right_step(&mut app, 2);
    assert_eq!(app.sweep.last.as_ref().unwrap().cursor, (2, 0));
    let frame = screen(&mut app, 80, 24, ASCII);
    let ticks = right(&frame, 32)
        .into_iter()
        .find(|l| l.starts_with("|k "))
        .unwrap_or_else(|| panic!("a tick row in {frame}"));
    for k in 2..=12 {
        assert!(ticks.contains(&format!(" {k}")), "{k} in {ticks:?}");
    }
    app.update(Action::SweepNumbers);
    let frame = screen(&mut app, 80, 24, ASCII);
    assert!(frame.contains("silh"), "{frame}");
    assert!(frame.contains("stabil"), "{frame}");
}

#[test]
fn adopt_k_is_offered_only_where_there_is_a_suggestion() {
    let mut app = small_sweep();
    let hints = |frame: &str| frame.lines().last().unwrap().to_string();
    let frame = screen(&mut app, 120, 40, ASCII);
    assert!(!hints(&frame).contains("a adopt"), "{}", hints(&frame));
    assert!(hints(&frame).contains("n numbers"), "{}", hints(&frame));
    let mut app = start("iris", "kmeans");
    settle(&mut app, finished);
    kscan(&mut app, None);
    let frame = screen(&mut app, 120, 40, ASCII);
    assert!(hints(&frame).contains("a adopt"), "{}", hints(&frame));
}

#[test]
fn the_help_lists_the_sweep_keys() {
    let app = start("iris", "kmeans");
    let sections = app.help_sections();
    let text: String = meanscape::tui::components::help::help_lines(&sections, 100, &ASCII)
        .iter()
        .map(|l| l.to_string() + "\n")
        .collect();
    assert!(text.contains("In a sweep or k-scan"), "{text}");
    let rows = meanscape::tui::keys::help_rows(Context::Sweep);
    assert!(rows.len() >= 8, "{rows:?}");
    for (keys, help) in rows {
        let first = help
            .split_whitespace()
            .take(4)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(text.contains(&*ASCII.text(&keys)), "{keys} in {text}");
        assert!(text.contains(&*ASCII.text(&first)), "{first} in {text}");
    }
}

#[test]
fn numbers_fit_their_cells_at_80x24() {
    // Issue 27, item 7: a 6 × 6 grid, numbers mode, no colour.
    let mut app = iris_sweep("s0=-10:-0.1:6:log eta=1:1.54:6 seeds=1");
    app.update(Action::SweepNumbers);
    let frame = screen(&mut app, 80, 24, ASCII);
    let view = right(&frame, 32);
    // The header and the six rows: no value or label cut.
    let rows: Vec<&String> = view[1..8].iter().collect();
    for l in &rows {
        assert!(!l.contains('~'), "{l:?} in\n{frame}");
    }
    let sv = app.sweep.last.as_ref().unwrap();
    let v = sv.value(0, 0).unwrap().mean;
    let shown = meanscape::tui::panes::sweep::fit_num(v, 5);
    assert!(rows[1].contains(&shown), "{shown} in {:?}", rows[1]);
    assert!(shown.len() >= 3, "{shown}");
    // The density glyphs and the markers differ.
    app.update(Action::SweepNumbers);
    let frame = screen(&mut app, 80, 24, ASCII);
    assert!(frame.contains("worse .:-=+%#@ better"), "{frame}");
}

#[test]
fn a_path_made_with_other_settings_is_not_applied() {
    // Issue 27, item 2 for the path: k changed since the path was made.
    let mut app = start("iris", "lw");
    settle(&mut app, finished);
    app.update(Action::TogglePath);
    settle(&mut app, |a| a.path.result.is_some());
    app.update(Action::Focus(Pane::Parameters));
    app.update(Action::Move(-10));
    app.update(Action::Step {
        steps: 1,
        coarse: false,
    });
    assert_eq!(app.current_k(), 4);
    app.update(Action::Focus(Pane::Weights));
    let before = app.overrides.clone();
    app.update(Action::Activate);
    let msg = app.message.clone().unwrap_or_default();
    assert!(
        msg.contains("the path ran with") && msg.contains("k=3"),
        "{msg}"
    );
    assert!(msg.contains("now k=4"), "{msg}");
    assert_eq!(app.overrides, before, "nothing applied");
    // Once the path is made again for k = 4, Enter applies its point.
    settle(&mut app, |a| {
        finished(a) && a.path.result.is_some() && a.path.job.is_none()
    });
    app.update(Action::Activate);
    let msg = app.message.clone().unwrap_or_default();
    assert!(msg.contains("from the path"), "{msg}");
}

#[test]
fn column_labels_that_do_not_fit_every_cell_label_every_other() {
    // Twelve η columns in 80 columns: cells too narrow for "1.18".
    let mut app = iris_sweep("s0=-4,-1 eta=1:3:12 seeds=1");
    let frame = screen(&mut app, 80, 24, ASCII);
    let head = &right(&frame, 32)[1];
    assert!(!head.contains('~'), "{head:?}");
    let labels: Vec<&str> = head.trim_matches('|').split_whitespace().skip(1).collect();
    assert!(labels.len() >= 4, "{head:?}");
    assert_eq!(labels[0], "1", "{head:?}");
    let axis = &app.sweep.last.as_ref().unwrap().plan.axes[1];
    for l in &labels {
        let v: f64 = l.parse().unwrap();
        assert!(
            axis.values
                .iter()
                .any(|a| (round_sig(*a, 3) - v).abs() < 1e-9),
            "{l} is an axis value"
        );
    }
}
