//! The terminal's state while the UI runs, and putting it back: on every
//! return (a guard), on a panic (a hook), and, for what no code of the UI
//! process can catch (an abort, a signal), from the supervisor
//! (`supervise.rs`).

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The screen back to the main one, the mouse released, the cursor shown,
/// and only then raw mode off: a terminal in cooked mode never shows the
/// UI's screen (the supervisor relies on that).
pub fn restore() {
    let mut out = std::io::stdout();
    let _ = execute!(out, DisableMouseCapture, LeaveAlternateScreen);
    let _ = execute!(out, crossterm::cursor::Show);
    let _ = disable_raw_mode();
}

/// The terminal taken over by the UI (raw mode, alternate screen, mouse)
/// until dropped, however the function holding it ends: a return, an
/// error, or a panic unwinding through it.
pub struct Screen(());

impl Screen {
    /// # Errors
    /// The terminal refused; it is as it was.
    pub fn take() -> std::io::Result<Screen> {
        enable_raw_mode()?;
        let screen = Screen(());
        execute!(std::io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
        Ok(screen)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        restore();
    }
}

thread_local! {
    /// This thread catches its own panics and reports them in the UI.
    static CONTAINED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` catching a panic, on a thread whose panic the UI reports as
/// an error (a solver run, a load): the hook leaves the terminal alone.
pub fn contained<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    CONTAINED.set(true);
    let r = catch_unwind(AssertUnwindSafe(f));
    CONTAINED.set(false);
    r.map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown".into())
    })
}

/// Restores the terminal before a panic is reported, on every thread that
/// can take the UI down: the UI's own, and any thread not known to catch
/// its panics. Those that do catch them (a job's thread, see
/// [`contained`]) and rayon's workers (their panic goes on in the thread
/// waiting for them) are left to that. A panic on a thread other than the
/// UI's ends the process (code 101, as a panic of the UI's): the UI could
/// not go on drawing on a restored terminal.
pub fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if CONTAINED.get() || rayon::current_thread_index().is_some() {
            return;
        }
        restore();
        previous(info);
        if std::thread::current().name() != Some("main") {
            std::process::exit(101);
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contained_panic_comes_back_as_its_message() {
        let r: Result<(), String> = contained(|| panic!("bad input at {}", 7));
        assert_eq!(r.unwrap_err(), "bad input at 7");
        assert!(!CONTAINED.get(), "the mark ends with the call");
        assert_eq!(contained(|| 5), Ok(5));
    }
}
