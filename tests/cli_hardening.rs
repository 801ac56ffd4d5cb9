//! What a hostile or careless command line meets at the program's edge:
//! arguments that are not UTF-8, names with terminal commands in them,
//! huge arguments, a parameter given twice, a closed stdout, companion
//! files that are not files.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_meanscape"))
}

fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    bin().args(args).output().expect("binary runs")
}

/// Exit 2, one line on stderr, no panic, no control character but the
/// final newline.
fn one_clean_line(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        !err.trim_end().chars().any(char::is_control),
        "a control character reached stderr: {err:?}"
    );
    err
}

#[test]
fn a_first_argument_that_is_not_utf8_is_a_usage_error() {
    let out = run(&[OsStr::from_bytes(b"\xff\xfe")]);
    let err = one_clean_line(&out);
    assert!(err.contains("unrecognized subcommand"), "{err}");
    let out = run(&[OsStr::new("run"), OsStr::from_bytes(b"--data=\xff")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn control_characters_from_a_file_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("ctl.csv");
    std::fs::write(&csv, "a\x1b[31mX,b\x07,label\n1,x,1\n2,y,2\n3,z,1\n").unwrap();
    // In an error.
    let out = run(&["run", "--data", csv.to_str().unwrap(), "--k", "2"]);
    let err = one_clean_line(&out);
    assert!(err.contains(r#""b\u{7}""#), "{err}");
    // In a note of the text output.
    let out = run(&[
        "run",
        "--data",
        csv.to_str().unwrap(),
        "--k",
        "2",
        "--ignore-non-numeric",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(r"'b\u{7}'"), "{text}");
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "{text:?}"
    );
    // In a file name.
    let odd = dir.path().join("odd\x1b]0;title\x07.csv");
    std::fs::write(&odd, "x\nnot a number\n").unwrap();
    one_clean_line(&run(&[
        OsStr::new("info"),
        OsStr::new("--data"),
        odd.as_os_str(),
    ]));
}

#[test]
fn a_huge_grid_is_quoted_not_echoed() {
    let values: Vec<String> = (1..=12_000).map(|i| format!("-{i}")).collect();
    let grid = format!("s0={}", values.join(","));
    let out = run(&[
        "sweep", "--data", "iris", "--algo", "power", "--grid", &grid,
    ]);
    let err = one_clean_line(&out);
    assert!(err.contains("more than 1000 values"), "{err}");
    assert!(err.len() < 300, "{} bytes: {err}", err.len());
    let long = format!("s0=-1,{}", "x".repeat(5000));
    let err = one_clean_line(&run(&["sweep", "--data", "iris", "--grid", &long]));
    assert!(err.contains("is not a number") && err.len() < 300, "{err}");
}

#[test]
fn a_parameter_given_twice_is_refused_naming_both() {
    for (args, both) in [
        (
            vec!["run", "--data", "iris", "--s0", "-2", "-P", "s0=-3"],
            "(--s0 -2 and -P s0=-3)",
        ),
        (
            vec!["run", "--data", "iris", "-P", "eta=1.1", "-P", "eta=1.2"],
            "(-P eta=1.1 and -P eta=1.2)",
        ),
        (
            vec![
                "sweep", "--data", "iris", "--eta", "1.1", "-P", "eta=1.2", "--grid", "s0=-2,-1",
            ],
            "(--eta 1.1 and -P eta=1.2)",
        ),
        (
            vec![
                "path",
                "--data",
                "iris",
                "--algo",
                "lw",
                "--max-iter",
                "50",
                "-P",
                "max_iter=60",
            ],
            "(--max-iter 50 and -P max_iter=60)",
        ),
    ] {
        let err = one_clean_line(&run(&args));
        assert!(
            err.contains("given twice") && err.contains(both),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn output_to_a_closed_stdout_is_an_error_not_a_silent_success() {
    let sh = |script: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_meanscape"))
            .output()
            .unwrap()
    };
    let out = sh(r#""$0" run --data iris --json >&-"#);
    let err = one_clean_line(&out);
    assert!(err.contains("stdout is closed"), "{err}");
    // /dev/null is a place to send output on purpose.
    let out = sh(r#""$0" run --data iris --json >/dev/null"#);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_companion_labels_file_that_is_not_a_file_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/good");
    let images = dir.path().join("four-images-idx3-ubyte");
    std::fs::copy(fixtures.join("four-images-idx3-ubyte"), &images).unwrap();
    let labels = dir.path().join("four-labels-idx1-ubyte");
    std::fs::create_dir(&labels).unwrap();
    let out = run(&["info", "--data", images.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(
        text.contains("labels not read from") && text.contains("is a directory"),
        "{text}"
    );
    std::fs::remove_dir(&labels).unwrap();
    let status = Command::new("mkfifo").arg(&labels).status().unwrap();
    assert!(status.success());
    let out = run(&["info", "--data", images.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("named pipe (FIFO)"), "{text}");
}
