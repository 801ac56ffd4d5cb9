//! The terminal UI. `App` (state, `update(action)`) is apart from the
//! drawing (`ui`, one file per pane) and from the key map (`keys`); this
//! module owns the terminal and the event loop.

pub mod app;
pub mod components;
pub mod keys;
pub mod latency;
pub mod panes;
#[cfg(unix)]
pub mod supervise;
pub mod terminal;
pub mod ui;

pub use app::{export, projection, prompt, worker};
pub use panes::theme;

use crate::error::Error;
use crate::session::UiOptions;
use app::App;
use crossterm::event::{self, Event as TermEvent};
use std::io::Write;
use std::time::{Duration, Instant};
use theme::Theme;

pub use keys::{key_action, mouse_action};

/// Frames per second while something moves; idle frames are cheaper.
const FRAME: Duration = Duration::from_millis(33);

/// The UI with the options the command line built (`meanscape [tui] …`):
/// the CLI hands them over, so that the CLI does not depend on the UI.
///
/// # Errors
/// [`Error::Param`] when stdout is not a terminal, and what [`run`] fails
/// with.
pub fn start(opts: UiOptions) -> crate::Result<()> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return Err(Error::param(
            "the terminal UI needs a terminal; use `meanscape run` for scripts (see --help)",
        ));
    }
    // The UI proper runs in a child process, which the supervisor (this
    // one) waits for: see `supervise`.
    #[cfg(unix)]
    if !supervise::is_child()
        && let Some(code) = supervise::run_child()
    {
        let _ = std::io::stdout().flush();
        std::process::exit(code);
    }
    run(opts)
}

/// Runs the UI until the user quits. The terminal is restored on every
/// exit, a panic included (an abort is the supervisor's to handle).
pub fn run(opts: UiOptions) -> crate::Result<()> {
    let mut app = App::new(opts.start)?;
    let theme = Theme::from_env(opts.ascii);
    let mut log = None;
    let mut log_note = None;
    match latency::Log::from_env() {
        Some(Ok(l)) => log = Some(l),
        Some(Err(why)) => {
            app.tell(why.clone());
            log_note = Some(why);
        }
        None => {}
    }
    terminal::install_panic_hook();
    let screen = terminal::Screen::take().map_err(|e| crate::Error::io("terminal", e))?;
    let result = event_loop(&mut app, &theme, log.as_mut());
    drop(screen);
    let _ = std::io::stdout().flush();
    // Said where it outlives the screen: the session could not be saved,
    // the latency log was refused.
    for note in [&app.exit_note, &log_note].into_iter().flatten() {
        eprintln!("meanscape: {note}");
    }
    result
}

fn event_loop(
    app: &mut App,
    theme: &Theme,
    mut latency_log: Option<&mut latency::Log>,
) -> crate::Result<()> {
    let backend = ratatui::backend::CrosstermBackend::new(std::io::stdout());
    let mut terminal =
        ratatui::Terminal::new(backend).map_err(|e| crate::Error::io("terminal", e))?;
    let mut hits = ui::HitMap::default();
    let mut pending_key: Option<Instant> = None;
    while !app.quit {
        app.tick(Instant::now());
        terminal
            .draw(|f| hits = ui::render(f, app, theme))
            .map_err(|e| crate::Error::io("terminal", e))?;
        if let (Some(t0), Some(log)) = (pending_key.take(), latency_log.as_deref_mut()) {
            log.record(t0.elapsed().as_secs_f64() * 1e3);
        }
        if !event::poll(FRAME).map_err(|e| crate::Error::io("terminal", e))? {
            continue;
        }
        // Handle everything that is queued before drawing again.
        loop {
            let ev = event::read().map_err(|e| crate::Error::io("terminal", e))?;
            let action = match ev {
                TermEvent::Key(k) => {
                    pending_key.get_or_insert_with(Instant::now);
                    key_action(k, app.context())
                }
                TermEvent::Mouse(m) => mouse_action(m, app.context(), &hits),
                _ => None,
            };
            if let Some(a) = action {
                app.update(a);
            }
            if !event::poll(Duration::ZERO).map_err(|e| crate::Error::io("terminal", e))? {
                break;
            }
        }
    }
    Ok(())
}
