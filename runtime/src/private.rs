//! The data directory and the backups are their owner's alone: folders 0700, files 0600.
//!
//! The `papertide` binary sets its umask to 0o077 before anything else, so that everything it
//! and its libraries (sled, tantivy, the mailer) create is owner-only; the folders it makes on
//! purpose are made with mode 0700 here as well, so that the intent is in the code. Modes found
//! wider (a data directory made by an older papertide, or by hand) are narrowed by
//! [`repair_modes`], which each start runs on the data directory and each backup on its folder.

use std::fs::DirBuilder;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;

use anyhow::Context as _;
use rustix::fs::{FileType, Mode, OFlags};

/// The umask of the `papertide` binary: nothing for the group, nothing for others.
pub const PRIVATE_UMASK: u32 = 0o077;
/// The permission bits a private path never has.
const SHARED_BITS: u32 = 0o077;

/// Sets the process's umask to [`PRIVATE_UMASK`]; called first thing by the binary.
pub fn set_private_umask() {
    rustix::process::umask(Mode::from_raw_mode(PRIVATE_UMASK));
}

/// Creates `dir` and its missing parents, each with mode 0700 (a folder that exists is left as
/// it is).
pub fn create_private_dir_all(dir: &Path) -> std::io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Takes the group's and others' permissions off `root` and every file and folder under it,
/// without following symbolic links (a link is neither changed nor followed); answers how many
/// paths were narrowed. A `root` that does not exist has none.
pub fn repair_modes(root: &Path) -> anyhow::Result<usize> {
    let mut repaired = 0;
    let mut pending = vec![root.to_owned()];
    while let Some(path) = pending.pop() {
        let metadata = match path.symlink_metadata() {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => return Err(error).with_context(|| format!("looking at {}", path.display())),
        };
        let kind = metadata.file_type();
        if !(kind.is_dir() || kind.is_file()) {
            continue;
        }
        if kind.is_dir() {
            // A running service may remove a folder meanwhile (tantivy's merges, sled's blobs).
            let entries = match std::fs::read_dir(&path) {
                Ok(entries) => entries,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(error) => return Err(error).with_context(|| format!("listing {}", path.display())),
            };
            for entry in entries {
                pending.push(entry.with_context(|| format!("listing {}", path.display()))?.path());
            }
        }
        let mode = metadata.permissions().mode();
        if mode & SHARED_BITS != 0 && narrow(&path, mode & 0o7777 & !SHARED_BITS)? {
            repaired += 1;
        }
    }
    Ok(repaired)
}

/// [`repair_modes`] on `root`, logging one warning with the count when it narrowed anything.
pub fn repair_and_warn(root: &Path, what: &str) -> anyhow::Result<usize> {
    let repaired = repair_modes(root)?;
    if repaired > 0 {
        tracing::warn!(
            path = %root.display(),
            repaired,
            "{what} had paths other local users could read or open: their group and other permissions were removed (papertide keeps its files owner-only)"
        );
    }
    Ok(repaired)
}

/// Sets `path`'s mode through a descriptor opened without following a link, so that a link
/// swapped in meanwhile is not followed; answers whether it was a file or folder to narrow. A
/// path gone meanwhile is not; one this user may not change (another user's) is an error.
fn narrow(path: &Path, mode: u32) -> anyhow::Result<bool> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let opened = match rustix::fs::open(path, flags, Mode::empty()) {
        Ok(opened) => opened,
        Err(rustix::io::Errno::NOENT | rustix::io::Errno::LOOP) => return Ok(false),
        Err(error) => return Err(error).with_context(|| format!("opening {} to narrow its mode", path.display())),
    };
    let kind = FileType::from_raw_mode(rustix::fs::fstat(&opened)?.st_mode);
    if !matches!(kind, FileType::RegularFile | FileType::Directory) {
        return Ok(false);
    }
    rustix::fs::fchmod(&opened, Mode::from_raw_mode(mode)).with_context(|| format!("narrowing the mode of {}", path.display()))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode_of(path: &Path) -> u32 {
        path.symlink_metadata().expect("exists").permissions().mode() & 0o777
    }

    #[test]
    fn wider_modes_are_narrowed_and_links_neither_changed_nor_followed() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let outside = folder.path().join("outside.txt");
        std::fs::write(&outside, "not ours")?;
        std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o644))?;
        let root = folder.path().join("data");
        std::fs::create_dir_all(root.join("outbox"))?;
        std::fs::write(root.join("outbox/mail.eml"), "a sign-in link")?;
        std::fs::write(root.join("private"), "already private")?;
        std::fs::set_permissions(root.join("private"), std::fs::Permissions::from_mode(0o600))?;
        std::fs::set_permissions(root.join("outbox/mail.eml"), std::fs::Permissions::from_mode(0o664))?;
        std::fs::set_permissions(root.join("outbox"), std::fs::Permissions::from_mode(0o755))?;
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o750))?;
        std::os::unix::fs::symlink(&outside, root.join("link"))?;

        assert_eq!(repair_modes(&root)?, 3, "the data directory, outbox/ and the mail");
        assert_eq!((mode_of(&root), mode_of(&root.join("outbox")), mode_of(&root.join("outbox/mail.eml"))), (0o700, 0o700, 0o600));
        assert_eq!(mode_of(&outside), 0o644, "a link's target is not ours to change");
        assert_eq!(repair_modes(&root)?, 0, "nothing left to repair");
        assert_eq!(repair_modes(&folder.path().join("missing"))?, 0);
        Ok(())
    }
}
