//! The settings that are not sliders (O): stepping and typing values,
//! refusals with the reason, the kernel kept across algorithms and shown,
//! σ marked unused, data options that reload; the list's frame.

mod tui_support;

use meanscape::algo::Init;
use meanscape::tui::app::controls::ui_words;
use meanscape::tui::app::{Action, App, PromptKind};
use meanscape::tui::keys::Context;
use tui_support::{ASCII, finished, screen, settle, start, type_text};

fn open_at(app: &mut App, name: &str) {
    app.update(Action::OpenControls);
    assert_eq!(app.context(), Context::Controls);
    let i = app
        .controls()
        .iter()
        .position(|c| c.name == name)
        .unwrap_or_else(|| panic!("no control {name}"));
    app.update(Action::Move(i as i32));
}

#[test]
fn the_kernel_steps_types_is_checked_and_stays_with_its_algorithm() {
    let mut app = start("iris", "kpower");
    settle(&mut app, finished);
    assert_eq!(app.kernel_shown(), Some(("gaussian".into(), true)));
    open_at(&mut app, "kernel");
    app.update(Action::Step {
        steps: 1,
        coarse: false,
    });
    assert_eq!(app.option_value("kernel").as_deref(), Some("laplacian"));
    // Typed: refused with the reason, the old value kept.
    app.update(Action::Activate);
    assert_eq!(
        app.prompt.as_ref().unwrap().kind,
        PromptKind::Control("kernel")
    );
    type_text(&mut app, "nope");
    app.update(Action::Activate);
    let hint = &app.prompt.as_ref().unwrap().hint;
    assert!(hint.contains("unknown kernel 'nope'"), "{hint}");
    assert_eq!(app.option_value("kernel").as_deref(), Some("laplacian"));
    type_text(&mut app, "linear");
    app.update(Action::Activate);
    assert!(app.prompt.is_none());
    // σ means nothing to the linear kernel: said in the pane's title.
    assert_eq!(app.kernel_shown(), Some(("linear".into(), false)));
    app.update(Action::Cancel);
    assert_eq!(app.context(), Context::Panes);
    settle(&mut app, finished);
    assert_eq!(
        app.view
            .config
            .as_ref()
            .unwrap()
            .1
            .options
            .get("kernel")
            .map(String::as_str),
        Some("linear")
    );
    let s = screen(&mut app, 120, 40, ASCII);
    assert!(s.contains("kernel linear (sigma unused)"), "{s}");
    // Away to power (which takes no kernel) and back: the kernel stays.
    let to = |app: &mut App, id: &str| {
        let i = app.algos.iter().position(|a| a.id() == id).unwrap();
        app.update(Action::Focus(meanscape::tui::app::Pane::Algorithm));
        app.update(Action::Move(i as i32 - app.panes.algorithm.cursor as i32));
    };
    to(&mut app, "power");
    settle(&mut app, finished);
    assert!(app.kernel_shown().is_none());
    assert_eq!(app.status, meanscape::tui::app::RunStatus::Converged);
    to(&mut app, "kpower");
    assert_eq!(app.option_value("kernel").as_deref(), Some("linear"));
}

#[test]
fn init_label_and_missing_controls() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    open_at(&mut app, "init");
    app.update(Action::Step {
        steps: 1,
        coarse: false,
    });
    assert_eq!(app.init, Init::Random);
    // A label choice reloads the data without its labels.
    let i = app
        .controls()
        .iter()
        .position(|c| c.name == "label")
        .unwrap();
    app.controls_view.cursor = i;
    app.update(Action::Activate);
    type_text(&mut app, "none");
    app.update(Action::Activate);
    app.update(Action::Cancel);
    settle(&mut app, |a| {
        finished(a) && a.loaded().is_some_and(|l| l.dataset.labels.is_none())
    });
    assert!(app.view.scores.is_none());
    let i = app
        .controls()
        .iter()
        .position(|c| c.name == "missing")
        .unwrap();
    app.update(Action::OpenControls);
    app.controls_view.cursor = i;
    app.update(Action::Activate);
    type_text(&mut app, "sometimes");
    app.update(Action::Activate);
    let hint = &app.prompt.as_ref().unwrap().hint;
    assert!(hint.contains("error, mean or drop"), "{hint}");
}

#[test]
fn advice_naming_a_flag_names_the_control_too() {
    assert_eq!(
        ui_words("give --kernels a list or --kernel a spec"),
        "give --kernels (in the UI: O → kernels) a list or --kernel (in the UI: O → kernel) a spec"
    );
    assert_eq!(ui_words("nothing to say"), "nothing to say");
}

#[test]
fn controls_frame() {
    let mut app = start("iris", "kpower");
    settle(&mut app, finished);
    app.update(Action::OpenControls);
    insta::assert_snapshot!("controls_120x40_ascii", screen(&mut app, 120, 40, ASCII));
    insta::assert_snapshot!("controls_80x24_ascii", screen(&mut app, 80, 24, ASCII));
}

/// A run read with another label column is recorded with it: its command
/// carries `--label`, and Enter in the History reads the data that way
/// again.
#[test]
fn the_history_keeps_how_the_data_was_read() {
    let mut app = start("iris", "power");
    settle(&mut app, finished);
    app.set_control("label", "none").unwrap();
    settle(&mut app, |a| {
        finished(a) && a.loaded().is_some_and(|l| l.dataset.labels.is_none())
    });
    settle(&mut app, |a| a.history.entries.len() == 2);
    let e = app.history.entries.last().unwrap().clone();
    assert_eq!(e.load.get("label").map(String::as_str), Some("none"));
    assert!(e.command.contains("--label none"), "{}", e.command);
    // Back to the labels, then the unlabelled run restored.
    app.set_control("label", "auto").unwrap();
    settle(&mut app, |a| {
        finished(a) && a.loaded().is_some_and(|l| l.dataset.labels.is_some())
    });
    app.update(Action::Focus(meanscape::tui::app::Pane::History));
    app.update(Action::Move(-10));
    for _ in 0..app.history.entries.len() {
        if app.history.selected_entry().is_some_and(|s| s.id == e.id) {
            break;
        }
        app.update(Action::Move(1));
    }
    assert_eq!(app.history.selected_entry().map(|s| s.id), Some(e.id));
    app.update(Action::Activate);
    settle(&mut app, |a| {
        finished(a) && a.loaded().is_some_and(|l| l.dataset.labels.is_none())
    });
    assert_eq!(app.load_opts.label, meanscape::data::LabelChoice::None);
}
