//! The real program on a real terminal (tmux): however the UI ends, the
//! terminal is left as it was: cooked modes (typed text echoes), the main
//! screen, the cursor shown, no mouse reporting. An abort or a fatal
//! signal ends the UI's process before any of its code can run, so these
//! are sent from outside to the process that runs the UI (the child of
//! the supervisor, see src/tui/supervise.rs); its supervisor must restore
//! the terminal and say so in one line.
//!
//! Linux only (the processes are found in /proc); each test passes with a
//! note when tmux is missing.

#![cfg(target_os = "linux")]

mod tui_support;

use tui_support::tmux::{Tmux, exists, kill};

const BIN: &str = env!("CARGO_BIN_EXE_meanscape");

fn tmux_or_skip() -> bool {
    let ok = Tmux::available();
    if !ok {
        eprintln!("tmux is not installed: the terminal tests are skipped");
    }
    ok
}

/// The terminal as the shell got it back: the modes line of the script,
/// the screen and cursor and mouse, and a typed line echoed and read.
fn assert_restored(t: &Tmux) {
    let screen = t.screen();
    let modes = screen
        .lines()
        .find(|l| l.starts_with("MODES:"))
        .unwrap_or_else(|| panic!("no modes line:\n{screen}"));
    assert_eq!(
        modes.trim(),
        "MODES:icrnl opost isig icanon echo",
        "{screen}"
    );
    assert_eq!(t.var("alternate_on"), "0", "still on the UI's screen");
    assert_eq!(t.var("cursor_flag"), "1", "the cursor is hidden");
    assert_eq!(t.var("mouse_any_flag"), "0", "mouse reporting is on");
    // Echo: the text shows before Enter; cooked: Enter ends the line.
    t.keys(&["-l", "typed-back"]);
    t.wait("the typed text to echo", |t| {
        t.screen().contains("type: typed-back")
    });
    t.keys(&["Enter"]);
    t.wait("the line to be read", |t| {
        t.screen().contains("GOT:typed-back")
    });
}

/// Starts the UI on iris and checks that it holds the terminal raw.
fn ui_up(name: &str, env: &[&str]) -> (Tmux, u32, u32) {
    let mut args = env.to_vec();
    args.extend([BIN, "--data", "iris"]);
    let t = Tmux::start(name, &args);
    t.wait_ui();
    let modes = t.modes();
    assert!(
        modes.contains("-icanon") && modes.contains("-echo"),
        "{modes}"
    );
    // The process that runs the UI: the supervisor's child (or, in a
    // program without one, the program itself).
    let (top, child) = t.processes();
    (t, top, child.unwrap_or(top))
}

fn crash(name: &str, signals: &[&str], said: &str, code: i32) {
    if !tmux_or_skip() {
        return;
    }
    let (t, supervisor, child) = ui_up(name, &[]);
    for sig in signals {
        kill(child, sig);
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    t.wait_exit();
    let all = t.all();
    let line = format!("meanscape: the UI stopped unexpectedly ({said}");
    assert_eq!(all.matches(&line).count(), 1, "{all}");
    assert!(all.contains("the terminal was restored"), "{all}");
    assert!(all.contains(&format!("EXIT={code}\n")), "{all}");
    assert_restored(&t);
    assert!(!exists(supervisor) && !exists(child));
    assert_ne!(supervisor, child, "the UI ran in a child of the supervisor");
}

#[test]
fn an_abort_in_the_ui_leaves_the_terminal_cooked() {
    crash("abrt", &["ABRT"], "SIGABRT)", 134);
}

#[test]
fn a_segfault_in_the_ui_leaves_the_terminal_cooked() {
    // Rust's handler for stack overflows takes the first SIGSEGV sent from
    // outside (no fault address) for a fault and puts the default back;
    // the second ends the process, as a real fault would at once.
    crash("segv", &["SEGV", "SEGV"], "SIGSEGV)", 139);
}

#[test]
fn the_ui_killed_for_memory_leaves_the_terminal_cooked() {
    crash("kill", &["KILL"], "SIGKILL: killed", 137);
}

#[test]
fn quitting_leaves_the_terminal_as_it_was_and_says_nothing() {
    if !tmux_or_skip() {
        return;
    }
    let (t, supervisor, _) = ui_up("quit", &[]);
    // A Ctrl-C reaches the whole foreground group; the UI (raw) reads it
    // as a key, and the supervisor leaves it to the UI.
    kill(supervisor, "INT");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(exists(supervisor));
    t.keys(&["q"]);
    t.wait_exit();
    let all = t.all();
    assert!(all.contains("EXIT=0\n"), "{all}");
    assert!(!all.contains("meanscape:"), "{all}");
    assert_restored(&t);
}

#[test]
fn an_error_before_the_ui_is_said_as_before() {
    if !tmux_or_skip() {
        return;
    }
    let t = Tmux::start("error", &[BIN, "--data", "iris", "--algo", "nope"]);
    t.wait_exit();
    let all = t.all();
    assert!(
        all.contains("meanscape: error: 'nope' is not an algorithm"),
        "{all}"
    );
    assert_eq!(all.matches("meanscape:").count(), 1, "{all}");
    assert!(all.contains("EXIT=2"), "{all}");
    assert!(!all.contains("unexpectedly"), "{all}");
}

#[test]
fn sigterm_to_the_program_ends_the_ui_and_restores_the_terminal() {
    if !tmux_or_skip() {
        return;
    }
    let (t, supervisor, child) = ui_up("term", &[]);
    kill(supervisor, "TERM");
    t.wait_exit();
    let all = t.all();
    // Ended by SIGTERM as before (the shell's 128 + 15), said by no one.
    assert!(all.contains("EXIT=143\n"), "{all}");
    assert!(!all.contains("meanscape:"), "{all}");
    assert!(!exists(child));
    assert_restored(&t);
}

#[test]
fn a_latency_log_on_a_fifo_is_refused_and_the_ui_quits() {
    if !tmux_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("lat");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let var = format!("MEANSCAPE_LATENCY_LOG={}", fifo.display());
    let (t, _, _) = ui_up("fifo", &[&var]);
    // Keys are handled (each drawn frame would write a latency), and q
    // quits. Apart, so that frames are drawn between them.
    for key in ["Tab", "Tab", "q"] {
        std::thread::sleep(std::time::Duration::from_millis(300));
        t.keys(&[key]);
    }
    t.wait_exit();
    let all = t.all();
    assert!(all.contains("EXIT=0"), "{all}");
    assert!(
        all.contains("is a named pipe (FIFO), not a regular file; give a new file name; key latency is not logged"),
        "{all}"
    );
    assert_restored(&t);
}

#[test]
fn a_stray_supervisor_mark_in_the_environment_changes_nothing() {
    if !tmux_or_skip() {
        return;
    }
    // The mark names a pid that is not the parent: the program supervises
    // as always.
    let (t, supervisor, child) = ui_up("mark", &["MEANSCAPE_UI_SUPERVISOR=1"]);
    assert_ne!(supervisor, child);
    kill(child, "ABRT");
    t.wait_exit();
    assert!(t.all().contains("(SIGABRT)"));
    assert_restored(&t);
}
