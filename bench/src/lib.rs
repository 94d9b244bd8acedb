//! Papertide's benchmark harness as a library, so that its scenarios are tested: the `ingest`
//! workload, the `relevance` evaluation and the `digest` run. The `papertide-bench` binary (`main.rs`) runs them.

pub mod digest;
pub mod relevance;
pub mod workload;

/// The process's peak resident memory so far (Linux `VmHWM`), in MiB.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kib / 1024.0 * 100.0).round() / 100.0)
}

/// Starts the peak of [`peak_rss_mib`] afresh from the current use (Linux `clear_refs` 5), so a
/// phase's peak can be told from an earlier phase's.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The embedding model folder to use: `explicit`, else `$PAPERTIDE_EMBED_MODEL_DIR`, else the
/// default data directory's (`papertide-data/models/all-minilm-l6-v2`, where `papertide model
/// fetch` puts it), else the test command's cache (`~/.cache/papertide/data/models/…`); `None`
/// when none of them holds a model.
pub fn model_dir(explicit: Option<std::path::PathBuf>) -> Option<std::path::PathBuf> {
    if explicit.is_some() {
        return explicit;
    }
    let configured = std::env::var_os("PAPERTIDE_EMBED_MODEL_DIR").map(std::path::PathBuf::from);
    let default = std::path::Path::new("papertide-data/models").join(embed::package::DEFAULT_MODEL_NAME);
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| std::path::Path::new(&home).join(".cache")))
        .map(|cache| cache.join("papertide/data/models").join(embed::package::DEFAULT_MODEL_NAME));
    if configured.is_some() {
        return configured;
    }
    [Some(default), cache].into_iter().flatten().find(|dir| dir.join("model.safetensors").is_file())
}
