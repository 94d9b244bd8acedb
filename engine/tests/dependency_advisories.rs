//! No lock file of the workspace holds a package at a version that an advisory we fixed by
//! upgrading names as affected (SECURITY.md, "Dependency advisories"). It reads the lock files
//! themselves — the workspace's and the fuzz crate's — so it needs neither the network nor an
//! advisory database, and a downgrade, or a new dependency that brings an old copy back, fails it
//! whatever the machine's speed. It lives with engine, the quickest crate to build, though it
//! speaks for the whole workspace.

use std::path::Path;

/// An advisory fixed by an upgrade: every version of `package` before `fixed_in` is affected.
struct Advisory {
    id: &'static str,
    package: &'static str,
    fixed_in: &'static str,
    why: &'static str,
}

const ADVISORIES: &[Advisory] = &[
    Advisory {
        id: "RUSTSEC-2026-0194",
        package: "quick-xml",
        fixed_in: "0.41.0",
        why: "each attribute name of a start tag was checked against every earlier one, so one tag of N attributes cost \
              O(N²) (40,000 took 1.6 s); the PubMed and arXiv parsers, and feed-rs for arXiv's Atom, read untrusted \
              answers with it",
    },
    Advisory {
        id: "RUSTSEC-2026-0195",
        package: "quick-xml",
        fixed_in: "0.41.0",
        why: "NsReader kept every namespace declaration of a start tag, without bound, before the caller saw the tag; \
              the arXiv parsers' namespace-aware pass and feed-rs read untrusted answers with NsReader",
    },
];

/// `(name, version)` of every `[[package]]` in a Cargo.lock.
fn locked_packages(lock: &str) -> Vec<(String, String)> {
    let mut packages = Vec::new();
    let mut current: Option<(Option<String>, Option<String>)> = None;
    let mut finish = |current: &mut Option<(Option<String>, Option<String>)>| {
        if let Some((Some(name), Some(version))) = current.take() {
            packages.push((name, version));
        }
    };
    for line in lock.lines().map(str::trim) {
        if line.starts_with('[') {
            finish(&mut current);
            if line == "[[package]]" {
                current = Some((None, None));
            }
            continue;
        }
        let Some((name, version)) = current.as_mut() else { continue };
        let quoted =
            |key: &str| line.strip_prefix(key)?.trim_start().strip_prefix('=')?.trim().strip_prefix('"')?.strip_suffix('"').map(str::to_owned);
        if let Some(value) = quoted("name") {
            *name = Some(value);
        } else if let Some(value) = quoted("version") {
            *version = Some(value);
        }
    }
    finish(&mut current);
    packages
}

/// A version as `(major, minor, patch, is a release)`: a pre-release comes before its release.
fn version_key(version: &str) -> (u64, u64, u64, bool) {
    let version = version.split('+').next().unwrap_or(version);
    let (core, pre_release) = match version.split_once('-') {
        Some((core, _)) => (core, true),
        None => (version, false),
    };
    let mut numbers = core.split('.').map(|number| number.parse::<u64>().unwrap_or_else(|_| panic!("a version number in {version:?}")));
    let mut next = || numbers.next().unwrap_or(0);
    (next(), next(), next(), !pre_release)
}

/// One line for each locked package at a version an advisory names.
fn affected(lock: &str) -> Vec<String> {
    let packages = locked_packages(lock);
    let mut findings = Vec::new();
    for advisory in ADVISORIES {
        for (name, version) in &packages {
            if name == advisory.package && version_key(version) < version_key(advisory.fixed_in) {
                findings.push(format!("{name} {version} ({}, fixed in {}): {}", advisory.id, advisory.fixed_in, advisory.why));
            }
        }
    }
    findings
}

#[test]
fn no_lock_file_holds_a_version_an_advisory_names() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for lock_file in ["Cargo.lock", "fuzz/Cargo.lock"] {
        let path = workspace.join(lock_file);
        let lock = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let packages = locked_packages(&lock);
        assert!(packages.iter().any(|(name, _)| name == "engine"), "{lock_file} is not read as a lock file of this workspace");
        for advisory in ADVISORIES {
            assert!(
                packages.iter().any(|(name, _)| name == advisory.package),
                "{lock_file} has no {}: is {} still needed?",
                advisory.package,
                advisory.id
            );
        }
        assert_eq!(affected(&lock), Vec::<String>::new(), "{lock_file}");
    }
}

#[test]
fn an_affected_version_is_found() {
    let lock = r#"
version = 4

[[package]]
name = "quick-xml"
version = "0.38.4"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = [
 "memchr",
]

[[package]]
name = "quick-xml"
version = "0.42.0"

[[package]]
name = "not-quick-xml"
version = "0.1.0"

[[package]]
name = "quick-xml"
version = "0.41.0-rc.1"
"#;
    let findings = affected(lock);
    assert_eq!(findings.len(), 4, "{findings:#?}");
    assert!(findings[0].starts_with("quick-xml 0.38.4 (RUSTSEC-2026-0194, fixed in 0.41.0)"), "{}", findings[0]);
    assert!(findings[1].starts_with("quick-xml 0.41.0-rc.1 (RUSTSEC-2026-0194"), "{}", findings[1]);
    assert!(findings[2].starts_with("quick-xml 0.38.4 (RUSTSEC-2026-0195"), "{}", findings[2]);
    assert_eq!(version_key("0.101.7"), (0, 101, 7, true));
    assert!(version_key("0.41.0") < version_key("0.41.1") && version_key("0.9.0") < version_key("0.41.0"));
}
