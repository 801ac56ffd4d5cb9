//! The feature-selection inspector, the regularisation path's curves and
//! cursor, and the confusion matrix with per-cluster profiles: state
//! through `App::update`, screens through TestBackend and insta.

mod tui_support;

use meanscape::algo::Ctx;
use meanscape::algo::path::{Grid, PathAlgo, run_path};
use meanscape::tui::app::{Action, App, Pane, PromptKind, RunStatus, Wide};
use meanscape::tui::components::Component;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tui_support::{ASCII, COLOR, PLAIN, finished, screen, settle, start, type_value};

/// The run and the path both done.
fn path_done(app: &App) -> bool {
    finished(app) && app.path.job.is_none() && app.path.result.is_some()
}

fn slider_value(app: &App, name: &str) -> f64 {
    app.sliders()
        .into_iter()
        .find(|s| s.spec.name == name)
        .unwrap_or_else(|| panic!("no slider {name}"))
        .value
}

fn assert_ascii(s: &str) {
    let body: String = s.lines().map(|l| l.trim_matches('"')).collect();
    assert!(body.is_ascii(), "ASCII mode drew non-ASCII glyphs:\n{s}");
}

/// lw on breast_cancer (569 × 30), finished, the inspector open.
fn inspector_app() -> App {
    let mut app = start("breast_cancer", "lw");
    settle(&mut app, finished);
    app.update(Action::Focus(Pane::Weights));
    app.update(Action::ToggleInspector);
    app
}

#[test]
fn inspector_lists_every_feature_by_weight_and_scrolls() {
    let mut app = inspector_app();
    assert!(app.inspector.open);
    assert_eq!(app.wide_view(), Some(Wide::Inspector));
    let w = app.view.feature_weights.clone().unwrap();
    let rows = app.feature_rows();
    assert_eq!(rows.len(), 30);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.rank, i + 1);
        assert_eq!(r.weight, w[r.index]);
        assert_eq!(r.selected, w[r.index] > 0.0);
        assert_eq!(r.name, app.loaded().unwrap().dataset.feature_names[r.index]);
    }
    assert!(rows.windows(2).all(|p| p[0].weight >= p[1].weight));
    // A frame tells the inspector its page size.
    let s = screen(&mut app, 120, 40, COLOR);
    let page = app.inspector.page.get();
    assert!(page >= 20, "{page}\n{s}");
    app.update(Action::Move(3));
    assert_eq!(app.inspector.cursor, 3);
    // PgDn (a coarse step down) moves a page; the cursor stays in view.
    app.update(Action::Step {
        steps: -1,
        coarse: true,
    });
    assert_eq!(app.inspector.cursor, (3 + page).min(29));
    assert!(app.inspector.top <= app.inspector.cursor);
    assert!(app.inspector.cursor < app.inspector.top + page);
    app.update(Action::Move(100));
    assert_eq!(app.inspector.cursor, 29);
    // The last feature's name is on the screen once scrolled to it.
    let s = screen(&mut app, 120, 40, COLOR);
    assert!(s.contains(rows[29].name.as_str()), "{s}");
    // The slider keys did not move a slider.
    assert!(matches!(
        app.status,
        RunStatus::Converged | RunStatus::Stopped
    ));
}

#[test]
fn inspector_search_filters_by_name_and_esc_clears_then_closes() {
    let mut app = inspector_app();
    app.update(Action::SearchPrompt);
    assert_eq!(app.prompt.as_ref().unwrap().kind, PromptKind::Search);
    for c in "WORST".chars() {
        app.update(Action::Input(c));
    }
    // The list follows the text as it is typed, in any case.
    let names = app.loaded().unwrap().dataset.feature_names.clone();
    let want = names.iter().filter(|n| n.contains("worst")).count();
    assert_eq!(want, 10);
    assert_eq!(app.feature_rows().len(), want);
    app.update(Action::Activate);
    assert!(app.prompt.is_none());
    assert_eq!(app.inspector.filter, "WORST");
    let rows = app.feature_rows();
    assert_eq!(rows.len(), want);
    assert!(rows.iter().all(|r| r.name.contains("worst")));
    // Ranks stay those of the whole list.
    assert!(rows.iter().any(|r| r.rank > want));
    let s = screen(&mut app, 120, 40, COLOR);
    assert!(s.contains("filter \"WORST\": 10 of 30"), "{s}");
    app.update(Action::Cancel);
    assert!(app.inspector.filter.is_empty());
    assert!(app.inspector.open);
    assert_eq!(app.feature_rows().len(), 30);
    app.update(Action::Cancel);
    assert!(!app.inspector.open);
    assert_eq!(app.wide_view(), None);
}

#[test]
fn inspector_exports_exactly_the_selected_names() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = inspector_app();
    let w = app.view.feature_weights.clone().unwrap();
    let names = app.loaded().unwrap().dataset.feature_names.clone();
    let mut want: Vec<String> = (0..w.len())
        .filter(|&j| w[j] > 0.0)
        .map(|j| names[j].clone())
        .collect();
    assert!(!want.is_empty() && want.len() < 30, "{want:?}");
    app.update(Action::ExportPrompt);
    let p = app.prompt.as_ref().unwrap();
    assert_eq!(p.kind, PromptKind::ExportNames);
    assert_eq!(p.text, "breast_cancer-lw-selected.txt");
    let target = dir.path().join("genes.txt");
    app.prompt.as_mut().unwrap().text = target.display().to_string();
    app.update(Action::Activate);
    let text = std::fs::read_to_string(&target).unwrap();
    let mut got: Vec<String> = text.lines().map(String::from).collect();
    // Largest weight first, as listed.
    assert_eq!(got, app.selected_names());
    got.sort();
    want.sort();
    assert_eq!(got, want);
    let full = std::path::absolute(&target).unwrap();
    let msg = app.message.clone().unwrap();
    assert!(msg.contains(&full.display().to_string()), "{msg}");
    // Again: asks first, and "n" keeps the file.
    std::fs::write(&target, "keep me").unwrap();
    app.update(Action::ExportPrompt);
    app.prompt.as_mut().unwrap().text = target.display().to_string();
    app.update(Action::Activate);
    assert!(matches!(
        app.prompt.as_ref().unwrap().kind,
        PromptKind::ConfirmNames(_)
    ));
    app.update(Action::Input('n'));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    // A run without weights has nothing to inspect.
    let mut plain = start("iris", "kmeans");
    settle(&mut plain, finished);
    plain.update(Action::ToggleInspector);
    assert!(!plain.inspector.open);
    assert!(
        plain
            .message
            .as_ref()
            .unwrap()
            .contains("no feature weights")
    );
}

/// The `lambda_max` of lw at the app's last run settings.
fn lambda_max_now(app: &App) -> f64 {
    let mut cfg = app.view.config.as_ref().unwrap().1.clone();
    cfg.restarts = 1;
    let problem = app.loaded().unwrap().problem.clone();
    run_path(
        PathAlgo::Lw,
        &problem,
        &cfg,
        &Grid::Values(vec![1.0]),
        &Ctx::new(),
    )
    .unwrap()
    .limit
}

#[test]
fn path_is_recomputed_when_k_changes() {
    let mut app = start("wine", "lw");
    settle(&mut app, finished);
    app.update(Action::TogglePath);
    assert!(app.path.shown);
    settle(&mut app, path_done);
    let old = app.path.result.as_ref().unwrap().as_ref().unwrap().limit;
    assert_eq!(old, lambda_max_now(&app));
    type_value(&mut app, "k", "5");
    settle(&mut app, |a| {
        path_done(a) && a.view.config.as_ref().is_some_and(|(_, c)| c.k == 5)
    });
    let res = app.path.result.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(res.limit, lambda_max_now(&app));
    assert_ne!(res.limit, old, "the path still has k = 3's lambda_max");
    // Hidden, a stale path is dropped and computed on showing it.
    app.update(Action::Focus(Pane::Weights));
    app.update(Action::TogglePath);
    assert!(!app.path.shown);
    type_value(&mut app, "k", "4");
    settle(&mut app, |a| {
        finished(a) && a.view.config.as_ref().is_some_and(|(_, c)| c.k == 4)
    });
    assert!(app.path.result.is_none() && app.path.job.is_none());
    app.update(Action::TogglePath);
    settle(&mut app, path_done);
    let res = app.path.result.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(res.limit, lambda_max_now(&app));
}

#[test]
fn the_cursor_on_the_path_sets_lambda_and_keeps_the_path() {
    let mut app = start("wine", "lw");
    settle(&mut app, finished);
    app.update(Action::TogglePath);
    settle(&mut app, path_done);
    assert_eq!(app.wide_view(), Some(Wide::Path));
    let first = app.path_cursor().unwrap();
    let res = app.path.result.clone().unwrap().unwrap();
    // Three points to the left: three smaller λ.
    app.update(Action::Step {
        steps: -3,
        coarse: false,
    });
    let c = app.path_cursor().unwrap();
    let mut sorted: Vec<f64> = res.points.iter().map(|p| p.lambda).collect();
    sorted.sort_by(f64::total_cmp);
    let pos = |l: f64| sorted.iter().position(|&v| v == l).unwrap();
    assert_eq!(
        pos(res.points[c].lambda),
        pos(res.points[first].lambda).saturating_sub(3)
    );
    app.update(Action::Activate);
    assert_eq!(slider_value(&app, "lambda"), res.points[c].lambda);
    assert!(matches!(app.status, RunStatus::Pending(_)));
    settle(&mut app, path_done);
    // The same path (λ is its axis, not one of its inputs) and the run at
    // the cursor's λ selects what the path says there, up to the start.
    let again = app.path.result.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(again.limit, res.limit);
    assert_eq!(app.path_cursor(), Some(c));
    let cfg = &app.view.config.as_ref().unwrap().1;
    assert_eq!(cfg.params.value("lambda"), Some(res.points[c].lambda));
}

#[test]
fn sparse_kmeans_marker_sits_at_the_sliders_bound() {
    let mut app = start("breast_cancer", "sparse-kmeans");
    settle(&mut app, finished);
    app.update(Action::TogglePath);
    settle(&mut app, path_done);
    let res = app.path.result.clone().unwrap().unwrap();
    let wbound = slider_value(&app, "wbound");
    assert_eq!(app.path_value_now(), Some(wbound));
    // The path runs over the bound from about one feature (1.1) up.
    let lo = res.points.iter().map(|p| p.lambda).fold(f64::MAX, f64::min);
    let hi = res.points.iter().map(|p| p.lambda).fold(0.0, f64::max);
    assert_eq!(lo, 1.1);
    assert!(lo < wbound && wbound < hi, "{lo} {wbound} {hi}");
    // The cursor starts at the grid point nearest the slider's bound.
    let c = app.path_cursor().unwrap();
    let d = |l: f64| (l.log10() - wbound.log10()).abs();
    assert!(
        res.points
            .iter()
            .all(|p| d(res.points[c].lambda) <= d(p.lambda))
    );
    // On the screen the marker (|) is where the slider's bound is on the
    // path's axis, for the default and for a typed bound alike.
    app.update(Action::Focus(Pane::Weights));
    app.update(Action::Step {
        steps: -100,
        coarse: false,
    });
    assert_marker_at(&app, wbound, lo, hi);
    type_value(&mut app, "wbound", "3");
    settle(&mut app, path_done);
    assert_eq!(
        app.path.result.as_ref().unwrap().as_ref().unwrap().limit,
        res.limit
    );
    assert_marker_at(&app, 3.0, lo, hi);
    // Enter on the cursor sets the bound, on the same axis.
    app.update(Action::Focus(Pane::Weights));
    app.update(Action::Step {
        steps: 4,
        coarse: false,
    });
    let c = app.path_cursor().unwrap();
    app.update(Action::Activate);
    assert_eq!(slider_value(&app, "wbound"), res.points[c].lambda);
    settle(&mut app, path_done);
    // The cursor (drawn over the marker) out of the way.
    app.update(Action::Focus(Pane::Weights));
    app.update(Action::Step {
        steps: -100,
        coarse: false,
    });
    assert_marker_at(&app, res.points[c].lambda, lo, hi);
}

/// The path pane drawn alone: the column of the slider's marker in the
/// score chart is where `value` falls between `lo` and `hi` (log axis).
fn assert_marker_at(app: &App, value: f64, lo: f64, hi: f64) {
    let mut t = Terminal::new(TestBackend::new(100, 30)).unwrap();
    t.draw(|f| app.path.draw(f, f.area(), app.path_draw(), &PLAIN))
        .unwrap();
    let buf = t.backend().buffer().clone();
    let row = |y: u16| -> Vec<char> {
        (0..100)
            .map(|x| buf[(x, y)].symbol().chars().next().unwrap_or(' '))
            .collect()
    };
    let legend = (0..30)
        .find(|&y| row(y).iter().collect::<String>().contains("selected (log"))
        .expect("the score legend");
    let mut checked = 0;
    for y in legend + 2..30 {
        let r = row(y);
        let Some(axis) = r.iter().skip(1).position(|&c| c == '│').map(|i| i + 1) else {
            continue;
        };
        let Some(mark) = r.iter().position(|&c| c == '|') else {
            continue;
        };
        // The plot spans from after the axis to before the border.
        let width = (99 - axis - 1) as f64;
        let frac = (value.log10() - lo.log10()) / (hi.log10() - lo.log10());
        let want = axis as f64 + 1.0 + frac * (width - 1.0);
        assert!(
            (mark as f64 - want).abs() <= 1.5,
            "marker at column {mark}, want {want:.1} (value {value})"
        );
        checked += 1;
    }
    assert!(checked >= 3, "no marker drawn");
}

#[test]
fn path_view_draws_curves_score_and_count() {
    let mut app = start("wine", "lw");
    settle(&mut app, finished);
    app.update(Action::TogglePath);
    settle(&mut app, path_done);
    let res = app.path.result.clone().unwrap().unwrap();
    let truth = app.loaded().unwrap().dataset.labels.clone().unwrap();
    let s = meanscape::tui::app::path_series(&res, Some(&truth.ids), 8);
    assert_eq!(s.score_name, "NMI");
    assert_eq!(s.order.len(), res.points.len());
    assert!(s.x.windows(2).all(|p| p[0] <= p[1]));
    for (j, &i) in s.order.iter().enumerate() {
        let want = meanscape::metrics::nmi(&truth.ids, &res.points[i].labels);
        assert_eq!(s.score[j], want);
        assert_eq!(s.selected[j], res.points[i].selected);
    }
    assert_eq!(s.top.len(), 8);
    // Without labels: the stability along the path, in [0, 1].
    let u = meanscape::tui::app::path_series(&res, None, 8);
    assert_eq!(u.score_name, "stability");
    assert!(u.score.iter().all(|v| (0.0..=1.0).contains(v)));
    let screen_text = screen(&mut app, 120, 40, COLOR);
    let names = &app.loaded().unwrap().dataset.feature_names;
    assert!(
        screen_text.contains(names[s.top[0]].as_str()),
        "{screen_text}"
    );
    assert!(screen_text.contains("NMI"), "{screen_text}");
    assert!(screen_text.contains("selected (log"), "{screen_text}");
    assert!(!screen_text.contains("NaN"), "{screen_text}");
}

#[test]
fn confusion_counts_are_the_contingency_of_the_labels() {
    let mut app = start("wine", "wkmeans");
    settle(&mut app, finished);
    app.update(Action::ToggleConfusion);
    assert_eq!(app.focus, Pane::Metrics);
    assert_eq!(app.wide_view(), Some(Wide::Confusion));
    let c = app.confusion().unwrap();
    let truth = &app.loaded().unwrap().dataset.labels.as_ref().unwrap().ids;
    let pred = &app.view.labels;
    for (i, row) in c.counts.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            let want = truth
                .iter()
                .zip(pred)
                .filter(|&(&t, &p)| t == j && p == i)
                .count();
            assert_eq!(v, want, "cluster {i} class {j}");
        }
    }
    assert_eq!(c.counts.iter().flatten().sum::<usize>(), truth.len());
    let acc = app.view.scores.unwrap().acc;
    assert!((c.correct as f64 / c.n as f64 - acc).abs() < 1e-12);
    // Profiles: the mean of each selected feature per cluster.
    let p = app.profiles().unwrap();
    let x = &app.loaded().unwrap().dataset.x.f64();
    let f = &p.features[0];
    for (k, &m) in p.means[0].iter().enumerate() {
        let members: Vec<f64> = (0..x.nrows())
            .filter(|&i| pred[i] == k)
            .map(|i| x[[i, f.index]])
            .collect();
        let want = members.iter().sum::<f64>() / members.len() as f64;
        assert!((m - want).abs() < 1e-12);
    }
    assert_eq!(
        p.features.len(),
        app.view
            .feature_weights
            .as_ref()
            .unwrap()
            .iter()
            .filter(|&&v| v > 0.0)
            .count()
    );
    // Scrolls its profile rows, Esc closes it.
    let _ = screen(&mut app, 120, 40, COLOR);
    app.update(Action::Move(2));
    assert_eq!(
        app.confusion_view.top,
        2.min(
            p.features
                .len()
                .saturating_sub(app.confusion_view.page.get())
        )
    );
    app.update(Action::Cancel);
    assert_eq!(app.wide_view(), None);
}

#[test]
fn the_weights_pane_draws_its_strip_inside_the_pane() {
    let mut app = start("breast_cancer", "lw");
    settle(&mut app, finished);
    for (w, h) in [(40, 8), (40, 12), (60, 20)] {
        let s = {
            let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
            t.draw(|f| meanscape::tui::ui::panes::weights(f, f.area(), &app, &ASCII))
                .unwrap();
            format!("{}", t.backend())
        };
        let lines: Vec<&str> = s.lines().collect();
        // Caption, then the strip, then the bottom border.
        let caption = lines.iter().position(|l| l.contains("all 30 features"));
        let caption = caption.unwrap_or_else(|| panic!("no caption at {w}x{h}:\n{s}"));
        assert_eq!(caption + 2, lines.len() - 1, "{w}x{h}:\n{s}");
        assert!(
            lines[caption + 1].contains('#'),
            "no strip at {w}x{h}:\n{s}"
        );
    }
}

fn snap(app: &mut App, name: &str) {
    for (w, h) in [(120, 40), (80, 24)] {
        let c = screen(app, w, h, COLOR);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), c);
        let a = screen(app, w, h, ASCII);
        assert_ascii(&a);
        insta::assert_snapshot!(format!("{name}_{w}x{h}_ascii"), a);
    }
}

#[test]
fn snapshot_inspector() {
    let mut app = inspector_app();
    app.update(Action::Move(2));
    snap(&mut app, "inspector");
}

#[test]
fn snapshot_path_with_curves() {
    let mut app = start("wine", "lw");
    settle(&mut app, finished);
    app.update(Action::TogglePath);
    settle(&mut app, path_done);
    app.update(Action::Step {
        steps: -2,
        coarse: false,
    });
    snap(&mut app, "path");
}

#[test]
fn snapshot_confusion_and_profiles() {
    let mut app = start("wine", "lw");
    settle(&mut app, finished);
    app.update(Action::ToggleConfusion);
    snap(&mut app, "confusion");
}

#[test]
fn wide_views_render_at_every_size_without_nan() {
    let mut app = start("wine", "lw");
    settle(&mut app, finished);
    app.update(Action::TogglePath);
    settle(&mut app, path_done);
    let views: [fn(&mut App); 3] = [
        |a| {
            a.update(Action::Focus(Pane::Weights));
            a.path.shown = true;
            a.inspector.open = false;
        },
        |a| {
            a.update(Action::Focus(Pane::Weights));
            a.update(Action::ToggleInspector);
        },
        |a| {
            a.inspector.open = false;
            a.update(Action::ToggleConfusion);
        },
    ];
    for (i, show) in views.iter().enumerate() {
        show(&mut app);
        assert!(app.wide_view().is_some(), "view {i}");
        for w in (40..=140).step_by(7) {
            for h in (12..=48).step_by(5) {
                for theme in [COLOR, ASCII] {
                    let s = screen(&mut app, w, h, theme);
                    assert!(!s.contains("NaN") && !s.contains("inf"), "{w}x{h}:\n{s}");
                }
            }
        }
    }
}

#[test]
fn sparse_rows_say_they_are_not_scaled_and_z_does_not_reload() {
    // A svmlight file: three groups on their own features, labels first.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sp.svm");
    let mut text = String::new();
    for i in 0..60 {
        let g = i % 3;
        text += &format!("{g} {}:{} {}:1\n", 3 * g + 1, 2 + i % 5, 10 + i % 7);
    }
    std::fs::write(&path, text).unwrap();
    let mut app = start(path.to_str().unwrap(), "power");
    settle(&mut app, finished);
    let shown = screen(&mut app, 120, 40, PLAIN);
    assert!(
        shown.contains("scale none (sparse rows as read)"),
        "{shown}"
    );
    assert!(!shown.contains("rescaling"), "{shown}");
    app.update(Action::CycleScaling);
    assert!(app.loading.is_none(), "z reloaded sparse rows");
    assert_eq!(
        app.message.as_deref(),
        Some("scale: sparse rows are not scaled")
    );
}
