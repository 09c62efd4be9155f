//! The idempotent set-up: checks each tool and installs only what is missing or at the
//! wrong version. Everything comes from the package registries (crates.io, npm, Debian);
//! nothing is downloaded from anywhere else, and Trunk is pinned so it never tries.

use crate::data;
use crate::run::{Failure, Project};
use sha2::{Digest, Sha256};
use std::fs;

const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// The last Trunk whose minimum Rust is at most ours (0.22 needs rustc 1.96.1).
const TRUNK_VERSION: &str = "0.21.14";

pub fn ensure(project: &Project) -> Result<(), Failure> {
    println!("==> set-up");
    wasm_target(project)?;
    wasm_bindgen_cli(project)?;
    trunk(project)?;
    npm_packages(project)?;
    chromium(project)?;
    data::ensure(project)
}

fn wasm_target(project: &Project) -> Result<(), Failure> {
    if project.find("rustup").is_none() {
        return if target_in_sysroot(project) {
            ok(&format!("{WASM_TARGET} target"))
        } else {
            Err(Failure(format!(
                "the {WASM_TARGET} target is needed and rustup is not on PATH to add it; \
                 install Rust with rustup, then run `rustup target add {WASM_TARGET}`"
            )))
        };
    }
    let installed = project
        .command("rustup", &["target", "list", "--installed"])
        .output("rustup target list")?;
    if installed.lines().any(|l| l.trim() == WASM_TARGET) {
        return ok(&format!("{WASM_TARGET} target"));
    }
    println!("    adding the {WASM_TARGET} target");
    project
        .command("rustup", &["target", "add", WASM_TARGET])
        .run("rustup target add")
}

/// Without rustup, the target may still be in the toolchain's sysroot.
fn target_in_sysroot(project: &Project) -> bool {
    project
        .command("rustc", &["--print", "sysroot"])
        .output("rustc --print sysroot")
        .map(|root| {
            std::path::Path::new(root.trim())
                .join("lib/rustlib")
                .join(WASM_TARGET)
                .is_dir()
        })
        .unwrap_or(false)
}

/// wasm-bindgen-cli must equal the wasm-bindgen crate in Cargo.lock, or its output does not
/// match the generated glue (and Trunk would try to download the right one).
fn wasm_bindgen_cli(project: &Project) -> Result<(), Failure> {
    let lock = fs::read_to_string(project.root.join("Cargo.lock"))
        .map_err(|e| Failure(format!("cannot read Cargo.lock: {e}")))?;
    let wanted = locked_version(&lock, "wasm-bindgen")
        .ok_or_else(|| Failure("Cargo.lock does not lock wasm-bindgen".into()))?;
    let have = project.version_of("wasm-bindgen");
    if have.as_deref() == Some(&format!("wasm-bindgen {wanted}")) {
        return ok(&format!("wasm-bindgen-cli {wanted}"));
    }
    println!("    installing wasm-bindgen-cli {wanted} (found {have:?}); about 2 minutes");
    // Not --locked: the CLI's own lock file pins a webpki-roots release the registry mirror
    // here does not carry; the unlocked resolution builds and runs correctly.
    project
        .cargo(&[
            "install",
            "--force",
            "wasm-bindgen-cli",
            "--version",
            &wanted,
        ])
        .run("cargo install wasm-bindgen-cli")
}

fn trunk(project: &Project) -> Result<(), Failure> {
    if project.version_of("trunk").as_deref() == Some(&format!("trunk {TRUNK_VERSION}")) {
        return ok(&format!("trunk {TRUNK_VERSION}"));
    }
    println!("    installing trunk {TRUNK_VERSION}; about 6 minutes on two cores");
    project
        .cargo(&[
            "install",
            "--locked",
            "--force",
            "trunk",
            "--version",
            TRUNK_VERSION,
        ])
        .run("cargo install trunk")
}

/// `npm ci` from the committed lock file, skipped when node_modules was installed from
/// this very lock file (a stamp records its hash).
fn npm_packages(project: &Project) -> Result<(), Failure> {
    for tool in ["node", "npm"] {
        if project.find(tool).is_none() {
            return Err(Failure(format!(
                "{tool} is not on PATH; install Node.js 20 or newer with npm \
                 (Debian: apt-get install -y nodejs npm)"
            )));
        }
    }
    let lock = fs::read(project.root.join("package-lock.json"))
        .map_err(|e| Failure(format!("cannot read package-lock.json: {e}")))?;
    let hash = hex(&Sha256::digest(&lock));
    let stamp = project.root.join("node_modules").join(".xtask-lock-sha256");
    if fs::read_to_string(&stamp).ok().as_deref() == Some(hash.as_str()) {
        return ok("npm packages (sql.js, binaryen, playwright-core)");
    }
    println!("    npm ci");
    project
        .command("npm", &["ci", "--no-audit", "--no-fund"])
        .run("npm ci")?;
    fs::write(&stamp, hash).map_err(|e| Failure(format!("cannot write {}: {e}", stamp.display())))
}

/// Debian's Chromium and its driver, for the browser and end-to-end tests.
fn chromium(project: &Project) -> Result<(), Failure> {
    if project.find("chromium").is_some() && project.find("chromedriver").is_some() {
        return ok("chromium and chromedriver");
    }
    let is_root = project
        .command("id", &["-u"])
        .output("id -u")
        .map(|uid| uid.trim() == "0")
        .unwrap_or(false);
    if !is_root || project.find("apt-get").is_none() {
        return Err(Failure(
            "Chromium and ChromeDriver are needed for the browser tests; install them with:\n\
             sudo apt-get update && sudo apt-get install -y chromium chromium-driver"
                .into(),
        ));
    }
    println!("    installing chromium and chromium-driver with apt-get");
    project
        .command("apt-get", &["update"])
        .run("apt-get update")?;
    project
        .command("apt-get", &["install", "-y", "chromium", "chromium-driver"])
        .run("apt-get install chromium chromium-driver")
}

/// The version Cargo.lock records for a package (the first, if several).
fn locked_version(lock: &str, package: &str) -> Option<String> {
    let name_line = format!("name = \"{package}\"");
    let mut lines = lock.lines();
    lines.find(|l| l.trim() == name_line)?;
    let version = lines.next()?.trim().strip_prefix("version = \"")?;
    Some(version.trim_end_matches('"').to_string())
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn ok(what: &str) -> Result<(), Failure> {
    println!("    ok  {what}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_locked_version_of_a_package() {
        let lock = "[[package]]\nname = \"wasm-bindgen-macro\"\nversion = \"9.9.9\"\n\n\
                    [[package]]\nname = \"wasm-bindgen\"\nversion = \"0.2.130\"\nsource = \"x\"\n";
        assert_eq!(
            locked_version(lock, "wasm-bindgen").as_deref(),
            Some("0.2.130")
        );
        assert_eq!(locked_version(lock, "trunk"), None);
    }

    #[test]
    fn hex_is_lowercase_and_padded() {
        assert_eq!(hex(&[0, 15, 255]), "000fff");
    }
}
