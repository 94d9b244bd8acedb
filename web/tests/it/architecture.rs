//! Dependency edges are architecture: no crate reaches upward (see ARCHITECTURE.md).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// Which of our crates each crate may depend on.
fn allowed_edges() -> BTreeMap<&'static str, BTreeSet<&'static str>> {
    BTreeMap::from([
        ("engine", BTreeSet::new()),
        ("config", BTreeSet::from(["engine"])),
        ("store", BTreeSet::from(["engine"])),
        ("index", BTreeSet::from(["engine"])),
        ("embed", BTreeSet::new()),
        ("actors", BTreeSet::from(["engine", "store", "index", "embed"])),
        ("runtime", BTreeSet::from(["engine", "config", "store", "index", "embed", "actors"])),
        ("web", BTreeSet::from(["engine", "config", "store", "index", "embed", "actors", "runtime"])),
        // The test kit stands apart: it runs the binary and the peers, and links only the bottom
        // crate (its lock helper).
        ("testkit", BTreeSet::from(["engine"])),
        ("bench", BTreeSet::from(["engine", "config", "store", "index", "embed", "actors", "runtime", "web", "testkit"])),
    ])
}

#[test]
fn crates_depend_only_downward() {
    let workspace = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(workspace)
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("metadata is JSON");
    let packages = metadata["packages"].as_array().expect("packages");
    let ours: BTreeSet<&str> = packages.iter().filter_map(|package| package["name"].as_str()).collect();
    let allowed = allowed_edges();
    for name in &ours {
        assert!(allowed.contains_key(name), "crate {name} is not in the architecture map");
    }
    for package in packages {
        let name = package["name"].as_str().expect("name");
        for dependency in package["dependencies"].as_array().expect("dependencies") {
            let target = dependency["name"].as_str().expect("dependency name");
            let is_normal = dependency["kind"].is_null();
            if ours.contains(target) && is_normal {
                assert!(allowed[name].contains(target), "{name} must not depend on {target}");
            }
        }
    }
}

/// "engine does no I/O and never reads the clock or a random source": checked on its source.
#[test]
fn engine_reads_no_clock_randomness_or_files() {
    let engine_src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/src");
    let forbidden = ["Utc::now", "SystemTime::now", "Instant::now", "std::fs", "std::net", "rand::", "std::env"];
    let mut files = vec![engine_src];
    let mut checked = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).expect("readable").filter_map(|entry| entry.ok().map(|entry| entry.path())));
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("readable source");
        for pattern in forbidden {
            assert!(!source.contains(pattern), "{} uses {pattern}", path.display());
        }
        checked += 1;
    }
    assert!(checked >= 4, "engine sources not found");
}

/// Only the store's codec module touches serde_cbor.
#[test]
fn only_the_codec_module_uses_cbor() {
    let store_src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../store/src");
    for entry in std::fs::read_dir(&store_src).expect("store sources") {
        let path = entry.expect("entry").path();
        let source = std::fs::read_to_string(&path).expect("readable source");
        let is_allowed = ["codec.rs", "error.rs"].iter().any(|name| path.ends_with(name));
        assert!(is_allowed || !source.contains("serde_cbor::"), "{} uses serde_cbor", path.display());
    }
}

/// Shared code is a crate (the test kit, the runtime), never a file included by path.
#[test]
fn no_source_file_is_included_by_path() {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut folders = vec![workspace.clone()];
    let mut checked = 0;
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("readable folder") {
            let path = entry.expect("entry").path();
            let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
            if path.is_dir() {
                if !name.starts_with('.') && !["target", "node_modules", "fuzz"].contains(&name.as_str()) {
                    folders.push(path);
                }
            } else if name.ends_with(".rs") {
                let source = std::fs::read_to_string(&path).expect("readable source");
                assert!(!source.contains(concat!("#[", "path")), "{} includes a file by path", path.display());
                checked += 1;
            }
        }
    }
    assert!(checked >= 100, "only {checked} sources found under {}", workspace.display());
}

/// No two files of `web/src` or `engine/src` import each other, directly or around a loop: a
/// file's imports are the modules its `crate::` paths name (in `use` items and in code, test
/// modules left out), and a folder's `mod.rs` also imports the children it re-exports. Every
/// loop found is named.
#[test]
fn no_files_import_each_other_in_a_loop() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut loops = Vec::new();
    for crate_src in ["web/src", "engine/src"] {
        let imports = module_imports(&root.join(crate_src));
        assert!(imports.len() >= 20, "{crate_src}: only {} modules found", imports.len());
        for cycle in import_loops(&imports) {
            loops.push(format!("{crate_src}: {}", cycle.join(" -> ")));
        }
    }
    assert!(loops.is_empty(), "files that import each other in a loop (move what both need to where it belongs):\n{}", loops.join("\n"));
}

#[test]
fn a_loop_of_imports_is_found_and_named() {
    let imports: BTreeMap<String, BTreeSet<String>> = [("a", &["b"][..]), ("b", &["c"]), ("c", &["a"]), ("d", &["a"])]
        .into_iter()
        .map(|(module, uses)| (module.to_owned(), uses.iter().map(|used| (*used).to_owned()).collect()))
        .collect();
    assert_eq!(import_loops(&imports), vec![vec!["a".to_owned(), "b".to_owned(), "c".to_owned(), "a".to_owned()]]);
    let source = "use crate::wire::{admin, auth::{Login, Me}, Tier};\nfn f() { crate::state::x(); } // crate::not_this\n";
    let paths = crate_paths(&without_comments_and_tests(source));
    assert_eq!(paths, ["wire::admin", "wire::auth::Login", "wire::auth::Me", "wire::Tier", "state::x"]);
}

/// Every module of the crate whose sources are in `src` (by its path, `auth::session`; the
/// crate root and a binary's `main.rs` left out), with the modules it imports.
fn module_imports(src: &std::path::Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("readable folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let Some(relative) = path.strip_prefix(src).ok().and_then(|relative| relative.to_str()).and_then(|relative| relative.strip_suffix(".rs"))
            else {
                continue;
            };
            if ["lib", "main"].contains(&relative) {
                continue;
            }
            let module = relative.trim_end_matches("/mod").replace('/', "::");
            files.insert(module, path);
        }
    }
    let mut imports = BTreeMap::new();
    for (module, path) in &files {
        let text = std::fs::read_to_string(path).expect("readable source");
        let code = without_comments_and_tests(&text);
        let mut used = BTreeSet::new();
        let mut named: Vec<String> = crate_paths(&code);
        if path.ends_with("mod.rs") {
            // `pub use child::Item` in a folder's module: `crate::folder::Item` is the child's.
            named.extend(code.split("use ").skip(1).filter_map(|rest| rest.split_once("::")).map(|(child, _)| format!("{module}::{}", child.trim())));
        }
        for path in named {
            let segments: Vec<&str> = path.split("::").collect();
            let target = (1..=segments.len()).rev().map(|length| segments[..length].join("::")).find(|prefix| files.contains_key(prefix));
            if let Some(target) = target.filter(|target| target != module) {
                used.insert(target);
            }
        }
        imports.insert(module.clone(), used);
    }
    imports
}

/// The text of a source file without its comments and its test module.
fn without_comments_and_tests(text: &str) -> String {
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
    code.lines().map(|line| line.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// Every path that starts `crate::` in `code`, without that prefix, with `use` groups spread out
/// (`crate::wire::{admin, Tier}` is `wire::admin` and `wire::Tier`).
fn crate_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(start) = rest.find("crate::") {
        let is_word_start = rest[..start].chars().next_back().is_none_or(|before| !(before.is_alphanumeric() || before == '_'));
        rest = &rest[start + "crate::".len()..];
        if is_word_start {
            let (tree, _) = use_tree(rest);
            paths.extend(tree);
        }
    }
    paths
}

/// The paths of the use tree at the start of `text` (`a::{b, c::d}`), and what follows it.
fn use_tree(text: &str) -> (Vec<String>, &str) {
    let mut prefix: Vec<&str> = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let mut paths = Vec::new();
            rest = group;
            loop {
                let (inner, after) = use_tree(rest);
                paths.extend(inner.into_iter().map(|path| if prefix.is_empty() { path } else { format!("{}::{path}", prefix.join("::")) }));
                rest = after.trim_start();
                match rest.chars().next() {
                    Some(',') => rest = &rest[1..],
                    Some('}') => return (paths, &rest[1..]),
                    _ => return (paths, rest),
                }
                if let Some(after) = rest.trim_start().strip_prefix('}') {
                    return (paths, after);
                }
            }
        }
        let length = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '*')).unwrap_or(rest.len());
        if length == 0 {
            break;
        }
        let segment = &rest[..length];
        rest = &rest[length..];
        if segment != "self" {
            prefix.push(segment);
        }
        match rest.strip_prefix("::") {
            Some(after) => rest = after,
            None => break,
        }
    }
    let paths = if prefix.is_empty() { Vec::new() } else { vec![prefix.join("::")] };
    (paths, rest)
}

/// Every loop in `imports`, each once, from its first module (in order) back to it.
fn import_loops(imports: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut loops: Vec<Vec<String>> = Vec::new();
    let mut seen_members: BTreeSet<String> = BTreeSet::new();
    for start in imports.keys() {
        if seen_members.contains(start) {
            continue;
        }
        // The shortest way from `start` back to itself, if there is one (breadth first).
        let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
        let mut frontier = vec![start.as_str()];
        let mut closed = None;
        'search: while !frontier.is_empty() {
            let mut next = Vec::new();
            for module in frontier {
                for used in imports.get(module).into_iter().flatten() {
                    if used == start {
                        closed = Some(module);
                        break 'search;
                    }
                    if !previous.contains_key(used.as_str()) {
                        previous.insert(used.as_str(), module);
                        next.push(used.as_str());
                    }
                }
            }
            frontier = next;
        }
        let Some(mut last) = closed else { continue };
        let mut cycle = vec![start.clone()];
        let mut backwards = Vec::new();
        while last != start.as_str() {
            backwards.push(last.to_owned());
            last = previous[last];
        }
        cycle.extend(backwards.into_iter().rev());
        cycle.push(start.clone());
        seen_members.extend(cycle.iter().cloned());
        loops.push(cycle);
    }
    loops
}
