//! `POST /api/admin/backup`: an operator backs the running service up (see `runtime::backup`)
//! into a new dated folder of the configured backup folder (`PAPERTIDE_BACKUP_DIR`). The request
//! names no folder: a signed-in operator's that does is refused. Only the local operator (the
//! command line, `papertide backup DEST`, on the data directory's socket) names one, outside the
//! data directory.

use std::path::{Path, PathBuf};

use actix_web::web;
use chrono::Utc;

use crate::auth::Operator;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::wire::backup::{BackupReport, BackupRequest};

pub fn configure(routes: &mut ApiRoutes) {
    routes.post("/admin/backup", back_up);
}

/// Copies the database, then the index, into a new dated folder of the configured backup
/// folder; or, for the local operator, into the folder it names.
async fn back_up(operator: Operator, state: web::Data<AppState>, request: web::Json<BackupRequest>) -> ApiResult<web::Json<BackupReport>> {
    let source = runtime::backup::IndexSource::Writer(state.indexer.clone());
    let store = state.store.clone();
    let made = match request.into_inner().dest {
        Some(_) if operator.account().is_some() => {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                "A backup goes into the folder the service is configured with (PAPERTIDE_BACKUP_DIR); a request names no folder.",
            ));
        }
        Some(dest) => {
            let dest = local_destination(&dest, &state.settings.data_dir)?;
            runtime::backup::backup(store, source, dest.clone()).await.map_err(|error| refusal(&error, &dest, true))
        }
        None => {
            let Some(dir) = state.settings.backup_dir.as_ref() else {
                return Err(ApiError::new(
                    ErrorCode::BackupDirUnset,
                    "No backup folder is configured: set PAPERTIDE_BACKUP_DIR to the folder backups go to, and restart the service.",
                ));
            };
            runtime::backup::backup_into(store, source, dir, Utc::now()).await.map_err(|error| refusal(&error, dir, false))
        }
    };
    let report = made?;
    let by = operator.account().map(|user| user.email.clone()).unwrap_or_else(|| "the local operator".into());
    tracing::info!(path = %report.path.display(), by, users = report.users, papers = report.papers, "backup made");
    Ok(web::Json(report.into()))
}

/// The folder the local operator names: absolute, outside the data directory, new or empty.
fn local_destination(dest: &str, data_dir: &Path) -> ApiResult<PathBuf> {
    let dest = PathBuf::from(dest.trim());
    if !dest.is_absolute() {
        return Err(ApiError::new(ErrorCode::BadRequest, "The backup's folder must be an absolute path."));
    }
    runtime::backup::check_outside_data_dir(&dest, data_dir)
        .and_then(|()| runtime::backup::check_destination(&dest))
        .map_err(|error| refusal(&error, &dest, true))?;
    Ok(dest)
}

/// What a failed backup answers: a refusal the operator can act on, or a 500 that logs its cause.
/// A folder the request `named` that cannot be used is the request's fault (400); the configured
/// folder's is the service's (500).
fn refusal(error: &anyhow::Error, dest: &Path, named: bool) -> ApiError {
    if error.downcast_ref::<runtime::backup::DestinationNotEmpty>().is_some() {
        return ApiError::new(ErrorCode::BackupDestNotEmpty, format!("{} is not empty: a backup goes into a new or empty folder.", dest.display()));
    }
    if error.downcast_ref::<runtime::backup::DestinationInsideDataDir>().is_some() {
        return ApiError::new(
            ErrorCode::BadRequest,
            format!("{} is inside the data directory: a backup goes into a folder outside it.", dest.display()),
        );
    }
    let not_created = error.downcast_ref::<runtime::backup::DestinationNotCreated>();
    match not_created {
        Some(not_created) if named => {
            return ApiError::new(
                ErrorCode::BadRequest,
                format!("The backup folder {} cannot be created: {}.", not_created.path.display(), not_created.source),
            );
        }
        None if named && error.downcast_ref::<std::io::Error>().is_some() => {
            return ApiError::new(ErrorCode::BadRequest, format!("The backup folder {} cannot be used: {error:#}.", dest.display()));
        }
        _ => {}
    }
    ApiError::internal(format!("the backup to {} failed: {error:#}", dest.display()))
}
