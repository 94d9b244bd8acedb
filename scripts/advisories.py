#!/usr/bin/env python3
"""Writes security/advisories.toml: every RustSec advisory that names a package of Cargo.lock or
fuzz/Cargo.lock, read from a checkout of the RustSec advisory database (github.com/rustsec/advisory-db).

    scripts/advisories.py PATH-TO-ADVISORY-DB-CHECKOUT

Entries marked `source = "reported"` in the current list are kept as they are, in place of the
copy's entry of the same id if it has one: advisories published (or revised) after the copy,
written by hand from the report that named them. engine/tests/dependency_advisories.rs
reads the list and fails on a locked version an advisory names unless SECURITY.md writes it down.
"""
import pathlib
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "security" / "advisories.toml"


def locked_names():
    names = set()
    for lock in ["Cargo.lock", "fuzz/Cargo.lock"]:
        data = tomllib.loads((ROOT / lock).read_text())
        names.update(package["name"] for package in data.get("package", []))
    return names


def front_matter(text):
    start = text.index("```toml") + len("```toml")
    end = text.index("```", start)
    return tomllib.loads(text[start:end])


def quote(value):
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    db = pathlib.Path(sys.argv[1])
    commit = subprocess.run(["git", "-C", str(db), "log", "-1", "--format=%H %cs"], capture_output=True, text=True).stdout.split()
    kept = []
    if OUT.exists():
        kept = [entry for entry in tomllib.loads(OUT.read_text()).get("advisory", []) if entry.get("source") == "reported"]
    entries = []
    for name in sorted(locked_names()):
        folder = db / "crates" / name
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            advisory = front_matter(path.read_text())
            head, versions = advisory["advisory"], advisory.get("versions", {})
            if head.get("withdrawn"):
                continue
            entries.append({
                "id": head["id"],
                "package": head["package"],
                "date": str(head["date"]),
                "patched": versions.get("patched", []),
                "unaffected": versions.get("unaffected", []),
                "kind": head.get("informational", "vulnerability"),
            })
    reported = {entry["id"] for entry in kept}
    entries = [entry for entry in entries if entry["id"] not in reported] + kept
    lines = [
        "# RustSec advisories that name a package of Cargo.lock or fuzz/Cargo.lock (any version).",
        f"# From the RustSec advisory database (github.com/rustsec/advisory-db) at commit {commit[0]} ({commit[1]}),",
        "# written by scripts/advisories.py; entries with source = \"reported\" were published after that copy",
        "# and are written by hand from the report that named them.",
        "# engine/tests/dependency_advisories.rs fails on a locked version one of them names unless",
        "# SECURITY.md (\"Dependency advisories\") has a bullet for that package, version and id.",
        "",
    ]
    for entry in sorted(entries, key=lambda entry: (entry["package"], entry["id"])):
        lines.append("[[advisory]]")
        for key in ["id", "package", "date", "kind"]:
            lines.append(f"{key} = {quote(entry[key])}")
        for key in ["patched", "unaffected"]:
            lines.append(f"{key} = [{', '.join(quote(value) for value in entry[key])}]")
        for key in ["source", "note"]:
            if key in entry:
                lines.append(f"{key} = {quote(entry[key])}")
        lines.append("")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines))
    print(f"{len(entries)} advisories written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
