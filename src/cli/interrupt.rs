//! Ctrl-C and SIGTERM for the commands that compute and write. While a
//! solver runs, the first Ctrl-C cancels it through its
//! [`Ctx`](crate::algo::Ctx): the command then ends with "cancelled", exit
//! code 130. Otherwise (reading a file, generating data, writing the
//! output, which do not watch the flag), and on a second Ctrl-C or on
//! SIGTERM, the process ends at once with 128 + the signal. Either way any
//! temporary output file is removed first.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once, OnceLock};

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
                super::files::remove_in_flight(now.then_some(128 + sig));
            }
        });
    });
}
