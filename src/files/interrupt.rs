//! Ctrl-C and SIGTERM for the commands that compute and write. While a
//! solver runs, the first Ctrl-C cancels it through its
//! [`Ctx`](crate::algo::Ctx): the command then ends with "cancelled", exit
//! code 130. Otherwise (reading a file, generating data, writing the
//! output, which do not watch the flag), and on a second Ctrl-C or on
//! SIGTERM, the process ends at once with 128 + the signal. Either way any
//! temporary output file being written (`files::write_atomic` registers
//! them in `in_flight`) is removed first.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once, OnceLock};

/// Temporaries being written. Created, renamed and removed under this lock,
/// so an interrupt either removes a temporary or finds it already renamed.
static IN_FLIGHT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

pub(crate) fn in_flight() -> MutexGuard<'static, Vec<PathBuf>> {
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes every temporary being written; with `exit`, ends the process
/// with that code while still holding the lock, so no new one can appear.
fn remove_in_flight(exit: Option<i32>) {
    let mut list = in_flight();
    for p in list.drain(..) {
        let _ = std::fs::remove_file(p);
    }
    if let Some(code) = exit {
        eprintln!("meanscape: cancelled");
        std::process::exit(code);
    }
}

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
/// Whether a solver is watching [`FLAG`] now.
static WATCHED: AtomicBool = AtomicBool::new(false);

/// Marks a solver as watching the flag until dropped.
pub struct Watch(());

impl Watch {
    pub fn start() -> Self {
        WATCHED.store(true, Ordering::SeqCst);
        Watch(())
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        WATCHED.store(false, Ordering::SeqCst);
    }
}

/// The cancellation flag the solver watches (set by the handler).
pub fn flag() -> Arc<AtomicBool> {
    FLAG.get_or_init(Default::default).clone()
}

/// Whether an interrupt asked the command to stop.
pub fn requested() -> bool {
    FLAG.get().is_some_and(|f| f.load(Ordering::SeqCst))
}

/// Installs the handler once. Without it (a platform that refuses), the
/// default action of the signals stays in force.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return;
        };
        let flag = flag();
        std::thread::spawn(move || {
            for (count, sig) in signals.forever().enumerate() {
                flag.store(true, Ordering::SeqCst);
                let now = sig == SIGTERM || count > 0 || !WATCHED.load(Ordering::SeqCst);
                remove_in_flight(now.then_some(128 + sig));
            }
        });
    });
}

/// Forgets an interrupt the command has handled (a sweep that returns its
/// finished cells and still writes them).
pub fn clear() {
    if let Some(f) = FLAG.get() {
        f.store(false, Ordering::SeqCst);
    }
}
