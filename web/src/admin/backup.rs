//! `POST /api/admin/backup`: an operator backs the running service up (see `runtime::backup`).

use std::path::PathBuf;

use actix_web::web;
use chrono::Utc;

use crate::auth::Operator;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::routes::{ApiRoutes, WireTypes};
use crate::state::AppState;
use crate::wire::backup::{BackupReport, BackupRequest};

pub fn configure(routes: &mut ApiRoutes) {
    routes.post("/admin/backup", back_up, WireTypes::of::<BackupRequest, BackupReport>());
}

/// Copies the database, then the index, into `dest` (an absolute path to a new or empty folder)
/// or a new dated folder in the configured backup folder.
async fn back_up(operator: Operator, state: web::Data<AppState>, request: web::Json<BackupRequest>) -> ApiResult<web::Json<BackupReport>> {
    let dest = match request.into_inner().dest {
        Some(dest) => {
            let dest = PathBuf::from(dest.trim());
            if !dest.is_absolute() {
                return Err(ApiError::new(ErrorCode::BadRequest, "The backup's folder must be an absolute path."));
            }
            dest
        }
        None => {
            let Some(dir) = state.settings.backup_dir.as_ref() else {
                return Err(ApiError::new(
                    ErrorCode::BackupDirUnset,
                    "No backup folder is configured (PAPERTIDE_BACKUP_DIR): name the folder to write the backup to.",
                ));
            };
            dir.join(runtime::backup::dated_folder_name(Utc::now()))
        }
    };
    if runtime::backup::check_destination(&dest).is_err() {
        return Err(not_empty(&dest));
    }
    let source = runtime::backup::IndexSource::Writer(state.indexer.clone());
    let by = operator.account().map(|user| user.email.clone()).unwrap_or_else(|| "the local operator".into());
    match runtime::backup::backup(state.store.clone(), source, dest.clone()).await {
        Ok(report) => {
            tracing::info!(path = %report.path.display(), by, users = report.users, papers = report.papers, "backup made");
            Ok(web::Json(report.into()))
        }
        Err(error) if error.downcast_ref::<runtime::backup::DestinationNotEmpty>().is_some() => Err(not_empty(&dest)),
        Err(error) => Err(ApiError::internal(format!("the backup to {} failed: {error:#}", dest.display()))),
    }
}

fn not_empty(dest: &std::path::Path) -> ApiError {
    ApiError::new(ErrorCode::BackupDestNotEmpty, format!("{} is not empty: a backup goes into a new or empty folder.", dest.display()))
}
