//! `POST /api/admin/backup`: a backup of the running service.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;

/// A backup goes into a new dated folder of the configured backup folder (`PAPERTIDE_BACKUP_DIR`):
/// `dest` is absent or null. Only the local operator (the command line, on the data directory's
/// socket) names a folder in `dest`: an absolute path outside the data directory to a new or
/// empty folder; a signed-in operator's request that names one is refused (400).
#[derive(Debug, Clone, Default, Serialize, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BackupRequest {
    #[ts(optional = nullable)]
    pub dest: Option<String>,
}

/// What a backup copied.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackupReport {
    /// The backup's folder.
    pub path: String,
    pub created_at: DateTime<Utc>,
    /// The database's schema version.
    pub schema_version: u32,
    /// Bytes of the database's copy.
    #[ts(type = "number")]
    pub store_bytes: u64,
    /// Bytes of the index's copy.
    #[ts(type = "number")]
    pub index_bytes: u64,
    /// Files written, the manifest included.
    pub files: usize,
    #[ts(type = "number")]
    pub users: u64,
    #[ts(type = "number")]
    pub papers: u64,
    #[ts(type = "number")]
    pub took_ms: u64,
}

impl From<runtime::backup::BackupReport> for BackupReport {
    fn from(report: runtime::backup::BackupReport) -> BackupReport {
        BackupReport {
            path: report.path.display().to_string(),
            created_at: report.created_at,
            schema_version: report.schema_version,
            store_bytes: report.store_bytes,
            index_bytes: report.index_bytes,
            files: report.files,
            users: report.users,
            papers: report.papers,
            took_ms: u64::try_from(report.took.as_millis()).unwrap_or(u64::MAX),
        }
    }
}
