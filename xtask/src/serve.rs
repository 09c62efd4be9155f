//! `cargo xtask serve`: the page built into `dist/` and served on http://127.0.0.1:8080;
//! while it runs, a change to the page's sources builds it again (reload the page to see it).

use crate::page::{self, Profile};
use crate::run::{Failure, Project};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

const ADDRESS: &str = "127.0.0.1:8080";

/// What the page is built from: a change under any of these builds it again.
const SOURCES: &[&str] = &[
    "index.html",
    "playground",
    "wasm",
    "core",
    "plan",
    "error",
    "derive",
];

pub fn run(project: &Project, profile: Profile) -> Result<(), Failure> {
    page::build(project, profile)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| Failure(format!("cannot start the file server: {e}")))?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(ADDRESS))
        .map_err(|e| Failure(format!("cannot listen on {ADDRESS}: {e}")))?;
    println!("\nServing the playground on http://{ADDRESS} (Ctrl+C stops); a change to its sources builds it again");
    std::thread::scope(|scope| {
        scope.spawn(|| watch(project, profile));
        let dist = Arc::new(project.root.join("dist"));
        let app = axum::Router::new().fallback(file).with_state(dist);
        runtime
            .block_on(async { axum::serve(listener, app).await })
            .map_err(|e| Failure(format!("the file server stopped: {e}")))
    })
}

/// Polls the sources' modification times once a second and builds the page again when they
/// change; a failed build is printed and the last good `dist/` stays served.
fn watch(project: &Project, profile: Profile) {
    let mut seen = newest_change(&project.root);
    loop {
        std::thread::sleep(Duration::from_secs(1));
        let now = newest_change(&project.root);
        if now == seen {
            continue;
        }
        seen = now;
        println!("\n==> a source changed: building the page again");
        match page::build(project, profile) {
            Ok(()) => println!("    built; reload the page"),
            Err(e) => eprintln!("    the build failed, the last good page stays: {}", e.0),
        }
    }
}

fn newest_change(root: &Path) -> Option<SystemTime> {
    SOURCES
        .iter()
        .filter_map(|source| newest_under(&root.join(source)))
        .max()
}

fn newest_under(path: &Path) -> Option<SystemTime> {
    let meta = std::fs::metadata(path).ok()?;
    let own = meta.modified().ok();
    if !meta.is_dir() {
        return own;
    }
    let children = std::fs::read_dir(path).ok()?;
    children
        .filter_map(|entry| entry.ok())
        .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
        .filter_map(|entry| newest_under(&entry.path()))
        .chain(own)
        .max()
}

async fn file(State(dist): State<Arc<PathBuf>>, request: Request) -> Response {
    let Some(path) = resolve(&dist, request.uri().path()) else {
        return (StatusCode::FORBIDDEN, "outside the page's folder").into_response();
    };
    match tokio::fs::read(&path).await {
        Ok(body) => (
            [
                (header::CONTENT_TYPE, content_type(&path)),
                // A page being worked on: never a stale copy from the browser's cache.
                (header::CACHE_CONTROL, "no-store"),
            ],
            body,
        )
            .into_response(),
        Err(_) => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// The file a request path names inside `dist`, or `None` for one that would leave it.
fn resolve(dist: &Path, request_path: &str) -> Option<PathBuf> {
    let mut path = dist.to_path_buf();
    let relative = request_path.trim_start_matches('/');
    for component in Path::new(relative).components() {
        match component {
            Component::Normal(part) => path.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if relative.is_empty() || relative.ends_with('/') {
        path.push("index.html");
    }
    Some(path)
}

/// Browsers compile wasm while it downloads only when it comes as `application/wasm`.
fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_paths_stay_inside_the_pages_folder() {
        let dist = Path::new("/srv/dist");
        assert_eq!(
            resolve(dist, "/"),
            Some(PathBuf::from("/srv/dist/index.html"))
        );
        assert_eq!(
            resolve(dist, "/data/chinook.sqlite"),
            Some(PathBuf::from("/srv/dist/data/chinook.sqlite"))
        );
        assert_eq!(resolve(dist, "/../secret"), None);
        assert_eq!(resolve(dist, "/data/../../secret"), None);
    }

    #[test]
    fn wasm_is_served_as_wasm() {
        assert_eq!(content_type(Path::new("a_bg.wasm")), "application/wasm");
        assert_eq!(
            content_type(Path::new("x.sqlite")),
            "application/octet-stream"
        );
    }
}
