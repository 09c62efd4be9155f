//! The playground's static site in `dist/`, built from `index.html` with no bundler: the
//! page's `<link data-build …>` tags say what goes in, and each is replaced by what the
//! browser needs.
//!
//! - `rel="rust"`: the app (`cargo build` for wasm32, `wasm-bindgen --target web`, and in a
//!   release build `wasm-opt`), started by a module script and preloaded;
//! - `rel="css"`: a stylesheet;
//! - `rel="copy-file"` (optionally `data-target-path`) and `rel="copy-dir"`: copied as they are.
//!
//! The app's and the stylesheet's names carry a hash of their content, so a browser never
//! runs a stale cached copy, and every tag the page loads carries its integrity hash. (Trunk
//! did this before; its `cargo install` took 9 of the fresh machine's 30 minutes.)

use crate::run::{hex, Failure, Project};
use base64::Engine as _;
use sha2::{Digest, Sha256, Sha384};
use std::fs;
use std::path::{Path, PathBuf};

/// What the page is built for: `serve` (quick to build) or `dist` (small to download).
#[derive(Clone, Copy)]
pub enum Profile {
    Debug,
    Release,
}

/// Builds `dist/` from `index.html`; the old `dist/` is replaced only once the new one is
/// complete.
pub fn build(project: &Project, profile: Profile) -> Result<(), Failure> {
    let template = read_text(&project.root.join("index.html"))?;
    let stage = project.root.join("target").join("page-stage");
    if stage.exists() {
        fs::remove_dir_all(&stage).map_err(|e| io_failure(&stage, e))?;
    }
    fs::create_dir_all(&stage).map_err(|e| io_failure(&stage, e))?;
    let mut html = String::with_capacity(template.len());
    let mut preloads = String::new();
    let mut rest = template.as_str();
    while let Some(start) = rest.find(TAG) {
        let end = rest[start..]
            .find('>')
            .map(|e| start + e + 1)
            .ok_or_else(|| Failure("index.html: a <link data-build …> tag is not closed".into()))?;
        html.push_str(&rest[..start]);
        let tag = Tag::parse(&rest[start..end])?;
        html.push_str(&tag.emit(project, profile, &stage, &mut preloads)?);
        rest = &rest[end..];
    }
    let head_end = rest
        .find("</head>")
        .ok_or_else(|| Failure("index.html: no </head> after the build tags".into()))?;
    html.push_str(&rest[..head_end]);
    html.push_str(&preloads);
    html.push_str(&rest[head_end..]);
    write(&stage.join("index.html"), html.as_bytes())?;
    let dist = project.root.join("dist");
    if dist.exists() {
        fs::remove_dir_all(&dist).map_err(|e| io_failure(&dist, e))?;
    }
    fs::rename(&stage, &dist).map_err(|e| io_failure(&dist, e))
}

/// wasm-opt's arguments for everything shipped: smallest code, with the features rustc
/// emits for wasm32 by default and every current browser runs. (`--converge` saved 4 KB of
/// brotli for 70 s more per build; not worth it in every test run.)
pub const WASM_OPT_ARGS: &[&str] = &[
    "-Oz",
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

const TAG: &str = "<link data-build";

/// One `<link data-build …>` tag of the template.
#[derive(Debug, PartialEq)]
enum Tag {
    Rust {
        manifest: String,
        bin: String,
    },
    Css {
        href: String,
    },
    CopyFile {
        href: String,
        target: Option<String>,
    },
    CopyDir {
        href: String,
    },
}

impl Tag {
    fn parse(tag: &str) -> Result<Tag, Failure> {
        let attrs = attributes(tag);
        let get = |name: &str| {
            attrs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let need = |name: &str| {
            get(name).ok_or_else(|| Failure(format!("index.html: {tag} has no {name}=\"…\"")))
        };
        match need("rel")?.as_str() {
            "rust" => Ok(Tag::Rust {
                manifest: need("href")?,
                bin: need("data-bin")?,
            }),
            "css" => Ok(Tag::Css {
                href: need("href")?,
            }),
            "copy-file" => Ok(Tag::CopyFile {
                href: need("href")?,
                target: get("data-target-path"),
            }),
            "copy-dir" => Ok(Tag::CopyDir {
                href: need("href")?,
            }),
            other => Err(Failure(format!(
                "index.html: rel=\"{other}\" is not one the page build knows \
                 (rust, css, copy-file, copy-dir)"
            ))),
        }
    }

    /// Puts the tag's files in `stage` and returns what replaces the tag in the page;
    /// preload links go to `preloads`, added at the end of `<head>`.
    fn emit(
        &self,
        project: &Project,
        profile: Profile,
        stage: &Path,
        preloads: &mut String,
    ) -> Result<String, Failure> {
        let root = &project.root;
        match self {
            Tag::Rust { manifest, bin } => {
                let app = rust_app(project, profile, stage, manifest, bin)?;
                for module in &app.modules {
                    preloads.push_str(&format!(
                        "<link rel=\"modulepreload\" href=\"./{module}\" crossorigin=\"anonymous\" \
                         integrity=\"{}\">",
                        integrity(&stage.join(module))?
                    ));
                }
                preloads.push_str(&format!(
                    "<link rel=\"preload\" href=\"./{}\" crossorigin=\"anonymous\" integrity=\"{}\" \
                     as=\"fetch\" type=\"application/wasm\">",
                    app.wasm,
                    integrity(&stage.join(&app.wasm))?
                ));
                Ok(format!(
                    "<script type=\"module\">\nimport init from './{}';\n\
                     await init({{ module_or_path: './{}' }});\n</script>",
                    app.js, app.wasm
                ))
            }
            Tag::Css { href } => {
                let bytes = read(&root.join(href))?;
                let stem = Path::new(href)
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("style");
                let name = format!("{stem}-{}.css", content_hash(&[&bytes]));
                write(&stage.join(&name), &bytes)?;
                Ok(format!(
                    "<link rel=\"stylesheet\" href=\"./{name}\" integrity=\"{}\"/>",
                    sri(&bytes)
                ))
            }
            Tag::CopyFile { href, target } => {
                let from = root.join(href);
                let name = from
                    .file_name()
                    .ok_or_else(|| Failure(format!("index.html: {href} names no file")))?;
                let dir = match target {
                    Some(t) => stage.join(t),
                    None => stage.to_path_buf(),
                };
                fs::create_dir_all(&dir).map_err(|e| io_failure(&dir, e))?;
                copy(&from, &dir.join(name))?;
                Ok(String::new())
            }
            Tag::CopyDir { href } => {
                let from = root.join(href);
                let name = from
                    .file_name()
                    .ok_or_else(|| Failure(format!("index.html: {href} names no folder")))?;
                copy_dir(&from, &stage.join(name))?;
                Ok(String::new())
            }
        }
    }
}

/// The app's files in the stage: the JS glue and the wasm, both named with their hash, and
/// every JS module the page imports (the glue and wasm-bindgen's snippets).
struct App {
    js: String,
    wasm: String,
    modules: Vec<String>,
}

fn rust_app(
    project: &Project,
    profile: Profile,
    stage: &Path,
    manifest: &str,
    bin: &str,
) -> Result<App, Failure> {
    let profile_name = match profile {
        Profile::Debug => "dev",
        Profile::Release => crate::WASM_PROFILE,
    };
    project
        .cargo(&[
            "build",
            "--manifest-path",
            manifest,
            "--bin",
            bin,
            "--target",
            "wasm32-unknown-unknown",
            "--profile",
            profile_name,
        ])
        .run("cargo build of the page")?;
    let out_dir = match profile {
        Profile::Debug => "debug",
        Profile::Release => crate::WASM_PROFILE,
    };
    let built = project
        .root
        .join("target/wasm32-unknown-unknown")
        .join(out_dir)
        .join(format!("{bin}.wasm"));
    let bindgen = project.root.join("target").join("page-bindgen");
    if bindgen.exists() {
        fs::remove_dir_all(&bindgen).map_err(|e| io_failure(&bindgen, e))?;
    }
    let (built_arg, out_arg) = (built.display().to_string(), bindgen.display().to_string());
    project
        .command(
            "wasm-bindgen",
            &[
                "--target",
                "web",
                "--no-typescript",
                "--out-dir",
                &out_arg,
                "--out-name",
                bin,
                &built_arg,
            ],
        )
        .run("wasm-bindgen for the page")?;
    let module = bindgen.join(format!("{bin}_bg.wasm"));
    if let Profile::Release = profile {
        let module_arg = module.display().to_string();
        let mut args = WASM_OPT_ARGS.to_vec();
        args.extend(["-o", &module_arg, &module_arg]);
        project
            .command("wasm-opt", &args)
            .run("wasm-opt for the page")?;
    }
    let (js_bytes, wasm_bytes) = (read(&bindgen.join(format!("{bin}.js")))?, read(&module)?);
    let hashed = format!("{bin}-{}", content_hash(&[&js_bytes, &wasm_bytes]));
    let app = App {
        js: format!("{hashed}.js"),
        wasm: format!("{hashed}_bg.wasm"),
        modules: Vec::new(),
    };
    write(&stage.join(&app.js), &js_bytes)?;
    write(&stage.join(&app.wasm), &wasm_bytes)?;
    let snippets = bindgen.join("snippets");
    let mut modules = vec![app.js.clone()];
    if snippets.is_dir() {
        copy_dir(&snippets, &stage.join("snippets"))?;
        let mut files = Vec::new();
        files_under(&stage.join("snippets"), &mut files)?;
        files.sort();
        for file in files {
            if let Ok(rel) = file.strip_prefix(stage) {
                modules.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    Ok(App { modules, ..app })
}

/// A tag's attributes, `name="value"` or a bare `name` (whose value is empty).
fn attributes(tag: &str) -> Vec<(String, String)> {
    let inner = tag
        .trim_start_matches("<link")
        .trim_end_matches('>')
        .trim_end_matches('/');
    let mut out = Vec::new();
    let mut rest = inner.trim_start();
    while !rest.is_empty() {
        let name_end = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(rest.len());
        let name = rest[..name_end].to_string();
        rest = rest[name_end..].trim_start();
        let value = match rest.strip_prefix('=') {
            Some(after) => {
                let after = after.trim_start();
                match after.strip_prefix('"') {
                    Some(quoted) => {
                        let close = quoted.find('"').unwrap_or(quoted.len());
                        rest = quoted.get(close + 1..).unwrap_or("");
                        quoted[..close].to_string()
                    }
                    None => {
                        let end = after.find(char::is_whitespace).unwrap_or(after.len());
                        rest = &after[end..];
                        after[..end].to_string()
                    }
                }
            }
            None => String::new(),
        };
        if !name.is_empty() {
            out.push((name, value));
        }
        rest = rest.trim_start();
    }
    out
}

/// The first 16 hex digits of SHA-256 over the parts: enough to tell builds apart.
fn content_hash(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hex(&hasher.finalize()[..8])
}

/// A Subresource Integrity value: `sha384-` and the digest in base64.
fn sri(bytes: &[u8]) -> String {
    format!(
        "sha384-{}",
        base64::engine::general_purpose::STANDARD.encode(Sha384::digest(bytes))
    )
}

fn integrity(path: &Path) -> Result<String, Failure> {
    Ok(sri(&read(path)?))
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), Failure> {
    let mut files = Vec::new();
    files_under(from, &mut files)?;
    for file in files {
        let rel = file
            .strip_prefix(from)
            .map_err(|_| Failure(format!("{} is outside {}", file.display(), from.display())))?;
        let target = to.join(rel);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|e| io_failure(parent, e))?;
        }
        copy(&file, &target)?;
    }
    Ok(())
}

/// Every file under `dir`, at any depth.
pub fn files_under(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Failure> {
    for entry in fs::read_dir(dir).map_err(|e| io_failure(dir, e))? {
        let path = entry.map_err(|e| io_failure(dir, e))?.path();
        if path.is_dir() {
            files_under(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

fn copy(from: &Path, to: &Path) -> Result<(), Failure> {
    fs::copy(from, to).map(|_| ()).map_err(|e| {
        Failure(format!(
            "cannot copy {} to {}: {e}",
            from.display(),
            to.display()
        ))
    })
}

fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    fs::read(path).map_err(|e| io_failure(path, e))
}

fn read_text(path: &Path) -> Result<String, Failure> {
    fs::read_to_string(path).map_err(|e| io_failure(path, e))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    fs::write(path, bytes).map_err(|e| io_failure(path, e))
}

fn io_failure(path: &Path, e: std::io::Error) -> Failure {
    Failure(format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_kind_of_build_tag() {
        let rust =
            r#"<link data-build rel="rust" href="playground/Cargo.toml" data-bin="playground" />"#;
        assert_eq!(
            Tag::parse(rust).ok(),
            Some(Tag::Rust {
                manifest: "playground/Cargo.toml".into(),
                bin: "playground".into()
            })
        );
        let file =
            r#"<link data-build rel="copy-file" href="data/a b.sqlite" data-target-path="data">"#;
        assert_eq!(
            Tag::parse(file).ok(),
            Some(Tag::CopyFile {
                href: "data/a b.sqlite".into(),
                target: Some("data".into())
            })
        );
        assert_eq!(
            Tag::parse(r#"<link data-build rel=copy-dir href="target/duckdb"/>"#).ok(),
            Some(Tag::CopyDir {
                href: "target/duckdb".into()
            })
        );
    }

    #[test]
    fn an_unknown_or_incomplete_tag_is_refused_by_name() {
        let unknown = Tag::parse(r#"<link data-build rel="sass" href="x.scss">"#);
        assert!(unknown.is_err_and(|e| e.0.contains("rel=\"sass\"")));
        let no_bin = Tag::parse(r#"<link data-build rel="rust" href="Cargo.toml">"#);
        assert!(no_bin.is_err_and(|e| e.0.contains("data-bin")));
    }

    #[test]
    fn names_change_with_content_and_integrity_is_sha384() {
        assert_ne!(content_hash(&[b"a", b"b"]), content_hash(&[b"a", b"c"]));
        assert_eq!(content_hash(&[b"ab"]).len(), 16);
        // The empty input's SHA-384, as every browser computes it.
        assert_eq!(
            sri(b""),
            "sha384-OLBgp1GsljhM2TJ+sbHjaiH9txEUvgdDTAzHv2P24donTt6/529l+9Ua0vFImLlb"
        );
    }
}
