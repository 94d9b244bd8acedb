//! The mail: how it leaves (SMTP or the outbox folder), how the last hand-overs went (the
//! mailer's board entry), the queue's depth, and the mail given up for good, which the operator
//! sends again (once the cause is repaired) or drops.

use actix_web::web;
use actors::mailer::ACTOR_NAME as MAILER;
use actors::ActorStatus;
use chrono::Utc;

use crate::auth::Operator;
use crate::error::{ApiError, ApiResult};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::wire::admin::{AdminMail, DeadMail, MailTransportKind, SmtpState, SmtpStatus};
use crate::wire::Message;

pub fn configure(routes: &mut ApiRoutes) {
    routes.get("/admin/mail", mail).post("/admin/mail/dead/{mail_id}/retry", retry).delete("/admin/mail/dead/{mail_id}", drop_dead);
}

/// `ok` when the last hand-over came after the last error, `failing` when the last error is
/// newer, `idle` when there was neither.
pub fn smtp_state(status: &ActorStatus) -> SmtpState {
    match (status.last_success_at, status.last_error_at) {
        (None, None) => SmtpState::Idle,
        (Some(_), None) => SmtpState::Ok,
        (None, Some(_)) => SmtpState::Failing,
        (Some(success), Some(error)) if success > error => SmtpState::Ok,
        (Some(_), Some(_)) => SmtpState::Failing,
    }
}

/// `GET /api/admin/mail`.
async fn mail(state: web::Data<AppState>, _operator: Operator) -> ApiResult<web::Json<AdminMail>> {
    let transport = if state.settings.smtp_url.is_some() { MailTransportKind::Smtp } else { MailTransportKind::Outbox };
    let status = state.board.get(MAILER).unwrap_or_default();
    let dead = state
        .store
        .mail()
        .dead()?
        .into_iter()
        .map(|queued| DeadMail {
            id: queued.id.to_string(),
            to: queued.mail.to,
            subject: queued.mail.subject,
            failed_at: queued.next_attempt_at.max(queued.enqueued_at),
            attempts: queued.attempts,
            error: queued.last_error,
        })
        .collect();
    let smtp = SmtpStatus {
        state: smtp_state(&status),
        last_success_at: status.last_success_at,
        last_error_at: status.last_error_at,
        last_error: status.last_error,
    };
    Ok(web::Json(AdminMail { transport, smtp, queued: state.store.mail().queue_len() as u64, dead }))
}

/// `POST /api/admin/mail/dead/{mailId}/retry`: the mail goes back into the queue, due now, and
/// the mailer is told.
async fn retry(state: web::Data<AppState>, _operator: Operator, mail_id: web::Path<String>) -> ApiResult<web::Json<Message>> {
    let id = mail_id_of(&mail_id)?;
    if !state.store.mail().retry_dead(id, Utc::now())? {
        return Err(no_such_mail());
    }
    state.store.flush_async().await?;
    state.poke_mailer();
    tracing::info!(mail = id, "an operator queued a dead mail again");
    Ok(web::Json(Message::new("The mail is back in the queue and goes out with the next delivery.")))
}

/// `DELETE /api/admin/mail/dead/{mailId}`: the mail is dropped for good.
async fn drop_dead(state: web::Data<AppState>, _operator: Operator, mail_id: web::Path<String>) -> ApiResult<web::Json<Message>> {
    let id = mail_id_of(&mail_id)?;
    if !state.store.mail().drop_dead(id)? {
        return Err(no_such_mail());
    }
    state.store.flush_async().await?;
    tracing::info!(mail = id, "an operator dropped a dead mail");
    Ok(web::Json(Message::new("The mail was dropped.")))
}

fn mail_id_of(text: &str) -> ApiResult<u64> {
    text.trim().parse().map_err(|_| ApiError::bad_request("This is not a mail id."))
}

fn no_such_mail() -> ApiError {
    ApiError::not_found("There is no such mail among the mail given up.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smtp_state_follows_the_newest_of_success_and_error() {
        let at = |text: &str| Some(text.parse().expect("a time"));
        let status = |success, error| ActorStatus { last_success_at: success, last_error_at: error, ..ActorStatus::default() };
        assert_eq!(smtp_state(&status(None, None)), SmtpState::Idle);
        assert_eq!(smtp_state(&status(at("2026-11-28T10:00:00Z"), None)), SmtpState::Ok);
        assert_eq!(smtp_state(&status(None, at("2026-11-28T10:00:00Z"))), SmtpState::Failing);
        assert_eq!(smtp_state(&status(at("2026-11-28T10:00:01Z"), at("2026-11-28T10:00:00Z"))), SmtpState::Ok);
        assert_eq!(smtp_state(&status(at("2026-11-28T10:00:00Z"), at("2026-11-28T10:00:01Z"))), SmtpState::Failing);
    }
}
