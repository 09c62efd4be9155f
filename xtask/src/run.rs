//! Running the tools: one place that decides PATH and the environment every child sees.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The native workspace: every package but the page, with the command line's gold-plan mode
/// (the mock provider), which only the tests and the benchmarks use.
const NATIVE: [&str; 5] = [
    "--workspace",
    "--exclude",
    "playground",
    "--features",
    "nl2sql-cli/gold-plans",
];

/// A failure, as the one sentence the person running xtask needs.
#[derive(Debug)]
pub struct Failure(pub String);

/// The checkout xtask works on.
pub struct Project {
    pub root: PathBuf,
    path: OsString,
}

impl Project {
    /// The workspace root (xtask's parent folder), with PATH set up so that npm binaryen's
    /// wasm-opt and cargo-installed tools come first: Debian's wasm-opt is too old (it
    /// corrupts wasm-bindgen's output).
    pub fn locate() -> Result<Project, Failure> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .ok_or_else(|| Failure("xtask is not inside a workspace".into()))?
            .to_path_buf();
        let mut dirs = vec![root.join("node_modules").join(".bin")];
        if let Some(home) = cargo_home() {
            dirs.push(home.join("bin"));
        }
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let path =
            std::env::join_paths(dirs).map_err(|e| Failure(format!("cannot build PATH: {e}")))?;
        Ok(Project { root, path })
    }

    /// A command run from the workspace root with the project's environment.
    pub fn command(&self, program: &str, args: &[&str]) -> Cmd {
        let mut command = Command::new(self.find(program).unwrap_or_else(|| program.into()));
        command
            .args(args)
            .current_dir(&self.root)
            .env("PATH", &self.path)
            .env("NL2SQL_DIST", self.root.join("dist"));
        if let Some(driver) = self.find("chromedriver") {
            command.env("CHROMEDRIVER", driver);
        }
        if let Some(browser) = self.find("chromium") {
            command.env("CHROMIUM", browser);
        }
        Cmd {
            command,
            program: program.to_string(),
        }
    }

    /// `cargo …` with the project's environment.
    pub fn cargo(&self, args: &[&str]) -> Cmd {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = self.command(&cargo, args);
        cmd.program = "cargo".into();
        cmd
    }

    /// `cargo <subcommand>` over the native workspace, then `rest`. Every native build, test
    /// and lint of xtask selects the same packages and features: Cargo unifies dependency
    /// features per command, so `-p nl2sql-cli` after `--workspace` compiled tokio, serde,
    /// rustls, tonic, … again (37 and 59 s in two steps of a fresh test run), and the
    /// command line's binary flipped between two builds.
    pub fn cargo_native(&self, subcommand: &str, rest: &[&str]) -> Cmd {
        let mut args = vec![subcommand];
        args.extend(NATIVE);
        args.extend(rest);
        self.cargo(&args)
    }

    /// The command line as `cargo_native("build", …)` builds it.
    pub fn nl2sql_binary(&self) -> PathBuf {
        self.root.join("target").join("debug").join("nl2sql")
    }

    /// The program's full path on the project's PATH, if it is there.
    pub fn find(&self, program: &str) -> Option<PathBuf> {
        if program.contains('/') {
            return Some(program.into());
        }
        std::env::split_paths(&self.path)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    }

    /// The first line a tool prints for `--version`, or `None` when it is not installed.
    pub fn version_of(&self, program: &str) -> Option<String> {
        let path = self.find(program)?;
        let out = Command::new(path)
            .arg("--version")
            .env("PATH", &self.path)
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        out.status
            .success()
            .then(|| text.lines().next().unwrap_or_default().trim().to_string())
    }
}

fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
}

/// A command about to run.
pub struct Cmd {
    command: Command,
    program: String,
}

impl Cmd {
    /// Sets an environment variable for the child.
    pub fn env(mut self, name: &str, value: &str) -> Cmd {
        self.command.env(name, value);
        self
    }

    /// Runs with output streaming to the terminal; a non-zero exit is a failure named `what`.
    pub fn run(mut self, what: &str) -> Result<(), Failure> {
        let status = self
            .command
            .status()
            .map_err(|e| Failure(format!("{what}: could not start {}: {e}", self.program)))?;
        if status.success() {
            Ok(())
        } else {
            Err(Failure(format!("{what} failed ({status})")))
        }
    }

    /// Runs quietly and returns standard output; a failure carries standard error.
    pub fn output(mut self, what: &str) -> Result<String, Failure> {
        let out = self
            .command
            .output()
            .map_err(|e| Failure(format!("{what}: could not start {}: {e}", self.program)))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(Failure(format!(
                "{what} failed ({}):\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )))
        }
    }
}

/// Installs Debian packages when running as root; otherwise stops with the exact command.
pub fn apt_install(project: &Project, packages: &[&str], why: &str) -> Result<(), Failure> {
    let is_root = project
        .command("id", &["-u"])
        .output("id -u")
        .map(|uid| uid.trim() == "0")
        .unwrap_or(false);
    let list = packages.join(" ");
    if !is_root || project.find("apt-get").is_none() {
        return Err(Failure(format!(
            "{why}; install them with:\n\
             sudo apt-get update && sudo apt-get install -y {list}"
        )));
    }
    println!("    installing {list} with apt-get");
    project
        .command("apt-get", &["update"])
        .run("apt-get update")?;
    let mut args = vec!["install", "-y"];
    args.extend_from_slice(packages);
    project
        .command("apt-get", &args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .run(&format!("apt-get install {list}"))
}

/// Lower-case hexadecimal, two digits a byte (how SHA-256 sums are written).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
