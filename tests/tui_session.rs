//! The session file is trusted only as far as it is known: read within a
//! size limit and only from a regular file, and written over only while
//! it is still the file this UI read or wrote last. Anything else that
//! turns up at the path (a dataset copied over it, an edit, another file
//! moved there, a file where there was none) is left as it is, saving
//! stops, and the user is told, on the status line and after the UI.

mod tui_support;

use meanscape::tui::app::session_file::{self, MAX_BYTES, Read};
use meanscape::tui::app::{Action, App, StartOptions};
use std::path::Path;
use tui_support::{finished, settle};

fn start_session(path: &Path) -> App {
    App::new(StartOptions {
        session: Some(path.to_path_buf()),
        ..StartOptions::default()
    })
    .unwrap()
}

/// Waits until the History holds `n` runs and nothing is running.
fn runs(app: &mut App, n: usize) {
    settle(app, |a| a.history.entries.len() >= n && finished(a));
    assert_eq!(app.history.entries.len(), n);
}

/// One more run (a new seed), recorded and saved.
fn another_run(app: &mut App) {
    let n = app.history.entries.len();
    app.update(Action::Reseed);
    runs(app, n + 1);
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The message and the exit note both say why saving stopped.
fn assert_stopped(app: &App, why: &str) {
    let msg = app.message.as_deref().unwrap_or_default();
    assert!(
        msg.contains(why) && msg.contains("no longer saved"),
        "{msg}"
    );
    let note = app.exit_note.as_deref().unwrap_or_default();
    assert!(
        note.contains(why) && note.contains("no longer saved"),
        "{note}"
    );
}

const CSV: &str = "x,y,label\n1,2,a\n3,4,b\n";

#[test]
fn a_dataset_copied_over_the_session_is_kept_and_saving_stops() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    let csv = dir.path().join("data.csv");
    std::fs::write(&csv, CSV).unwrap();
    let mut app = start_session(&path);
    runs(&mut app, 1);
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("meanscape_session")
    );
    // `cp data.csv s.json`: the same inode, other bytes.
    std::fs::copy(&csv, &path).unwrap();
    another_run(&mut app);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CSV);
    assert_stopped(&app, "was changed by something else");
    // Later runs and the quit write nothing either, and the note stays.
    another_run(&mut app);
    app.update(Action::Quit);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CSV);
    assert!(
        app.exit_note
            .as_deref()
            .unwrap()
            .contains("no longer saved")
    );
    assert_eq!(names(dir.path()), ["data.csv", "s.json"]);
}

#[test]
fn a_file_moved_over_the_session_or_made_where_there_was_none_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    // Replaced by another file (`mv other s.json`): another inode.
    let path = dir.path().join("s.json");
    let mut app = start_session(&path);
    runs(&mut app, 1);
    let other = dir.path().join("other.json");
    let theirs = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&other, &theirs).unwrap();
    std::fs::rename(&other, &path).unwrap();
    another_run(&mut app);
    assert_stopped(&app, "was replaced by another file");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
    // No file at start, one before the first save.
    let fresh = dir.path().join("fresh.json");
    let mut app = start_session(&fresh);
    std::fs::write(&fresh, CSV).unwrap();
    runs(&mut app, 1);
    assert_stopped(&app, "appeared while this UI ran");
    assert_eq!(std::fs::read_to_string(&fresh).unwrap(), CSV);
    // Removed: not written again.
    let gone = dir.path().join("gone.json");
    let mut app = start_session(&gone);
    runs(&mut app, 1);
    std::fs::remove_file(&gone).unwrap();
    another_run(&mut app);
    assert_stopped(&app, "was removed");
    assert!(!gone.exists());
}

#[test]
fn an_edit_that_keeps_the_size_and_the_time_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    let mut app = start_session(&path);
    runs(&mut app, 1);
    let meta = std::fs::metadata(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    // The same length, one digit of the seed changed, the time put back.
    let edited = text.replacen("\"seed\":0", "\"seed\":7", 1);
    assert_ne!(edited, text);
    assert_eq!(edited.len(), text.len());
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::io::Write::write_all(&mut &f, edited.as_bytes()).unwrap();
    f.set_modified(meta.modified().unwrap()).unwrap();
    drop(f);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        meta.modified().unwrap()
    );
    another_run(&mut app);
    assert_stopped(&app, "was changed by something else");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
}

#[test]
fn a_damaged_session_changed_before_the_first_save_is_not_moved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    std::fs::write(&path, "{\"meanscape_session\": 1").unwrap();
    let mut app = start_session(&path);
    std::fs::write(&path, "{\"mine\": true}").unwrap();
    runs(&mut app, 1);
    assert_stopped(&app, "was changed by something else");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"mine\": true}");
    assert_eq!(names(dir.path()), ["s.json"]);
}

#[test]
fn an_unchanged_session_is_saved_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    let mut app = start_session(&path);
    runs(&mut app, 1);
    another_run(&mut app);
    another_run(&mut app);
    app.update(Action::Quit);
    assert_eq!(app.exit_note, None);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved["history"]["entries"].as_array().unwrap().len(), 3);
    // Read again by another UI, then saved by it: it is that UI's now.
    let mut again = start_session(&path);
    assert!(again.message.as_deref().unwrap().contains("3 runs"));
    runs(&mut again, 4);
    assert_eq!(again.exit_note, None);
}

#[test]
fn a_session_file_over_the_limit_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    // Sparse: no disk is used.
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(MAX_BYTES + 1).unwrap();
    drop(f);
    match session_file::read(&path) {
        Read::Unusable(why) => {
            assert!(why.contains("more than the 64.0 MiB"), "{why}");
            assert!(why.contains("left alone"), "{why}");
        }
        _ => panic!("a file over the limit must be refused"),
    }
    let mut app = start_session(&path);
    let msg = app.message.clone().unwrap();
    assert!(msg.contains("this session is not saved"), "{msg}");
    runs(&mut app, 1);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), MAX_BYTES + 1);
    // At the limit it is read (and is no session).
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(MAX_BYTES).unwrap();
    drop(f);
    assert!(matches!(session_file::read(&path), Read::Unusable(w) if w.contains("not JSON")));
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("s.json");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // No writer ever comes: a read that waited would hang the test.
    match session_file::read(&fifo) {
        Read::Unusable(why) => assert!(why.contains("named pipe (FIFO)"), "{why}"),
        _ => panic!("a FIFO must be refused"),
    }
    let mut app = start_session(&fifo);
    runs(&mut app, 1);
    app.update(Action::Quit);
    let ft = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&ft));
    match session_file::read(Path::new("/dev/null")) {
        Read::Unusable(why) => assert!(why.contains("character device"), "{why}"),
        _ => panic!("a device must be refused"),
    }
    // A link is refused too: saving would replace the link, not its file.
    let target = dir.path().join("t.json");
    let link = dir.path().join("l.json");
    std::fs::write(&target, "{}").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert!(matches!(session_file::read(&link), Read::Unusable(w) if w.contains("symbolic link")));
}

/// Found by tests/fuzz_sessions.rs: a run numbered usize::MAX made the
/// next run's number overflow (a panic with overflow checks, a wrapped
/// number 0 without).
#[test]
fn runs_numbered_beyond_counting_or_twice_are_numbered_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    let mut app = start_session(&path);
    runs(&mut app, 1);
    another_run(&mut app);
    another_run(&mut app);
    app.update(Action::Quit);
    let mut s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let entries = s["history"]["entries"].as_array_mut().unwrap();
    for (e, id) in entries.iter_mut().zip([usize::MAX, 5, 5]) {
        e["id"] = id.into();
    }
    s["history"]["pinned"] = serde_json::json!([5, usize::MAX, 5]);
    std::fs::write(&path, s.to_string()).unwrap();
    let mut app = start_session(&path);
    let ids: Vec<usize> = app.history.entries.iter().map(|e| e.id).collect();
    assert_eq!(ids, [1, 2, 3]);
    assert_eq!(app.history.pinned, [2, 1]);
    runs(&mut app, 4);
    assert_eq!(app.history.entries[3].id, 4);
    assert_eq!(app.exit_note, None);
}
