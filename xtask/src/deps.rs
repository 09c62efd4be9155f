//! `cargo xtask deps`: the crate graph and each crate's module graph, and a failure when a
//! module cycle exists anywhere (ARCHITECTURE.md shows the graph this prints).
//!
//! Modules are read from the source text, not from the compiler: a module is a file, and it
//! uses another when its code (comments aside) names a path into it — `crate::a::b`,
//! `super::x`, `self::x`, or an item its parent only re-exports, which is followed to the
//! file that defines it. `lib.rs` and `main.rs` are each crate's table of contents and are
//! left out. A cycle is counted at two levels: between a crate's top-level modules, and
//! between the files of one folder module (its `mod.rs` included).

use crate::run::{Failure, Project};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The crates whose modules are checked (every member but the tools and the fuzzers).
const CRATES: &[&str] = &[
    "error",
    "plan",
    "core",
    "native",
    "server",
    "cli",
    "wasm",
    "playground",
    "suite",
    "mock",
    "tests",
];

/// The crates that reach the engine only through its facade.
const FRONT_ENDS: &[&str] = &[
    "cli",
    "server",
    "wasm",
    "native",
    "playground",
    "mock",
    "suite",
    "xtask",
];

/// The engine's public surface: the facade and the types it speaks (core/src/lib.rs).
const SURFACE: &[&str] = &[
    "adapter",
    "api",
    "chart",
    "config",
    "demo",
    "error",
    "feedback",
    "files",
    "result",
    "service",
    "typescript",
];

pub fn check(project: &Project) -> Result<(), Failure> {
    print_crates(project)?;
    let mut cycles = Vec::new();
    for name in CRATES {
        let src = project.root.join(name).join("src");
        let graph = ModuleGraph::read(&src)?;
        println!("\n{name}:");
        for (from, to) in graph.top_edges() {
            println!(
                "  {from} -> {}",
                to.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
        for cycle in graph.cycles() {
            cycles.push(format!("{name}: {}", cycle.join(" -> ")));
        }
    }
    let around = around_the_facade(project)?;
    let mut problems = Vec::new();
    if cycles.is_empty() {
        println!("\nno module cycles");
    } else {
        problems.push(format!("module cycles:\n  {}", cycles.join("\n  ")));
    }
    if around.is_empty() {
        println!(
            "front ends name only the facade's surface ({})",
            SURFACE.join(", ")
        );
    } else {
        problems.push(format!(
            "front ends reaching past the engine's facade:\n  {}",
            around.join("\n  ")
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure(problems.join("\n")))
    }
}

/// Every place a front end names an engine module outside the surface, or enables the
/// `internals` feature that opens them.
fn around_the_facade(project: &Project) -> Result<Vec<String>, Failure> {
    let mut found = Vec::new();
    for name in FRONT_ENDS {
        let dir = project.root.join(name);
        let manifest = fs::read_to_string(dir.join("Cargo.toml"))
            .map_err(|e| Failure(format!("reading {name}/Cargo.toml: {e}")))?;
        if manifest.contains("\"internals\"") {
            found.push(format!("{name}/Cargo.toml enables nl2sql-core's internals"));
        }
        for file in rust_files(&dir.join("src"))? {
            let text = fs::read_to_string(&file)
                .map_err(|e| Failure(format!("reading {}: {e}", file.display())))?;
            for path in paths_from(&strip_comments(&text), &["nl2sql_core"]) {
                if !SURFACE.contains(&path[1].as_str()) {
                    let at = file.strip_prefix(&project.root).unwrap_or(&file);
                    found.push(format!("{}: {}", at.display(), path.join("::")));
                }
            }
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// Each workspace crate and the workspace crates it depends on (not dev-dependencies).
fn print_crates(project: &Project) -> Result<(), Failure> {
    let output = project
        .command("cargo", &["metadata", "--format-version", "1", "--no-deps"])
        .output("cargo metadata")?;
    let meta: serde_json::Value = serde_json::from_str(&output)
        .map_err(|e| Failure(format!("cargo metadata's output does not read: {e}")))?;
    let packages = meta["packages"].as_array().cloned().unwrap_or_default();
    let names: BTreeSet<String> = packages
        .iter()
        .filter_map(|p| p["name"].as_str().map(String::from))
        .collect();
    println!("crates (normal dependencies within the workspace):");
    for p in &packages {
        let deps: Vec<&str> = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|d| names.contains(*d))
            .collect();
        println!(
            "  {} -> {}",
            p["name"].as_str().unwrap_or("?"),
            if deps.is_empty() {
                "(none)".to_string()
            } else {
                deps.join(", ")
            }
        );
    }
    Ok(())
}

/// A crate's files as modules (`a`, `a::b`, …) and which modules each one's code names.
struct ModuleGraph {
    /// Module path → the file's text with comments removed.
    files: BTreeMap<Vec<String>, String>,
    /// Module path → the modules it uses (resolved to the defining file).
    edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
}

impl ModuleGraph {
    fn read(src: &Path) -> Result<ModuleGraph, Failure> {
        let mut files = BTreeMap::new();
        for path in rust_files(src)? {
            let relative = path.strip_prefix(src).unwrap_or(&path);
            let module = module_path(relative);
            let text = fs::read_to_string(&path)
                .map_err(|e| Failure(format!("cannot read {}: {e}", path.display())))?;
            files.insert(module, strip_comments(&text));
        }
        let mut graph = ModuleGraph {
            files,
            edges: BTreeMap::new(),
        };
        let modules: Vec<Vec<String>> = graph.files.keys().cloned().collect();
        for module in modules {
            if module.is_empty() {
                continue;
            }
            let text = graph.files[&module].clone();
            let mut targets = BTreeSet::new();
            for path in paths_in(&text) {
                if let Some(target) = graph.resolve(&module, &path) {
                    if target != module && !target.is_empty() {
                        targets.insert(target);
                    }
                }
            }
            graph.edges.insert(module, targets);
        }
        Ok(graph)
    }

    /// The file a path written in `from` reaches, following a parent's re-exports.
    fn resolve(&self, from: &[String], path: &[String]) -> Option<Vec<String>> {
        let (mut base, rest): (Vec<String>, &[String]) = match path.first()?.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (from.to_vec(), &path[1..]),
            "super" => {
                let mut base = from.to_vec();
                let mut rest = path;
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop();
                    rest = &rest[1..];
                }
                (base, rest)
            }
            _ => return None,
        };
        let mut i = 0;
        while i < rest.len() {
            let mut next = base.clone();
            next.push(rest[i].clone());
            if self.files.contains_key(&next) {
                base = next;
                i += 1;
            } else {
                break;
            }
        }
        match rest.get(i) {
            Some(item) => Some(self.defined_at(&base, item, 0)),
            None => Some(base),
        }
    }

    /// Where `item`, named through module `at`, is defined: `at` itself, or the module a
    /// `pub use` there brings it from.
    fn defined_at(&self, at: &[String], item: &str, depth: usize) -> Vec<String> {
        let Some(text) = self.files.get(at) else {
            return at.to_vec();
        };
        if depth > 4 || defines(text, item) {
            return at.to_vec();
        }
        for path in reexports(text) {
            if path.last().map(String::as_str) == Some(item) {
                let mut within = path.clone();
                within.pop();
                let resolved = match within.first().map(String::as_str) {
                    Some("crate" | "super" | "self") => self.resolve(at, &within),
                    Some(_) => {
                        let mut child = at.to_vec();
                        child.extend(within);
                        Some(child)
                    }
                    None => None,
                };
                if let Some(module) = resolved.filter(|m| self.files.contains_key(m)) {
                    return self.defined_at(&module, item, depth + 1);
                }
            }
        }
        at.to_vec()
    }

    /// Top-level module → the top-level modules its files use.
    fn top_edges(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, targets) in &self.edges {
            let entry = out.entry(from[0].clone()).or_default();
            for t in targets {
                if t[0] != from[0] {
                    entry.insert(t[0].clone());
                }
            }
        }
        out
    }

    /// Every cycle, as the modules on it: between top-level modules, and between the files
    /// of each folder module.
    fn cycles(&self) -> Vec<Vec<String>> {
        let mut found = Vec::new();
        let top: BTreeMap<String, BTreeSet<String>> = self.top_edges();
        found.extend(strongly_connected(&top));
        let folders: BTreeSet<Vec<String>> = self
            .files
            .keys()
            .filter(|m| m.len() > 1)
            .map(|m| m[..m.len() - 1].to_vec())
            .collect();
        for folder in folders {
            let mut local: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (from, targets) in &self.edges {
                let Some(a) = member(&folder, from) else {
                    continue;
                };
                let entry = local.entry(a).or_default();
                for t in targets {
                    if let Some(b) = member(&folder, t) {
                        entry.insert(b);
                    }
                }
            }
            for cycle in strongly_connected(&local) {
                found.push(
                    cycle
                        .into_iter()
                        .map(|m| format!("{}::{m}", folder.join("::")))
                        .collect(),
                );
            }
        }
        found
    }
}

/// The name of `module` within `folder` (`mod` for the folder's own `mod.rs`), when it is
/// the folder itself or one of its direct files or sub-folders.
fn member(folder: &[String], module: &[String]) -> Option<String> {
    if module == folder {
        return Some("mod".into());
    }
    if module.len() > folder.len() && module[..folder.len()] == *folder {
        return Some(module[folder.len()].clone());
    }
    None
}

/// The groups of nodes that reach each other (Tarjan), each of two or more.
fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                group.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.out.push(group);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let mut out = Vec::new();
    let entries =
        fs::read_dir(dir).map_err(|e| Failure(format!("cannot list {}: {e}", dir.display())))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path)?);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(out)
}

/// `engine/mod.rs` → `engine`, `engine/solve.rs` → `engine::solve`, `lib.rs` → the root.
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The text without `//` and `/* */` comments (doc comments included) and without string
/// literals' contents, so a path named in prose or in a message is not a use.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '"' => {
                out.push('"');
                let mut escaped = false;
                for c in chars.by_ref() {
                    if c == '"' && !escaped {
                        break;
                    }
                    escaped = c == '\\' && !escaped;
                }
                out.push('"');
            }
            _ => out.push(c),
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path starting at `crate`, `super` or `self` in the code, `use` trees expanded.
fn paths_in(text: &str) -> Vec<Vec<String>> {
    paths_from(text, &["crate", "super", "self"])
}

/// Every path in the code whose first segment is one of `roots`, `use` trees expanded.
fn paths_from(text: &str, roots: &[&str]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for statement in use_statements(text) {
        expand(&statement, &mut Vec::new(), &mut out);
    }
    out.retain(|p| p.len() > 1 && roots.contains(&p[0].as_str()));
    let bytes: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        if is_ident(bytes[i]) && (i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != ':') {
            let mut segments = Vec::new();
            let mut j = i;
            loop {
                let s = j;
                while j < bytes.len() && is_ident(bytes[j]) {
                    j += 1;
                }
                if s == j {
                    break;
                }
                segments.push(bytes[s..j].iter().collect::<String>());
                if j + 1 < bytes.len() && bytes[j] == ':' && bytes[j + 1] == ':' {
                    j += 2;
                } else {
                    break;
                }
            }
            if segments.len() > 1 && roots.contains(&segments[0].as_str()) {
                out.push(segments);
            }
            i = j.max(start + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The bodies of `use …;` statements (and `pub use`, `pub(crate) use`).
fn use_statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        rest = &rest[at + 4..];
        if before.is_some_and(is_ident) {
            continue;
        }
        if let Some(end) = rest.find(';') {
            out.push(normalise(&rest[..end]));
            rest = &rest[end..];
        }
    }
    out
}

/// A `use` tree with single spaces, and none around `::`, braces and commas: `a as b`
/// keeps its spaces so the rename can be told from a name.
fn normalise(tree: &str) -> String {
    let single = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    ["::", "{", "}", ","].iter().fold(single, |t, p| {
        t.replace(&format!(" {p}"), p).replace(&format!("{p} "), p)
    })
}

/// A `use` tree (`crate::a::{b, c::{d, e}}`) as its leaf paths.
fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let depth = prefix.len();
        prefix.extend(head);
        for part in split_top(inner) {
            expand(&part, prefix, out);
        }
        prefix.truncate(depth);
    } else {
        let path = tree.split(" as ").next().unwrap_or(tree);
        let mut full = prefix.clone();
        full.extend(
            path.split("::")
                .filter(|s| !s.is_empty() && *s != "*")
                .map(String::from),
        );
        if full
            .first()
            .is_some_and(|s| matches!(s.as_str(), "crate" | "super" | "self"))
        {
            out.push(full);
        }
    }
}

/// `a, b::{c, d}, e` split at the commas outside braces.
fn split_top(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        parts.push(current);
    }
    parts
}

/// Whether the file defines an item named `item` (struct, enum, fn, trait, type, const,
/// static, union, macro, or a module declared inline).
fn defines(text: &str, item: &str) -> bool {
    [
        "struct", "enum", "fn", "trait", "type", "const", "static", "union", "mod",
    ]
    .iter()
    .any(|keyword| {
        let needle = format!("{keyword} {item}");
        text.match_indices(&needle).any(|(at, _)| {
            let after = text[at + needle.len()..].chars().next();
            let before = text[..at].chars().last();
            !after.is_some_and(is_ident) && !before.is_some_and(is_ident)
        })
    }) || text.contains(&format!("macro_rules! {item}"))
}

/// The leaf paths of a file's `pub use` statements (re-exports), relative as written.
fn reexports(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("pub use ") {
        rest = &rest[at + 8..];
        if let Some(end) = rest.find(';') {
            let tree = normalise(&rest[..end]);
            let mut leaves = Vec::new();
            expand_any(&tree, &mut Vec::new(), &mut leaves);
            out.extend(leaves);
            rest = &rest[end..];
        }
    }
    out
}

/// [`expand`] for any first segment (re-exports may name a child module directly).
fn expand_any(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let depth = prefix.len();
        prefix.extend(head);
        for part in split_top(inner) {
            expand_any(&part, prefix, out);
        }
        prefix.truncate(depth);
    } else {
        let path = tree.split(" as ").next().unwrap_or(tree);
        let mut full = prefix.clone();
        full.extend(
            path.split("::")
                .filter(|s| !s.is_empty() && *s != "*")
                .map(String::from),
        );
        out.push(full);
    }
}
