//! The terminal UI. `App` (state, `update(action)`) is apart from the
//! drawing (`ui`, one file per pane); this module owns the terminal and the
//! event loop.

pub mod app;
pub mod export;
pub mod panes;
pub mod projection;
pub mod prompt;
pub mod theme;
pub mod ui;
pub mod worker;

use app::{Action, App, Pane, StartOptions};
use crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event as TermEvent, KeyCode, KeyEvent,
    KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use std::io::Write;
use std::time::{Duration, Instant};
use theme::Theme;

/// Frames per second while something moves; idle frames are cheaper.
const FRAME: Duration = Duration::from_millis(33);

/// Maps a key to an action, given whether a prompt is open.
pub fn key_action(key: KeyEvent, prompt_open: bool) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    if ctrl && matches!(key.code, KeyCode::Char('c')) {
        return Some(Action::Quit);
    }
    if prompt_open {
        return match key.code {
            KeyCode::Enter => Some(Action::Activate),
            KeyCode::Esc => Some(Action::Cancel),
            KeyCode::Backspace => Some(Action::Backspace),
            KeyCode::Tab => Some(Action::Complete),
            KeyCode::Char('u') if ctrl => Some(Action::ClearInput),
            KeyCode::Char('w') if ctrl => Some(Action::DeleteWord),
            KeyCode::Char(_) if ctrl => None,
            KeyCode::Char(c) => Some(Action::Input(c)),
            _ => None,
        };
    }
    Some(match key.code {
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Char('?') | KeyCode::F(1) => Action::ToggleHelp,
        KeyCode::Tab => Action::NextPane,
        KeyCode::BackTab => Action::PrevPane,
        KeyCode::Up | KeyCode::Char('k') => Action::Move(-1),
        KeyCode::Down | KeyCode::Char('j') => Action::Move(1),
        KeyCode::Left | KeyCode::Char('h') => Action::Step {
            steps: -1,
            coarse: shift,
        },
        KeyCode::Right | KeyCode::Char('l') => Action::Step {
            steps: 1,
            coarse: shift,
        },
        KeyCode::Char('H') => Action::Step {
            steps: -1,
            coarse: true,
        },
        KeyCode::Char('L') => Action::Step {
            steps: 1,
            coarse: true,
        },
        KeyCode::PageDown => Action::Step {
            steps: -1,
            coarse: true,
        },
        KeyCode::PageUp => Action::Step {
            steps: 1,
            coarse: true,
        },
        KeyCode::Enter => Action::Activate,
        KeyCode::Esc => Action::Cancel,
        KeyCode::Char('r') => Action::Reseed,
        KeyCode::Char('R') => Action::ResetAll,
        KeyCode::Char('o') => Action::OpenFilePrompt,
        KeyCode::Char('d') => Action::NextBundled,
        KeyCode::Char('z') => Action::CycleScaling,
        KeyCode::Char('e') => Action::ExportPrompt,
        KeyCode::Char('s') => Action::ToggleScatterMode,
        KeyCode::Char('x') => Action::ScatterFeature(0),
        KeyCode::Char('y') => Action::ScatterFeature(1),
        KeyCode::Char('p') => Action::TogglePath,
        KeyCode::Char(c @ '1'..='8') => Action::Focus(Pane::ALL[(c as u8 - b'1') as usize]),
        _ => return None,
    })
}

/// Maps a mouse event to an action, using where the panes were drawn.
pub fn mouse_action(m: MouseEvent, hits: &ui::HitMap) -> Option<Action> {
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) => hits.pane_at(m.column, m.row).map(Action::Focus),
        MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
            let steps = if m.kind == MouseEventKind::ScrollUp {
                1
            } else {
                -1
            };
            if let Some(index) = hits.slider_at(m.column, m.row) {
                Some(Action::StepParam { index, steps })
            } else if hits.pane_at(m.column, m.row) == Some(Pane::Algorithm) {
                Some(Action::Move(-steps))
            } else {
                None
            }
        }
        _ => None,
    }
}

fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(std::io::stdout(), DisableMouseCapture, LeaveAlternateScreen);
    let _ = execute!(std::io::stdout(), crossterm::cursor::Show);
}

/// Restores the terminal when the UI thread panics, then reports the
/// panic as usual. Panics on solver threads are caught there and shown
/// in the Metrics pane; they must not tear down the screen.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some("main") {
            restore_terminal();
            previous(info);
        }
    }));
}

pub struct UiOptions {
    pub start: StartOptions,
    pub ascii: bool,
}

/// Runs the UI until the user quits. The terminal is restored on every exit.
pub fn run(opts: UiOptions) -> crate::Result<()> {
    let mut app = App::new(opts.start)?;
    let theme = Theme::from_env(opts.ascii);
    install_panic_hook();
    enable_raw_mode().map_err(|e| crate::Error::io("terminal", e))?;
    let mut stdout = std::io::stdout();
    if let Err(e) = execute!(stdout, EnterAlternateScreen, EnableMouseCapture) {
        restore_terminal();
        return Err(crate::Error::io("terminal", e));
    }
    let result = event_loop(&mut app, &theme);
    restore_terminal();
    let _ = stdout.flush();
    result
}

fn event_loop(app: &mut App, theme: &Theme) -> crate::Result<()> {
    let backend = ratatui::backend::CrosstermBackend::new(std::io::stdout());
    let mut terminal =
        ratatui::Terminal::new(backend).map_err(|e| crate::Error::io("terminal", e))?;
    let latency_log = std::env::var_os("MEANSCAPE_LATENCY_LOG").map(std::path::PathBuf::from);
    let mut hits = ui::HitMap::default();
    let mut pending_key: Option<Instant> = None;
    while !app.quit {
        app.tick(Instant::now());
        terminal
            .draw(|f| hits = ui::render(f, app, theme))
            .map_err(|e| crate::Error::io("terminal", e))?;
        if let (Some(t0), Some(path)) = (pending_key.take(), &latency_log) {
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                let _ = writeln!(f, "{ms:.3}");
            }
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
                    key_action(k, app.prompt.is_some())
                }
                TermEvent::Mouse(m) => mouse_action(m, &hits),
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
