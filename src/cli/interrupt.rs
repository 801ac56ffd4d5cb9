//! Ctrl-C and SIGTERM for the commands that compute and write: the first
//! Ctrl-C cancels the solver through its [`Ctx`](crate::algo::Ctx) (the
//! command then ends with "cancelled", exit code 130) and removes any
//! temporary output file; a second Ctrl-C, or SIGTERM, removes it and ends
//! the process at once (128 + the signal), for work that does not watch the
//! flag (reading a file).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once, OnceLock};

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

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
                let now = sig == SIGTERM || count > 0;
                super::files::remove_in_flight(now.then_some(128 + sig));
            }
        });
    });
}
