//! Output files as a hostile folder would test them: symbolic links,
//! special files, inputs (and their companions), missing or unwritable
//! folders, and interrupts while a job with --out runs. Every case runs the
//! real binary (the interrupt flag is process-wide).

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_meanscape"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

/// Refused: exit 2, one line on stderr containing `needle`, no stdout.
fn refused(args: &[&str], needle: &str) {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected '{needle}' in: {err}"
    );
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const CSV: &str = "a,b\n1,2\n3,4\n5,7\n8,1\n";

#[test]
fn a_symlink_is_never_replaced_nor_followed() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    let other = dir.path().join("other.csv");
    std::fs::write(&input, CSV).unwrap();
    std::fs::write(&other, "keep me").unwrap();
    let to_input = dir.path().join("to_input.csv");
    let to_other = dir.path().join("to_other.csv");
    std::os::unix::fs::symlink(&input, &to_input).unwrap();
    std::os::unix::fs::symlink(&other, &to_other).unwrap();
    for link in [&to_input, &to_other] {
        refused(
            &[
                "run",
                "--data",
                s(&input),
                "--k",
                "2",
                "--out",
                s(link),
                "--force",
                "-q",
            ],
            "symbolic link",
        );
        assert!(std::fs::symlink_metadata(link).unwrap().is_symlink());
    }
    assert_eq!(std::fs::read_to_string(&input).unwrap(), CSV);
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "keep me");
    // A link to the input passed as --data is the input itself.
    refused(
        &[
            "run",
            "--data",
            s(&to_input),
            "--k",
            "2",
            "--out",
            s(&input),
            "--force",
            "-q",
        ],
        "input file",
    );
}

#[test]
fn the_temporary_has_an_unpredictable_name() {
    // The old scheme wrote `.NAME.PID.tmp` and followed a link planted
    // there. Plant links at every name that scheme could use for a short
    // range of pids around ours and check the writes never touch the input.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    std::fs::write(&input, CSV).unwrap();
    let me = std::process::id();
    for pid in me.saturating_sub(50)..me + 200 {
        let trap = dir.path().join(format!(".out.csv.{pid}.tmp"));
        std::os::unix::fs::symlink(&input, trap).unwrap();
    }
    let out = dir.path().join("out.csv");
    let o = run(&[
        "run",
        "--data",
        s(&input),
        "--k",
        "2",
        "--out",
        s(&out),
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(&input).unwrap(), CSV);
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("row,cluster\n")
    );
    // Nothing new but the output: no temporary left behind.
    assert_eq!(names(dir.path()).len(), 1 + 1 + 250);
}

#[test]
fn special_files_are_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.csv");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    refused(
        &["run", "--data", "iris", "--out", s(&fifo), "--force", "-q"],
        "is a FIFO",
    );
    refused(&["gen", "blobs", "--out", s(&fifo), "--force"], "is a FIFO");
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    refused(
        &[
            "run",
            "--data",
            "iris",
            "--out",
            "/dev/null",
            "--force",
            "-q",
        ],
        "is a device",
    );
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    let sub = dir.path().join("sub.csv");
    std::fs::create_dir(&sub).unwrap();
    refused(
        &["run", "--data", "iris", "--out", s(&sub), "--force", "-q"],
        "is a folder",
    );
}

/// A 2-image IDX pair `NAME-images-idx3-ubyte` / `NAME-labels-idx1-ubyte`.
fn idx_pair(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let images = dir.join("x-images-idx3-ubyte");
    let labels = dir.join("x-labels-idx1-ubyte");
    let mut img = vec![0, 0, 8, 3, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0, 0, 2];
    img.extend([0, 1, 2, 3, 200, 201, 202, 203, 100, 90, 10, 240]);
    std::fs::write(&images, img).unwrap();
    std::fs::write(&labels, [0, 0, 8, 1, 0, 0, 0, 6, 0, 0, 1, 1, 0, 1]).unwrap();
    (images, labels)
}

#[test]
fn the_companion_labels_file_is_an_input_too() {
    let dir = tempfile::tempdir().unwrap();
    let (images, labels) = idx_pair(dir.path());
    let before = std::fs::read(&labels).unwrap();
    // The pair loads, with k from the labels.
    let ok = run(&["run", "--data", s(&images), "--json", "-q"]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    for target in [&labels, &images] {
        refused(
            &[
                "run",
                "--data",
                s(&images),
                "--out",
                s(target),
                "--force",
                "-q",
            ],
            "refusing to overwrite the input file",
        );
    }
    assert_eq!(std::fs::read(&labels).unwrap(), before);
    assert_eq!(names(dir.path()).len(), 2);
}

#[test]
fn a_bad_target_is_refused_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/folder/x.csv");
    // Were the target checked after the work, --k 0 (refused once the data
    // is read) would be the error.
    refused(
        &[
            "run",
            "--data",
            "iris",
            "--k",
            "0",
            "--out",
            s(&missing),
            "-q",
        ],
        "does not exist; create it first",
    );
    refused(
        &["gen", "blobs", "--n", "0", "--out", s(&missing)],
        "does not exist",
    );
    refused(
        &[
            "run",
            "--data",
            "iris",
            "--k",
            "0",
            "--out",
            s(dir.path()),
            "-q",
        ],
        "is a folder",
    );
    // A folder that takes no new files (even for root): /proc.
    refused(
        &[
            "run",
            "--data",
            "iris",
            "--k",
            "0",
            "--out",
            "/proc/meanscape-test.csv",
            "-q",
        ],
        "cannot create files in /proc",
    );
    // An output name that promises another format.
    refused(
        &["gen", "blobs", "--out", s(&dir.path().join("g.mat"))],
        "gen writes .csv or .npy files",
    );
    refused(
        &[
            "run",
            "--data",
            "iris",
            "--out",
            s(&dir.path().join("l.npy")),
            "-q",
        ],
        "run --out writes .csv or .txt files",
    );
    assert!(names(dir.path()).is_empty());
}

/// A job that runs for minutes unless cancelled: power annealing by a tiny
/// factor at every iteration, with an iteration cap of 100000.
const LONG: &[&str] = &[
    "run",
    "--data",
    "gen:blobs,n=20000,p=5,k=8,seed=1",
    "--algo",
    "power",
    "--eta",
    "1.0001",
    "-P",
    "period=1",
    "-P",
    "s_min=-1000000",
    "--tol",
    "0",
    "--max-iter",
    "100000",
    "-q",
];

fn signal(child: &std::process::Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

fn interrupted(sigs: &[&str]) -> (Output, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("labels.csv");
    let mut args = LONG.to_vec();
    args.extend(["--out", s(&out), "--json"]);
    let child = bin()
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Long enough to be inside the job; the job itself takes minutes.
    std::thread::sleep(Duration::from_millis(1500));
    for sig in sigs {
        signal(&child, sig);
        std::thread::sleep(Duration::from_millis(100));
    }
    let o = child.wait_with_output().unwrap();
    (o, names(dir.path()))
}

#[test]
fn ctrl_c_cancels_the_job_and_leaves_no_file() {
    let (o, left) = interrupted(&["-INT"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert_eq!(err.trim_end(), "meanscape: cancelled");
    assert!(o.stdout.is_empty(), "--json printed on a cancelled run");
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn sigterm_ends_at_once_and_leaves_no_file() {
    let (o, left) = interrupted(&["-TERM"]);
    assert_eq!(o.status.code(), Some(128 + 15));
    assert!(o.stdout.is_empty());
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn ctrl_c_outside_the_solver_ends_at_once_and_leaves_no_file() {
    // Generating and formatting 40 million values takes seconds and does
    // not watch the flag: Ctrl-C ends it at once, whatever it is doing,
    // the write included.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("big.csv");
    let child = bin()
        .args(["gen", "blobs", "--n", "2000000", "p=20", "--out", s(&out)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    signal(&child, "-INT");
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert_eq!(err.trim_end(), "meanscape: cancelled");
    assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
}
