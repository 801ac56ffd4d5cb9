//! The terminal UI without a terminal: state changes through
//! `App::update`, and what the screen shows, through ratatui's TestBackend
//! and insta snapshots.

mod tui_support;

use meanscape::tui::app::{Action, App, Pane, PromptKind, RunStatus, StartOptions};
use meanscape::tui::theme::Theme;
use meanscape::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::{Duration, Instant};
use tui_support::{COLOR, finished, screen, settle, start, type_value};

#[test]
fn starts_running_power_kmeans_on_iris() {
    let mut app = start("iris", "power");
    assert_eq!(app.algo().id(), "power");
    settle(&mut app, finished);
    assert_eq!(app.status, RunStatus::Converged);
    assert_eq!(app.view.sizes.iter().sum::<usize>(), 150);
    let r = app.view.result.as_ref().unwrap();
    assert_eq!(app.view.curve.len(), r.best.iterations);
    assert!(app.view.scores.unwrap().nmi > 0.6);
}

#[test]
fn moving_a_slider_cancels_and_reruns_after_the_debounce() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    let first_curve = app.view.curve.clone();
    app.update(Action::Focus(Pane::Parameters));
    // Slider 3 is s0 (after k, seed, restarts).
    app.update(Action::Move(3));
    assert_eq!(app.sliders()[app.panes.parameters.cursor].spec.name, "s0");
    app.update(Action::Step {
        steps: -1,
        coarse: true,
    });
    assert_eq!(app.sliders()[3].value, -2.0);
    assert!(!app.sliders()[3].is_default);
    assert!(matches!(app.status, RunStatus::Pending(_)));
    // Nothing starts before the debounce.
    app.tick(Instant::now());
    assert!(matches!(app.status, RunStatus::Pending(_)));
    settle(&mut app, finished);
    assert_eq!(
        app.view.previous, first_curve,
        "previous curve kept for comparison"
    );
    assert_eq!(app.view.curve[0].s, Some(-2.0));
}

#[test]
fn typed_values_are_validated() {
    let mut app = start("iris", "power");
    settle(&mut app, |a| a.loaded().is_some());
    app.update(Action::Focus(Pane::Parameters));
    app.update(Action::Move(4)); // eta
    app.update(Action::Activate);
    assert!(matches!(
        app.prompt.as_ref().unwrap().kind,
        PromptKind::Value(4)
    ));
    for c in "0.5".chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Activate);
    let p = app
        .prompt
        .as_ref()
        .expect("refused value keeps the prompt open");
    assert_eq!(p.hint, "eta = 0.5 is out of range: must be in [1, 3]");
    for _ in 0..3 {
        app.update(Action::Backspace);
    }
    for c in "1.2".chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Activate);
    assert!(app.prompt.is_none());
    assert_eq!(app.sliders()[4].value, 1.2);
    // "default" puts it back.
    app.update(Action::Activate);
    for c in "default".chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Activate);
    assert_eq!(app.sliders()[4].value, 1.04);
    assert!(app.sliders()[4].is_default);
}

#[test]
fn choosing_an_algorithm_starts_it_and_keeps_its_own_settings() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.update(Action::Focus(Pane::Algorithm));
    let kmeans = app.algos.iter().position(|a| a.id() == "kmeans").unwrap();
    let power = app.algo_idx;
    app.update(Action::Move(kmeans as i32 - power as i32));
    assert_eq!(app.algo().id(), "kmeans");
    settle(&mut app, finished);
    assert_eq!(app.view.result.as_ref().unwrap().best.trace[0].s, None);
    assert!(app.sliders().iter().all(|s| s.spec.name != "s0"));
}

#[test]
fn escape_cancels_and_help_toggles() {
    let mut app = start("iris", "power");
    settle(&mut app, |a| a.loaded().is_some());
    app.update(Action::Reseed);
    assert_eq!(app.seed, 1);
    app.update(Action::Cancel);
    assert_eq!(app.status, RunStatus::Cancelled);
    app.update(Action::ToggleHelp);
    assert!(app.help.open);
    // Keys go to the overlay while it is open.
    app.update(Action::Reseed);
    assert_eq!(app.seed, 1);
    app.update(Action::Cancel);
    assert!(!app.help.open);
    app.update(Action::Quit);
    assert!(app.quit);
}

#[test]
fn a_bad_file_is_reported_and_the_old_data_kept() {
    let mut app = start("iris", "kmeans");
    settle(&mut app, finished);
    app.update(Action::OpenFilePrompt);
    for c in "/no/such/file.csv".chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Activate);
    settle(&mut app, |a| a.loading.is_none());
    assert!(
        app.message.as_ref().unwrap().contains("no such file"),
        "{:?}",
        app.message
    );
    assert_eq!(app.loaded().unwrap().dataset.name, "iris");
}

#[test]
fn export_writes_files_and_asks_before_replacing() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("res");
    let mut app = start("wine", "kmeans");
    settle(&mut app, finished);
    let export = |app: &mut App| {
        app.update(Action::ExportPrompt);
        let p = app.prompt.as_mut().unwrap();
        p.text = base.display().to_string();
        app.update(Action::Activate);
    };
    export(&mut app);
    let labels = std::fs::read_to_string(dir.path().join("res.labels.csv")).unwrap();
    assert_eq!(labels.lines().count(), 179);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("res.json")).unwrap())
            .unwrap();
    assert_eq!(json["algorithm"], "kmeans");
    let msg = app.message.clone().unwrap();
    assert!(
        msg.contains("meanscape run --data wine --algo kmeans --k 3 --seed 0"),
        "{msg}"
    );
    // Again: now it asks, and "n" leaves the files alone.
    std::fs::write(dir.path().join("res.json"), "keep me").unwrap();
    export(&mut app);
    assert!(matches!(
        app.prompt.as_ref().unwrap().kind,
        PromptKind::ConfirmExport(_)
    ));
    app.update(Action::Input('n'));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("res.json")).unwrap(),
        "keep me"
    );
    export(&mut app);
    app.update(Action::Input('y'));
    assert!(
        std::fs::read_to_string(dir.path().join("res.json"))
            .unwrap()
            .contains("\"algorithm\"")
    );
}

#[test]
fn a_failing_run_shows_the_error_and_the_ui_goes_on() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    // k above n is refused by the engine, not by a panic.
    app.update(Action::Focus(Pane::Parameters));
    app.update(Action::Activate);
    for c in "150".chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Activate);
    settle(&mut app, finished);
    match &app.status {
        RunStatus::Error(e) => assert!(e.contains("distinct") || e.contains("empty"), "{e}"),
        RunStatus::Converged | RunStatus::Stopped => {}
        s => panic!("{s:?}"),
    }
    app.update(Action::Reseed);
    assert!(matches!(app.status, RunStatus::Pending(_)));
}

#[test]
fn snapshot_main_screen() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    insta::assert_snapshot!("main_120x40", screen(&mut app, 120, 40, COLOR));
}

#[test]
fn snapshot_help_overlay() {
    let mut app = start("iris", "kmeans");
    settle(&mut app, finished);
    app.update(Action::ToggleHelp);
    insta::assert_snapshot!("help_120x40", screen(&mut app, 120, 40, COLOR));
}

#[test]
fn snapshot_small_terminal_ascii() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    let s = screen(
        &mut app,
        80,
        24,
        Theme {
            color: false,
            ascii: true,
        },
    );
    let body: String = s
        .lines()
        .map(|l| l.trim_matches('"'))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(body.is_ascii(), "ASCII mode drew non-ASCII glyphs");
    insta::assert_snapshot!("compact_80x24_ascii", s);
}

#[test]
fn snapshot_error_state() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.status = RunStatus::Error(
        "k = 500 is out of range: must be in [1, 150] (the number of rows)".into(),
    );
    app.update(Action::Focus(Pane::Metrics));
    insta::assert_snapshot!("error_120x40", screen(&mut app, 120, 40, COLOR));
}

#[test]
fn every_size_renders_without_panicking() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    for (w, h) in [
        (1, 1),
        (20, 5),
        (40, 12),
        (60, 20),
        (80, 24),
        (100, 30),
        (200, 60),
    ] {
        for ascii in [false, true] {
            screen(
                &mut app,
                w,
                h,
                Theme {
                    color: !ascii,
                    ascii,
                },
            );
        }
    }
}

#[test]
fn prompt_keys_edit_the_text_and_control_keys_are_not_typed() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use meanscape::tui::keys::Context::Prompt;
    let mut app = start("iris", "kmeans");
    app.update(Action::OpenFilePrompt);
    let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
    let plain = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    for c in "data/sets/iris.csv".chars() {
        let action = meanscape::tui::key_action(plain(c), Prompt).unwrap();
        app.update(action);
    }
    assert_eq!(app.prompt.as_ref().unwrap().text, "data/sets/iris.csv");
    app.update(meanscape::tui::key_action(ctrl('w'), Prompt).unwrap());
    assert_eq!(app.prompt.as_ref().unwrap().text, "data/sets/");
    app.update(meanscape::tui::key_action(ctrl('w'), Prompt).unwrap());
    assert_eq!(app.prompt.as_ref().unwrap().text, "data/");
    assert!(meanscape::tui::key_action(ctrl('a'), Prompt).is_none());
    app.update(meanscape::tui::key_action(ctrl('u'), Prompt).unwrap());
    assert_eq!(app.prompt.as_ref().unwrap().text, "");
}

#[test]
fn k_from_the_command_line_survives_the_first_load_only() {
    let mut app = App::new(StartOptions {
        data: "iris".into(),
        algo: "kmeans".into(),
        k: Some(5),
        ..StartOptions::default()
    })
    .unwrap();
    settle(&mut app, finished);
    assert_eq!(app.k, Some(5));
    let fit = &app.view.result.as_ref().unwrap().best;
    assert_eq!(fit.labels.iter().max(), Some(&4), "the run used k = 5");
    // Another dataset starts from its own default k.
    app.update(Action::NextBundled);
    settle(&mut app, |a| {
        finished(a) && a.loaded().is_some_and(|l| l.dataset.name != "iris")
    });
    assert_eq!(app.k, None);
}

#[test]
fn long_work_shows_its_gauge_at_every_size() {
    let mut app = start("iris", "kmeans");
    settle(&mut app, finished);
    let label = "building kernel gaussian:sigma=22.627416997976223 (11000×11000)".to_string();
    app.view.stage = Some((label, 0.5));
    let wide = screen(&mut app, 120, 40, COLOR);
    assert!(wide.contains(" 50%"), "{wide}");
    // Compact: the Metrics pane is a hidden tab; the status line says it,
    // even over an older message.
    app.message = Some("loaded iris (150 × 4) in 0 ms".into());
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| {
        ui::render(f, &app, &COLOR);
    })
    .unwrap();
    let small = format!("{}", t.backend());
    assert!(small.contains("50% building kernel"), "{small}");
}

/// One pane, drawn alone into a `w` × `h` area.
fn pane(
    app: &App,
    w: u16,
    h: u16,
    theme: Theme,
    draw: impl Fn(&mut ratatui::Frame, ratatui::layout::Rect, &App, &Theme),
) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(f, f.area(), app, &theme)).unwrap();
    format!("{}", t.backend())
}

const PLAIN_ASCII: Theme = Theme {
    color: false,
    ascii: true,
};

fn slider(app: &App, name: &str) -> meanscape::tui::app::Slider {
    app.sliders()
        .into_iter()
        .find(|s| s.spec.name == name)
        .unwrap_or_else(|| panic!("no slider {name}"))
}

#[test]
fn objective_scales_to_a_short_run_after_a_long_one() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    let long = app.view.curve.len();
    // Faster annealing: the same start, far fewer iterations.
    type_value(&mut app, "eta", "2");
    settle(&mut app, finished);
    let short = app.view.curve.clone();
    assert!(
        short.len() * 5 < long,
        "{} then {} iterations",
        long,
        short.len()
    );
    let last = short.last().unwrap().iter;
    let wide = pane(&app, 60, 20, COLOR, meanscape::tui::ui::panes::objective);
    // The time axis ends at the short run's last iteration, not the long one's.
    assert!(wide.contains(&format!("{last} iter")), "{wide}");
    assert!(!wide.contains(&format!("{long} iter")), "{wide}");
    // Axis labels are values that occur: the short run's first objective.
    let first = meanscape::report::fmt_sig(short[0].objective);
    assert!(wide.contains(first.trim_end_matches('0')), "{wide}");
    let plain = pane(
        &app,
        60,
        20,
        PLAIN_ASCII,
        meanscape::tui::ui::panes::objective,
    );
    // Without colour the previous run is dots, the current one stars.
    assert!(plain.contains(". previous run"), "{plain}");
    insta::assert_snapshot!("objective_long_then_short", plain);
}

#[test]
fn compact_screen_keeps_state_score_tabs_and_scaling_in_view() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.view.elapsed = Duration::from_millis(250);
    // A message does not push the run's state off the screen.
    app.message = Some("loaded iris (150 × 4, scale standard) in 1 ms".into());
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| {
        ui::render(f, &app, &PLAIN_ASCII);
    })
    .unwrap();
    let s = format!("{}", t.backend());
    let status = s.lines().nth(22).unwrap();
    assert!(
        status.contains("converged") && status.contains("NMI 0.6"),
        "{s}"
    );
    assert!(s.contains("loaded iris"), "{s}");
    assert!(s.lines().next().unwrap().contains("Metrics"), "{s}");
    assert!(s.contains("scale standard"), "{s}");
    insta::assert_snapshot!("compact_80x24_state_and_score", s);
    // A note goes by itself; the summary stays.
    app.note("loaded iris");
    app.tick(Instant::now() + meanscape::tui::app::NOTE_TIME + Duration::from_secs(1));
    assert_eq!(app.message, None);
}

#[test]
fn algorithm_list_says_what_is_below() {
    let mut app = start("iris", "kmeans");
    settle(&mut app, |a| a.loaded().is_some());
    let n = app.algos.len();
    let s = pane(&app, 32, 6, COLOR, meanscape::tui::ui::panes::algorithm);
    assert!(s.contains(&format!("↓ {} more", n - 4)), "{s}");
    insta::assert_snapshot!("algorithm_scroll_hint", s);
    // At the end of the list the hint points up.
    app.update(Action::Focus(Pane::Algorithm));
    app.update(Action::Move(-1));
    let s = pane(&app, 32, 6, COLOR, meanscape::tui::ui::panes::algorithm);
    assert!(s.contains(&format!("↑ {} more", n - 4)), "{s}");
    // A large terminal lists all of them.
    let big = screen(&mut app, 120, 40, COLOR);
    for a in &app.algos {
        assert!(big.contains(a.id()), "{} missing:\n{big}", a.id());
    }
}

#[test]
fn derived_values_follow_the_data_unless_typed_for_it() {
    let mut app = start("iris", "lw");
    settle(&mut app, |a| a.loaded().is_some());
    assert_eq!(slider(&app, "lambda").auto, Some(0.25), "1/p on iris");
    type_value(&mut app, "lambda", "0.0005");
    type_value(&mut app, "beta", "6");
    app.update(Action::NextBundled);
    settle(&mut app, |a| {
        a.loading.is_none() && a.loaded().unwrap().dataset.name == "wine"
    });
    let lambda = slider(&app, "lambda");
    assert!(lambda.is_default, "λ typed for iris stays with iris");
    assert_eq!(lambda.value, 1.0 / 13.0);
    // β is not derived from the data: it stays.
    assert_eq!(slider(&app, "beta").value, 6.0);
    // Typed on wine, it is wine's.
    type_value(&mut app, "lambda", "0.002");
    for name in ["breast_cancer", "digits", "iris"] {
        app.update(Action::NextBundled);
        settle(&mut app, |a| {
            a.loading.is_none() && a.loaded().unwrap().dataset.name == name
        });
    }
    // Back on iris, the value typed for it returns.
    let lambda = slider(&app, "lambda");
    assert_eq!((lambda.value, lambda.is_default), (0.0005, false));
    app.update(Action::NextBundled);
    settle(&mut app, |a| {
        a.loading.is_none() && a.loaded().unwrap().dataset.name == "wine"
    });
    assert_eq!(slider(&app, "lambda").value, 0.002);
}

#[test]
fn reset_all_restores_every_default() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    type_value(&mut app, "k", "5");
    type_value(&mut app, "s0", "-4");
    type_value(&mut app, "restarts", "3");
    app.update(Action::Reseed);
    app.update(Action::CycleScaling);
    assert!(app.scale_chosen);
    settle(&mut app, |a| a.loading.is_none());
    app.update(Action::ResetAll);
    assert_eq!((app.k, app.seed, app.restarts), (None, 0, 1));
    assert!(app.overrides.is_empty());
    assert!(!app.scale_chosen);
    assert_eq!(app.scale, app.algo().default_scaling());
    assert!(app.sliders().iter().all(|s| s.is_default));
    assert!(app.message.as_ref().unwrap().contains("default"));
    settle(&mut app, finished);
    assert_eq!(app.loaded().unwrap().scale, app.algo().default_scaling());
    // The reset key is in the hints and the help.
    let s = screen(&mut app, 120, 40, COLOR);
    assert!(s.contains("R reset all"), "{s}");
    let help = meanscape::tui::keys::help_rows(meanscape::tui::keys::Context::Panes);
    assert!(help.iter().any(|(k, _)| k == "R"));
}

#[test]
fn scaling_follows_the_algorithm_until_chosen() {
    let mut app = start("iris", "power");
    settle(&mut app, |a| a.loaded().is_some());
    assert!(!app.scale_chosen);
    app.update(Action::Focus(Pane::Algorithm));
    for _ in 0..app.algos.len() {
        app.update(Action::Move(1));
        assert_eq!(
            app.scale,
            app.algo().default_scaling(),
            "{}",
            app.algo().id()
        );
    }
    settle(&mut app, |a| a.loading.is_none());
    assert_eq!(app.loaded().unwrap().scale, app.algo().default_scaling());
    // Chosen: z steps through standard, minmax, none, then back to following.
    app.update(Action::CycleScaling);
    app.update(Action::CycleScaling);
    assert_eq!(
        (app.scale_chosen, app.scale),
        (true, meanscape::data::Scaling::Minmax)
    );
    for _ in 0..app.algos.len() {
        app.update(Action::Move(1));
        assert_eq!(app.scale, meanscape::data::Scaling::Minmax);
    }
    settle(&mut app, |a| a.loading.is_none());
    let s = screen(&mut app, 120, 40, COLOR);
    assert!(s.contains("scale minmax (chosen"), "{s}");
    app.update(Action::CycleScaling);
    app.update(Action::CycleScaling);
    assert!(!app.scale_chosen);
    assert_eq!(app.scale, app.algo().default_scaling());
}

#[test]
fn weights_pane_says_nothing_about_a_run_that_has_not_produced_them() {
    let mut app = start("iris", "lw");
    settle(&mut app, |a| a.loaded().is_some());
    app.status = RunStatus::Running;
    app.view = Default::default();
    let s = pane(&app, 70, 8, COLOR, meanscape::tui::ui::panes::weights);
    assert!(!s.contains("equally"), "{s}");
    assert!(s.contains("first iteration"), "{s}");
    settle(&mut app, finished);
    let s = pane(&app, 40, 8, COLOR, meanscape::tui::ui::panes::weights);
    assert!(s.contains("of 4 features selected"), "{s}");
}

#[test]
fn ascii_mode_spells_greek_symbols_out() {
    let mut app = start("iris", "kpower");
    settle(&mut app, |a| a.loaded().is_some());
    // 43 rows: at 40 the whole algorithm list (16 entries) leaves
    // soft_tol, kpower's last slider, below the parameters pane.
    let s = screen(&mut app, 120, 43, PLAIN_ASCII);
    assert!(s.contains("sigma "), "{s}");
    assert!(s.contains("eta "), "{s}");
    assert!(s.contains("eps_w soft_tol"), "{s}");
    let unicode = screen(&mut app, 120, 43, COLOR);
    assert!(unicode.contains("σ sigma"), "{unicode}");
    assert!(unicode.contains("ε_w soft_tol"), "{unicode}");
}

#[test]
fn log_sliders_span_decades_around_the_automatic_value() {
    use meanscape::tui::panes::parameters::{position, window};
    let mut app = start("iris", "lw");
    settle(&mut app, |a| a.loaded().is_some());
    let mut s = slider(&app, "lambda");
    let auto = s.auto.unwrap();
    assert_eq!(window(&s), (auto / 1e3, auto * 1e3));
    assert!(
        (position(&s) - 0.5).abs() < 1e-9,
        "the default sits mid-bar"
    );
    s.value = auto * 10.0;
    let up = position(&s);
    assert!((up - 4.0 / 6.0).abs() < 1e-9, "a decade is a sixth: {up}");
    let bar = meanscape::tui::panes::parameters::slider_bar(&s, 13, &PLAIN_ASCII);
    assert_eq!(bar.chars().nth(6), Some('|'), "{bar}");
}

#[test]
fn cancelling_a_run_drops_what_it_built_and_a_new_run_keeps_it() {
    let mut app = App::new(StartOptions {
        data: "gen:blobs,n=4000,p=8,k=3".into(),
        algo: "rff-power".into(),
        given: vec![
            ("rff_dim".into(), 512.0),
            ("max_iter".into(), 100000.0),
            ("tol".into(), 0.0),
            ("init_iter".into(), 0.0),
        ],
        ..StartOptions::default()
    })
    .unwrap();
    let rff_keys = |app: &App| -> usize {
        let keys = app.loaded().unwrap().problem.cache_keys();
        keys.iter().filter(|k| k.starts_with("rff")).count()
    };
    let iterating = |a: &App| a.status == RunStatus::Running && a.view.curve.len() > 2;
    settle(&mut app, iterating);
    assert_eq!(rff_keys(&app), 1, "the feature map is cached while it runs");
    // A slider move cancels the run for another: the map stays for it.
    type_value(&mut app, "s0", "-2");
    settle(&mut app, iterating);
    assert_eq!(rff_keys(&app), 1);
    assert_eq!(app.view.curve[0].s, Some(-2.0), "the second run");
    app.update(Action::Cancel);
    assert_eq!(app.status, RunStatus::Cancelled);
    settle(&mut app, |a| rff_keys(a) == 0);
}

#[test]
fn export_names_the_full_paths_and_pairs_weights_with_features() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = start("iris", "wkmeans");
    settle(&mut app, finished);
    app.update(Action::ExportPrompt);
    app.prompt.as_mut().unwrap().text = dir.path().join("w").display().to_string();
    app.update(Action::Activate);
    let full = std::path::absolute(dir.path().join("w.json")).unwrap();
    let msg = app.message.clone().unwrap();
    assert!(msg.contains(&full.display().to_string()), "{msg}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&full).unwrap()).unwrap();
    // The same pairing as `meanscape run --json`: `features` holds each
    // weight with its feature's name, `feature_weights` the plain numbers.
    let w = json["features"].as_array().unwrap();
    let names = &app.loaded().unwrap().dataset.feature_names;
    assert_eq!(w.len(), names.len());
    let fit = &app.view.result.as_ref().unwrap().best;
    let weights = fit.feature_weights.as_ref().unwrap();
    for (j, entry) in w.iter().enumerate() {
        assert_eq!(entry["name"], names[j].as_str());
        assert_eq!(entry["weight"].as_f64(), Some(weights[j]));
        assert_eq!(json["feature_weights"][j].as_f64(), Some(weights[j]));
    }
}

#[test]
fn feature_names_are_not_cut_at_120x40() {
    let mut app = start("iris", "wkmeans");
    settle(&mut app, finished);
    let s = screen(&mut app, 120, 40, COLOR);
    for name in &app.loaded().unwrap().dataset.feature_names {
        assert!(s.contains(name.as_str()), "{name} cut:\n{s}");
    }
    assert!(s.contains("purity 0."), "{s}");
    // Nor a long state, nor s.
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    type_value(&mut app, "max_iter", "40");
    settle(&mut app, finished);
    assert_eq!(app.status, RunStatus::Stopped);
    let s = screen(&mut app, 120, 40, COLOR);
    let metrics: String = s
        .lines()
        .map(|l| l.chars().skip(95).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n");
    let s_now = meanscape::report::fmt_sig(app.view.curve.last().unwrap().s.unwrap());
    assert!(metrics.contains(&s_now), "{metrics}");
    let flat: String = metrics
        .replace(['│', '"'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(flat.contains("stopped at max_iter"), "{metrics}");
}

#[test]
fn a_parameters_whole_help_is_readable_at_both_sizes() {
    let mut app = start("iris", "lw");
    settle(&mut app, |a| a.loaded().is_some());
    let s = slider(&app, "lambda");
    let help = s.spec.help;
    let last_words: String = help
        .split_whitespace()
        .rev()
        .take(2)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join(" ");
    app.update(Action::Focus(Pane::Parameters));
    app.panes.parameters.cursor = app
        .sliders()
        .iter()
        .position(|x| x.spec.name == "lambda")
        .unwrap();
    // Enter opens the value prompt with the whole help under it.
    app.update(Action::Activate);
    for (w, h) in [(120, 40), (80, 24)] {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| {
            ui::render(f, &app, &COLOR);
        })
        .unwrap();
        let flat: String = format!("{}", t.backend())
            .lines()
            .map(|l| l.trim_matches('"').replace('│', " "))
            .collect::<Vec<_>>()
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            flat.contains(&last_words),
            "{w}x{h}: {last_words:?} not shown"
        );
        assert!(flat.contains("Set λ lambda"), "{w}x{h}");
    }
}

#[test]
fn export_never_replaces_the_idx_labels_file_the_data_came_with() {
    let dir = tempfile::tempdir().unwrap();
    let images = dir.path().join("x-images-idx3-ubyte");
    let labels = dir.path().join("x-labels-idx1-ubyte");
    let mut img = vec![0, 0, 8, 3, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0, 0, 2];
    img.extend([0, 1, 2, 3, 200, 201, 202, 203, 100, 90, 10, 240]);
    std::fs::write(&images, img).unwrap();
    let before = [0, 0, 8, 1, 0, 0, 0, 6, 0, 0, 1, 1, 0, 1];
    std::fs::write(&labels, before).unwrap();
    let mut app = start(&images.display().to_string(), "kmeans");
    settle(&mut app, finished);
    assert_eq!(app.status, RunStatus::Converged);
    // Export names end in `.labels.csv`, so reach the companion through a
    // hard link with such a name: the same file, which must stay untouched.
    app.update(Action::ExportPrompt);
    let base = dir.path().join("out");
    std::fs::hard_link(&labels, dir.path().join("out.labels.csv")).unwrap();
    app.prompt.as_mut().unwrap().text = base.display().to_string();
    app.update(Action::Activate);
    let msg = app.message.clone().unwrap_or_default();
    assert!(
        msg.contains("input"),
        "export over the companion was not refused: {msg}"
    );
    assert_eq!(std::fs::read(&labels).unwrap(), before);
}

#[test]
fn keys_follow_the_context_they_are_pressed_in() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let press = |app: &mut App, code: KeyCode| {
        let key = KeyEvent::new(code, KeyModifiers::NONE);
        if let Some(a) = meanscape::tui::key_action(key, app.context()) {
            app.update(a);
        }
    };
    let mut app = start("iris", "kmeans");
    press(&mut app, KeyCode::Char('?'));
    assert!(app.help.open);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Char('k'));
    assert_eq!(app.help.scroll, 1);
    // Keys of the panes do nothing under the help; q closes it.
    press(&mut app, KeyCode::Char('r'));
    assert_eq!(app.seed, 0);
    press(&mut app, KeyCode::Char('q'));
    assert!(!app.help.open && !app.quit);
    // In a prompt q is text.
    press(&mut app, KeyCode::Char('o'));
    press(&mut app, KeyCode::Char('q'));
    assert_eq!(app.prompt.as_ref().unwrap().text, "q");
    assert!(!app.quit);
    press(&mut app, KeyCode::Esc);
    assert!(app.prompt.is_none());
    press(&mut app, KeyCode::Char('r'));
    assert_eq!(app.seed, 1);
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}
