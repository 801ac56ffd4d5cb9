//! The UI runs in a child process of its own, so that nothing it does
//! can leave the terminal raw. A panic is handled inside (see
//! `terminal.rs`), but an abort (a failed allocation, a stack overflow, a
//! bug in a C library) or a fatal signal ends a process before any of its
//! code runs.
//!
//! So `meanscape` (here: the supervisor) starts the same program again,
//! with the same arguments and `MEANSCAPE_UI_SUPERVISOR=<its pid>`; that
//! child runs the UI, and the supervisor only waits. When the child ends
//! on its own, the supervisor exits with its code and has written
//! nothing: exit codes and messages are the UI's. When it ends otherwise
//! (a signal, or a panic's exit code 101), the supervisor puts the
//! terminal back as it found it (its modes as they were before the UI
//! started, the main screen, the cursor, no mouse reporting), says so in
//! one line, and exits non-zero.
//!
//! What the child writes on stderr is held by the supervisor until the
//! child ends, then written out: a message printed while the UI's screen
//! is up (the runtime's "memory allocation … failed" before an abort)
//! would otherwise vanish with that screen.
//!
//! Signals: Ctrl-C and Ctrl-\ reach the whole foreground process group,
//! the child too, so the supervisor ignores them and lets the child
//! decide; SIGTERM and SIGHUP sent to the supervisor alone (`kill`, a
//! closing terminal) are passed on to the child. A child ended by one of
//! those four signals ends the supervisor by the same signal, after the
//! terminal is restored, so the shell sees what it would have without a
//! supervisor.
//!
//! The marker names the supervisor's pid and is honoured only by a
//! process whose parent has that pid: a stray `MEANSCAPE_UI_SUPERVISOR`
//! in the environment does nothing.

use crossterm::event::DisableMouseCapture;
use crossterm::execute;
use crossterm::terminal::LeaveAlternateScreen;
use signal_hook::consts::{SIGHUP, SIGINT, SIGKILL, SIGQUIT, SIGTERM};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::Command;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// The environment variable that makes a process the UI of a supervisor.
pub const MARK: &str = "MEANSCAPE_UI_SUPERVISOR";

/// Exit codes of a UI that ended on its own (success, an error, a usage
/// error, cancelled); any other is abnormal, 101 (a panic) among them.
const NORMAL: [i32; 4] = [0, 1, 2, 130];

/// Signals a user or the system sends on purpose: the supervisor ends by
/// them too, as the program would have without it, and says nothing.
const DELIBERATE: [i32; 4] = [SIGINT, SIGQUIT, SIGTERM, SIGHUP];

/// The child's pid while it runs, 0 otherwise.
static CHILD: AtomicI32 = AtomicI32::new(0);

/// Whether this process is the UI under a supervisor.
pub fn is_child() -> bool {
    std::env::var(MARK)
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .is_some_and(|p| p == std::os::unix::process::parent_id())
}

/// Runs the UI in a child process and returns the code to exit with; the
/// child's code, or the supervisor's own after a crash (then the terminal
/// was restored and the user told). A child ended by a deliberate signal
/// ends this process by it. None: no child could be started; the caller
/// runs the UI itself.
pub fn run_child() -> Option<i32> {
    let tty = Tty::open();
    let signals = signal_hook::iterator::Signals::new(DELIBERATE).ok()?;
    std::thread::Builder::new()
        .name("meanscape-signals".into())
        .spawn(move || pass_on(signals))
        .ok()?;
    // This very program, even when its file was replaced or removed since
    // it started (an upgrade).
    let exe = if std::path::Path::new("/proc/self/exe").exists() {
        "/proc/self/exe".into()
    } else {
        std::env::current_exe().ok()?
    };
    let mut args = std::env::args_os();
    let mut cmd = Command::new(exe);
    if let Some(arg0) = args.next() {
        cmd.arg0(arg0);
    }
    // Should the supervisor be killed outright (SIGKILL, which it cannot
    // pass on), the UI ends too rather than linger in the background of
    // a shell that has taken the terminal back.
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe and touches no memory of ours.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGHUP);
            Ok(())
        });
    }
    cmd.args(args).env(MARK, std::process::id().to_string());
    let held = Held::start().map(|(held, to)| {
        cmd.stderr(to);
        held
    });
    let spawned = cmd.spawn();
    // The pipe's writing end is the child's alone now: its end of stream
    // is the child's.
    drop(cmd);
    let mut child = spawned.ok()?;
    CHILD.store(child.id() as i32, Ordering::SeqCst);
    let status = child.wait();
    CHILD.store(0, Ordering::SeqCst);
    let said = held.map(|h| h.finish()).unwrap_or_default();
    let status = match status {
        Ok(s) => s,
        Err(e) => {
            tty.restore();
            write_stderr(&said);
            eprintln!("meanscape: lost track of the UI ({e}); the terminal was restored");
            return Some(1);
        }
    };
    let abnormal = status.signal().is_some() || !NORMAL.contains(&status.code().unwrap_or(1));
    // The terminal first, so that what the child said is on the main
    // screen.
    if abnormal {
        tty.restore();
    }
    write_stderr(&said);
    if let Some(sig) = status.signal() {
        if DELIBERATE.contains(&sig) {
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            return Some(128 + sig);
        }
        let name = signal_hook::low_level::signal_name(sig)
            .map_or_else(|| format!("signal {sig}"), str::to_string);
        let why = if sig == SIGKILL {
            format!("{name}: killed, often by the system when memory runs out")
        } else {
            name
        };
        eprintln!("meanscape: the UI stopped unexpectedly ({why}); the terminal was restored");
        return Some(128 + sig);
    }
    let code = status.code().unwrap_or(1);
    if abnormal {
        let what = if code == 101 { "a panic, " } else { "" };
        eprintln!(
            "meanscape: the UI stopped unexpectedly ({what}exit code {code}); the terminal was restored"
        );
    }
    Some(code)
}

/// The most of the child's stderr held (its end, which says why it
/// stopped); a UI writes a few lines.
const HELD_BYTES: usize = 256 << 10;

/// The child's stderr, read on a thread as it comes (the child never
/// waits on a full pipe) and kept until [`Held::finish`].
struct Held {
    text: Arc<Mutex<(Vec<u8>, usize)>>,
    done: mpsc::Receiver<()>,
}

impl Held {
    /// A pipe for the child's stderr and the thread that reads it; None
    /// when either cannot be made (the child then writes to the terminal).
    fn start() -> Option<(Held, std::io::PipeWriter)> {
        let (mut from, to) = std::io::pipe().ok()?;
        let text = Arc::new(Mutex::new((Vec::new(), 0usize)));
        let (tx, done) = mpsc::channel();
        let kept = text.clone();
        std::thread::Builder::new()
            .name("meanscape-stderr".into())
            .spawn(move || {
                let mut buf = vec![0; 8192];
                loop {
                    match from.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            let mut k = kept.lock().unwrap_or_else(|e| e.into_inner());
                            k.0.extend_from_slice(&buf[..n]);
                            if k.0.len() > HELD_BYTES {
                                let extra = k.0.len() - HELD_BYTES;
                                k.0.drain(..extra);
                                k.1 += extra;
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
                let _ = tx.send(());
            })
            .ok()?;
        Some((Held { text, done }, to))
    }

    /// What the child wrote (its last [`HELD_BYTES`]), once the stream has
    /// ended, or a second after the child did (something it started may
    /// hold the pipe open).
    fn finish(self) -> Vec<u8> {
        let _ = self.done.recv_timeout(Duration::from_secs(1));
        let k = self.text.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        if k.1 > 0 {
            out = format!("meanscape: ({} bytes of messages left out)\n", k.1).into_bytes();
        }
        out.extend_from_slice(&k.0);
        out
    }
}

fn write_stderr(bytes: &[u8]) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(bytes);
    let _ = err.flush();
}

/// Ignores Ctrl-C and Ctrl-\ while the child runs (it got them too) and
/// passes SIGTERM and SIGHUP on. With no child (before it starts, after
/// it ends), every signal has its default effect.
fn pass_on(mut signals: signal_hook::iterator::Signals) {
    for sig in signals.forever() {
        let child = CHILD.load(Ordering::SeqCst);
        if child == 0 {
            let _ = signal_hook::low_level::emulate_default_handler(sig);
        } else if sig == SIGTERM || sig == SIGHUP {
            // SAFETY: kill has no memory effects.
            unsafe {
                libc::kill(child, sig);
            }
        }
    }
}

/// The terminal as it was before the UI started.
struct Tty {
    /// Where the UI sets its modes: standard input when it is a terminal,
    /// else /dev/tty (as crossterm picks it).
    fd: RawFd,
    _owned: Option<File>,
    saved: Option<libc::termios>,
}

impl Tty {
    fn open() -> Tty {
        // SAFETY: isatty and tcgetattr only read the descriptor's state.
        let (fd, owned) = if unsafe { libc::isatty(libc::STDIN_FILENO) } == 1 {
            (libc::STDIN_FILENO, None)
        } else {
            match std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/tty")
            {
                Ok(f) => (f.as_raw_fd(), Some(f)),
                Err(_) => (-1, None),
            }
        };
        let saved = (fd >= 0)
            .then(|| {
                let mut t = std::mem::MaybeUninit::<libc::termios>::uninit();
                // SAFETY: tcgetattr fills `t` when it returns 0.
                (unsafe { libc::tcgetattr(fd, t.as_mut_ptr()) } == 0)
                    .then(|| unsafe { t.assume_init() })
            })
            .flatten();
        Tty {
            fd,
            _owned: owned,
            saved,
        }
    }

    /// Whether the modes differ from the saved ones: the UI left the
    /// terminal raw, so its screen is still up. Unknown counts as raw.
    fn raw_now(&self) -> bool {
        let Some(saved) = &self.saved else {
            return true;
        };
        let mut t = std::mem::MaybeUninit::<libc::termios>::uninit();
        // SAFETY: as in `open`.
        if unsafe { libc::tcgetattr(self.fd, t.as_mut_ptr()) } != 0 {
            return true;
        }
        let now = unsafe { t.assume_init() };
        (now.c_iflag, now.c_oflag, now.c_cflag, now.c_lflag)
            != (saved.c_iflag, saved.c_oflag, saved.c_cflag, saved.c_lflag)
    }

    /// The main screen back (when the UI's is still up), no mouse
    /// reporting, the cursor shown, then the saved modes; input typed
    /// into the dead UI (keys, mouse reports) is dropped rather than
    /// handed to the shell.
    fn restore(&self) {
        let mut out = std::io::stdout();
        // Leaving the alternate screen when it is not up moves the cursor
        // on some terminals; cooked modes mean the UI had left it (it
        // leaves it before turning raw mode off).
        if self.raw_now() {
            let _ = execute!(out, LeaveAlternateScreen);
        }
        let _ = execute!(out, DisableMouseCapture, crossterm::cursor::Show);
        if let Some(saved) = &self.saved {
            // SAFETY: `saved` came from tcgetattr on this descriptor.
            unsafe {
                libc::tcsetattr(self.fd, libc::TCSAFLUSH, saved);
            }
        }
    }
}
