//! What the UI tests share: an app on a dataset, ticking it until a
//! condition holds, and a deterministic frame.

#![allow(dead_code)]

pub mod tmux;

use meanscape::tui::app::{Action, App, Pane, RunStatus, StartOptions};
use meanscape::tui::theme::Theme;
use meanscape::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::{Duration, Instant};

pub fn start(data: &str, algo: &str) -> App {
    App::new(StartOptions {
        data: data.into(),
        algo: algo.into(),
        ..StartOptions::default()
    })
    .unwrap()
}

/// Ticks (with the debounce already passed) until `done` holds.
pub fn settle(app: &mut App, done: impl Fn(&App) -> bool) {
    let t0 = Instant::now();
    while !done(app) {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "timed out; status {:?}",
            app.status
        );
        app.tick(Instant::now() + Duration::from_secs(1));
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Replaces the open prompt's text with `text`, typed key by key.
pub fn type_text(app: &mut App, text: &str) {
    app.update(meanscape::tui::app::Action::ClearInput);
    for c in text.chars() {
        app.update(meanscape::tui::app::Action::Input(c));
    }
}

pub fn finished(app: &App) -> bool {
    app.loaded().is_some()
        && app.loading.is_none()
        && matches!(
            app.status,
            RunStatus::Converged | RunStatus::Stopped | RunStatus::Error(_)
        )
}

/// A deterministic frame: no wall-clock text.
pub fn screen(app: &mut App, w: u16, h: u16, theme: Theme) -> String {
    app.view.elapsed = Duration::from_millis(250);
    if let Some(s) = app.sweep.last.as_mut() {
        s.elapsed = Duration::from_millis(1500);
    }
    for e in app.history.entries.iter_mut() {
        e.elapsed_ms = 10.0 * e.id as f64;
    }
    app.message = None;
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| {
        ui::render(f, app, &theme);
    })
    .unwrap();
    format!("{}", t.backend())
}

pub const COLOR: Theme = Theme {
    color: true,
    ascii: false,
};

pub const ASCII: Theme = Theme {
    color: false,
    ascii: true,
};

/// No colour, Unicode glyphs (NO_COLOR).
pub const PLAIN: Theme = Theme {
    color: false,
    ascii: false,
};

/// Types `text` into the value prompt of slider `name` and accepts it.
pub fn type_value(app: &mut App, name: &str, text: &str) {
    app.update(Action::Focus(Pane::Parameters));
    let i = app
        .sliders()
        .iter()
        .position(|s| s.spec.name == name)
        .unwrap_or_else(|| panic!("no slider {name}"));
    app.panes.parameters.cursor = i;
    app.update(Action::Activate);
    for c in text.chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Activate);
    assert!(app.prompt.is_none(), "{name} = {text} was refused");
}
