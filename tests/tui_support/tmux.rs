//! The real binary on a real terminal: tmux, on a server of its own (its
//! own socket, so other tmux users are never touched), one pane running a
//! `sh` script that starts meanscape and then reports how it left the
//! terminal: its exit code, the terminal's modes (`stty -a`), and a line
//! typed afterwards. `sh` does not put the modes back after a program as
//! an interactive bash would, so what the script sees is what meanscape
//! left.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The pane's script: `sh SCRIPT [VAR=VALUE…] BIN ARGS…` (through `env`).
const SCRIPT: &str = r#"env "$@"
echo "EXIT=$?"
printf 'MODES:'; stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo|isig|icrnl|opost)' | tr '\n' ' '; echo
printf 'type: '; read line; echo "GOT:$line"
sleep 600
"#;

pub struct Tmux {
    socket: String,
    _dir: tempfile::TempDir,
}

impl Tmux {
    /// Whether tmux can be run here (the tests that need it say so and
    /// pass when it cannot).
    pub fn available() -> bool {
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// A 120×40 pane running `args` (environment assignments first, then
    /// the program and its arguments) under the script.
    pub fn start(name: &str, args: &[&str]) -> Tmux {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("pane.sh");
        std::fs::write(&script, SCRIPT).unwrap();
        let socket = format!("meanscape-test-{}-{name}", std::process::id());
        let t = Tmux { socket, _dir: dir };
        let mut cmd = vec![
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "120",
            "-y",
            "40",
            "sh",
            script.to_str().unwrap(),
        ];
        cmd.extend_from_slice(args);
        t.run(&cmd);
        t
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "tmux {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The visible screen.
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t"])
    }

    /// The screen with what scrolled off it, wrapped lines joined.
    pub fn all(&self) -> String {
        self.run(&["capture-pane", "-p", "-J", "-S", "-1000", "-t", "t"])
    }

    /// A pane variable: `alternate_on`, `cursor_flag`, `mouse_any_flag`,
    /// `pane_pid`, `pane_tty`.
    pub fn var(&self, name: &str) -> String {
        self.run(&["display-message", "-p", "-t", "t", &format!("#{{{name}}}")])
            .trim()
            .to_string()
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Waits (at most a minute) until `done` holds.
    pub fn wait(&self, what: &str, done: impl Fn(&Tmux) -> bool) {
        let t0 = Instant::now();
        while !done(self) {
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "timed out waiting for {what}; screen:\n{}",
                self.all()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the UI is up: its screen drawn and the data in.
    pub fn wait_ui(&self) {
        self.wait("the UI", |t| {
            t.var("alternate_on") == "1" && t.screen().contains("q quit")
        });
    }

    /// Waits until the program has ended and the script has reported.
    pub fn wait_exit(&self) {
        self.wait("the exit", |t| t.screen().contains("\ntype:"));
    }

    /// The terminal's modes as `stty` sees them from outside.
    pub fn modes(&self) -> String {
        let tty = self.var("pane_tty");
        let out = Command::new("stty")
            .args(["-a", "-F", &tty])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pids of the processes whose parent is `pid` (from /proc).
    pub fn children(pid: u32) -> Vec<u32> {
        let mut out = Vec::new();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            // pid (comm) state ppid …; comm may hold spaces and parentheses.
            let after = &stat[stat.rfind(')').unwrap() + 2..];
            let ppid: u32 = after.split(' ').nth(1).unwrap().parse().unwrap();
            if ppid == pid {
                out.push(p);
            }
        }
        out
    }

    /// The program the script started (the supervisor) and its child.
    pub fn processes(&self) -> (u32, Option<u32>) {
        let sh: u32 = self.var("pane_pid").parse().unwrap();
        let top = Tmux::children(sh);
        assert_eq!(top.len(), 1, "the script runs one program: {top:?}");
        let kids = Tmux::children(top[0]);
        (top[0], kids.first().copied())
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// Sends `sig` to `pid`.
pub fn kill(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig} {pid}");
}

pub fn exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}
