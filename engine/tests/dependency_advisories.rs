//! Every RustSec advisory that names a locked version is written down in SECURITY.md.
//!
//! `security/advisories.toml` is a committed copy of every advisory of the RustSec database that
//! names a package of `Cargo.lock` or `fuzz/Cargo.lock` (its id, package, date and the versions
//! it leaves out: patched and unaffected), written by `scripts/advisories.py` from a copy of the
//! database. This test reads both lock files and fails on a locked package at a version one of
//! those advisories names unless SECURITY.md ("Dependency advisories") has a bullet for that
//! package, version and id — the place that says whether it is reachable and why it stays. So a
//! downgrade, a new dependency that brings an affected copy, or a list refreshed with a new
//! advisory fails it until someone looks; a bullet whose package or version is no longer locked
//! fails it too, so the page never speaks of what is gone. It needs neither the network nor an
//! advisory database, and lives with engine, the quickest crate to build, though it speaks for
//! the whole workspace.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use semver::{Version, VersionReq};
use serde::Deserialize;

/// One advisory of `security/advisories.toml`.
#[derive(Debug, Deserialize)]
struct Advisory {
    id: String,
    package: String,
    date: String,
    /// Versions with the fix; every other version not `unaffected` is affected.
    patched: Vec<String>,
    unaffected: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct AdvisoryList {
    advisory: Vec<Advisory>,
}

impl Advisory {
    /// Whether `version` is one the advisory names: neither patched nor unaffected.
    fn affects(&self, version: &Version) -> bool {
        let leaves_out = |requirement: &String| {
            let requirement = VersionReq::parse(requirement).unwrap_or_else(|error| panic!("{}: {requirement:?}: {error}", self.id));
            requirement.matches(version)
        };
        !self.patched.iter().chain(&self.unaffected).any(leaves_out)
    }
}

/// One locked package at a version an advisory names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Finding {
    package: String,
    version: String,
    id: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} ({})", self.package, self.version, self.id)
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// `(name, version)` of every `[[package]]` in a Cargo.lock.
fn locked_packages(lock: &str) -> Vec<(String, String)> {
    #[derive(Deserialize)]
    struct Lock {
        package: Vec<Package>,
    }
    #[derive(Deserialize)]
    struct Package {
        name: String,
        version: String,
    }
    let lock: Lock = toml::from_str(lock).unwrap_or_else(|error| panic!("not a Cargo.lock: {error}"));
    lock.package.into_iter().map(|package| (package.name, package.version)).collect()
}

/// Every locked package at a version an advisory of `list` names.
fn affected(lock: &str, list: &AdvisoryList) -> BTreeSet<Finding> {
    let mut findings = BTreeSet::new();
    for (name, version) in locked_packages(lock) {
        let parsed = Version::parse(&version).unwrap_or_else(|error| panic!("{name} {version}: {error}"));
        for advisory in list.advisory.iter().filter(|advisory| advisory.package == name && advisory.affects(&parsed)) {
            findings.insert(Finding { package: name.clone(), version: version.clone(), id: advisory.id.clone() });
        }
    }
    findings
}

/// What SECURITY.md's "Dependency advisories" section writes down: each bullet whose bold head
/// starts with a package and its version and names advisory ids (`- **h2 0.3.27, RUSTSEC-…**`).
fn written_down(security: &str) -> BTreeSet<Finding> {
    let section = security.split("\n## Dependency advisories").nth(1).expect("SECURITY.md has a \"Dependency advisories\" section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut written = BTreeSet::new();
    for bullet in section.lines().filter_map(|line| line.strip_prefix("- **")) {
        let Some((head, _)) = bullet.split_once("**") else { continue };
        let mut words = head.split(|c: char| c.is_whitespace() || c == ',').filter(|word| !word.is_empty());
        let (Some(package), Some(version)) = (words.next(), words.next()) else { continue };
        for id in words.filter(|word| word.starts_with("RUSTSEC-")) {
            written.insert(Finding { package: package.to_owned(), version: version.to_owned(), id: id.to_owned() });
        }
    }
    written
}

fn advisory_list() -> AdvisoryList {
    let path = workspace().join("security/advisories.toml");
    toml::from_str(&read(&path)).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn every_advisory_of_a_locked_version_is_written_down_and_nothing_else() {
    let list = advisory_list();
    assert!(list.advisory.len() > 50, "the list holds every advisory of a locked package, not a few");
    for advisory in &list.advisory {
        assert!(advisory.id.starts_with("RUSTSEC-") && advisory.date.len() == 10, "{advisory:?}");
    }
    let mut found = BTreeSet::new();
    for lock_file in ["Cargo.lock", "fuzz/Cargo.lock"] {
        let lock = read(&workspace().join(lock_file));
        assert!(locked_packages(&lock).iter().any(|(name, _)| name == "engine"), "{lock_file} is not read as a lock file of this workspace");
        found.extend(affected(&lock, &list));
    }
    let written = written_down(&read(&workspace().join("SECURITY.md")));
    let unwritten: Vec<String> = found.difference(&written).map(Finding::to_string).collect();
    assert!(unwritten.is_empty(), "locked versions an advisory names, written down nowhere in SECURITY.md: {unwritten:#?}");
    let stale: Vec<String> = written.difference(&found).map(Finding::to_string).collect();
    assert!(stale.is_empty(), "SECURITY.md speaks of versions that are not locked, or advisories that do not name them: {stale:#?}");
}

#[test]
fn an_affected_version_is_found_and_must_be_written_down() {
    let list: AdvisoryList = toml::from_str(
        r#"
[[advisory]]
id = "RUSTSEC-2026-0194"
package = "quick-xml"
date = "2026-06-01"
patched = [">= 0.41.0"]
unaffected = ["< 0.20.0"]

[[advisory]]
id = "RUSTSEC-2026-0002"
package = "lru"
date = "2026-01-07"
patched = [">= 0.16.3"]
unaffected = ["< 0.9.0"]

[[advisory]]
id = "RUSTSEC-2021-0127"
package = "serde_cbor"
date = "2021-08-15"
patched = []
unaffected = []
"#,
    )
    .expect("a list");
    let lock = r#"
version = 4

[[package]]
name = "quick-xml"
version = "0.38.4"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "quick-xml"
version = "0.42.0"

[[package]]
name = "quick-xml"
version = "0.19.0"

[[package]]
name = "lru"
version = "0.12.5"

[[package]]
name = "serde_cbor"
version = "0.11.2"
"#;
    let found: Vec<String> = affected(lock, &list).iter().map(Finding::to_string).collect();
    assert_eq!(found, ["lru 0.12.5 (RUSTSEC-2026-0002)", "quick-xml 0.38.4 (RUSTSEC-2026-0194)", "serde_cbor 0.11.2 (RUSTSEC-2021-0127)"]);

    let security = "# Security\n\n## Dependency advisories\n\nProse naming RUSTSEC-2026-0194 as fixed does not count.\n\n\
                    - **lru 0.12.5, RUSTSEC-2026-0002 and RUSTSEC-2026-0253** (unsound): not reachable.\n\
                    - **serde_cbor 0.11.2, RUSTSEC-2021-0127** (unmaintained): kept.\n\n## Next\n\n- **quick-xml 0.38.4, RUSTSEC-2026-0194**\n";
    let written: Vec<String> = written_down(security).iter().map(Finding::to_string).collect();
    assert_eq!(written, ["lru 0.12.5 (RUSTSEC-2026-0002)", "lru 0.12.5 (RUSTSEC-2026-0253)", "serde_cbor 0.11.2 (RUSTSEC-2021-0127)"]);
    let unwritten: Vec<String> = affected(lock, &list).difference(&written_down(security)).map(Finding::to_string).collect();
    assert_eq!(unwritten, ["quick-xml 0.38.4 (RUSTSEC-2026-0194)"], "the downgrade is caught; a bullet of another section does not count");
}
