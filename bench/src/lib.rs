//! Papertide's benchmark harness as a library, so that its scenarios are tested: the `ingest`
//! workload, the `relevance` evaluation, the `digest` run, the `embed` costs (`embedding`) and
//! the `crash` loop (the real binary killed and restarted, its data checked after each kill) and
//! the `http` load on the real binary; the `report` runs several of them at a few sizes and
//! writes their figures, plots and a summary against the targets.
//! The `papertide-bench` binary (`main.rs`) runs them.

pub mod coldstart;
pub mod crash;
pub mod dashboard;
pub mod digest;
pub mod embedding;
pub mod floods;
pub mod http;
pub mod quiet;
pub mod relevance;
pub mod report;
pub mod serving;
pub mod workload;
pub mod wrk;

/// The process's peak resident memory so far (Linux `VmHWM`), in MiB.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    vm_hwm_mib(&status)
}

/// The peak resident memory (`VmHWM`) of a `/proc/PID/status` text, in MiB.
pub fn vm_hwm_mib(status: &str) -> Option<f64> {
    status_mib(status, "VmHWM:")
}

/// The figure of a `/proc/PID/status` line (`VmHWM:`, `VmRSS:`), given in kB, in MiB.
pub fn status_mib(status: &str, field: &str) -> Option<f64> {
    let line = status.lines().find(|line| line.starts_with(field))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kib / 1024.0 * 100.0).round() / 100.0)
}

/// Starts the peak of [`peak_rss_mib`] afresh from the current use (Linux `clear_refs` 5), so a
/// phase's peak can be told from an earlier phase's.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}
