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
