//! Where a folder really is, for the settings that must not point into one another (the backup
//! folder and the data directory).

use std::path::{Component, Path, PathBuf};

/// `path` made absolute, its longest part that exists resolved (symbolic links, `..`), and the
/// rest appended as written (`.` dropped, `..` taken as the parent).
pub fn resolved(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut existing = absolute.as_path();
    let mut missing: Vec<Component<'_>> = Vec::new();
    let mut base = loop {
        match existing.canonicalize() {
            Ok(real) => break real,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
        let Some(parent) = existing.parent() else { break existing.to_owned() };
        missing.extend(existing.components().next_back());
        existing = parent;
    };
    for part in missing.into_iter().rev() {
        match part {
            Component::ParentDir => {
                base.pop();
            }
            Component::Normal(name) => base.push(name),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    Ok(base)
}

/// Whether `inner` is `outer` or a path under it, both [`resolved`].
pub fn is_within(inner: &Path, outer: &Path) -> std::io::Result<bool> {
    Ok(resolved(inner)?.starts_with(resolved(outer)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_within_another_through_dots_and_links_but_not_beside_it() -> std::io::Result<()> {
        let folder = tempfile::tempdir()?;
        let data = folder.path().join("data");
        std::fs::create_dir_all(data.join("db"))?;
        std::os::unix::fs::symlink(&data, folder.path().join("link"))?;
        assert!(is_within(&data.join("backups/new"), &data)?);
        assert!(is_within(&folder.path().join("other/../data/db/x"), &data)?, "through .. of a folder that does not exist");
        assert!(is_within(&folder.path().join("link/new"), &data)?, "through a link");
        assert!(is_within(&data, &data)?);
        assert!(!is_within(&folder.path().join("data-backups"), &data)?, "a name that starts alike");
        assert!(!is_within(&data.join("../backups"), &data)?);
        Ok(())
    }
}
