//! Citations for reference managers: BibTeX and RIS files of one paper of the user's digests
//! (`GET /api/papers/citation?key=&format=`), of a digest (`GET /api/digests/{digestId}/citations`)
//! and of a term's whole history (`GET /api/search-terms/{termId}/citations`), for the signed-in
//! owner; and of a digest from the link in its mail (`GET /api/citations/link?token=&format=`),
//! where the signed link (`engine::signed::CitationClaim`) is the authority.
//!
//! A paper's citation is read from the index when the paper is still there (every author, the
//! date), else from the digest's own record of it.

use actix_web::http::header;
use actix_web::{web, HttpRequest};
use engine::citation::{bibtex, ris, Citation};
use engine::dedup::DedupKey;
use engine::digest::{Digest, DigestEntry};
use engine::signed::CitationClaim;
use uuid::Uuid;

use crate::auth::SignedIn;
use crate::error::{ApiError, ApiResult};
use crate::routes::{ApiRoutes, Text, TextMedia};
use crate::state::AppState;
use crate::terms::owned_term;
use crate::wire::workflows::{CitationFormat, CitationLinkQuery, CitationQuery, PaperCitationQuery};

const MSG_NO_DIGEST: &str = "Digest not found";
const MSG_NO_PAPER: &str = "This paper is not in any of your digests.";
const MSG_KEY_REQUIRED: &str = "key is required";
pub const MSG_LINK_INVALID: &str = "This citations link is not valid.";

pub fn configure(routes: &mut ApiRoutes) {
    routes
        .get("/papers/citation", paper)
        .get("/digests/{digest_id}/citations", digest)
        .get("/search-terms/{term_id}/citations", term_history)
        .get("/citations/link", from_link);
}

/// `GET /api/papers/citation?key=doi:…&format=ris|bibtex`: a paper of one of the user's digests.
async fn paper(state: web::Data<AppState>, signed_in: SignedIn, query: web::Query<PaperCitationQuery>) -> ApiResult<Text<CitationFile>> {
    let key = query.key.as_deref().map(str::trim).filter(|key| !key.is_empty()).ok_or_else(|| ApiError::bad_request(MSG_KEY_REQUIRED))?;
    let digests = state.store.digests().of_user(signed_in.user.id)?;
    let entry = digests.iter().flat_map(|digest| &digest.papers_data).find(|entry| entry.keys.iter().any(|known| known == key));
    let entry = entry.ok_or_else(|| ApiError::not_found(MSG_NO_PAPER))?;
    let citation = citation_of(&state, entry);
    let name = file_stem(&citation.title);
    Ok(file(query.format.unwrap_or_default(), &[citation], &name))
}

/// `GET /api/digests/{digestId}/citations?format=`: every paper of one of the user's digests.
async fn digest(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    digest_id: web::Path<String>,
    query: web::Query<CitationQuery>,
) -> ApiResult<Text<CitationFile>> {
    let id: Uuid = digest_id.parse().map_err(|_| ApiError::not_found(MSG_NO_DIGEST))?;
    let digest = state.store.digests().user_digest(signed_in.user.id, id)?.ok_or_else(|| ApiError::not_found(MSG_NO_DIGEST))?;
    Ok(digest_file(&state, &digest, query.format.unwrap_or_default()))
}

/// `GET /api/search-terms/{termId}/citations?format=`: every paper the term's digests sent, each
/// once, newest digest first.
async fn term_history(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    term_id: web::Path<String>,
    query: web::Query<CitationQuery>,
) -> ApiResult<Text<CitationFile>> {
    let term = owned_term(&state, &signed_in, &term_id)?;
    let digests = state.store.digests().of_user(signed_in.user.id)?;
    let mut seen = std::collections::HashSet::new();
    let entries: Vec<&DigestEntry> = digests
        .iter()
        .filter(|digest| digest.term_id == Some(term.id))
        .flat_map(|digest| &digest.papers_data)
        .filter(|entry| entry.keys.first().is_none_or(|key| seen.insert(key.clone())))
        .collect();
    let citations: Vec<Citation> = entries.into_iter().map(|entry| citation_of(&state, entry)).collect();
    let name = format!("papertide-{}-history", file_stem(&term.term));
    Ok(file(query.format.unwrap_or_default(), &citations, &name))
}

/// `GET /api/citations/link?token=&format=`: a digest's citations from its mail. A wrong token
/// counts against the client's link guesses, like a rating link's.
async fn from_link(state: web::Data<AppState>, request: HttpRequest, query: web::Query<CitationLinkQuery>) -> ApiResult<Text<CitationFile>> {
    let ip = crate::security::client_ip(&request, state.settings.trust_proxy);
    let guesses = state.settings.rate_limits.link_guesses;
    state.limiter.check_not_over("link-guess", &ip, guesses)?;
    let key = state.store.ratings().link_key_if_made()?.unwrap_or_default();
    let claim = (!key.is_empty()).then(|| CitationClaim::verify(&key, query.token.as_deref().unwrap_or_default())).flatten();
    let Some(claim) = claim else {
        state.limiter.check("link-guess", &ip, guesses)?;
        return Err(ApiError::bad_request(MSG_LINK_INVALID));
    };
    let digest = state.store.digests().user_digest(claim.user_id, claim.digest_id)?.ok_or_else(|| ApiError::not_found(MSG_NO_DIGEST))?;
    Ok(digest_file(&state, &digest, query.format.unwrap_or_default()))
}

fn digest_file(state: &AppState, digest: &Digest, format: CitationFormat) -> Text<CitationFile> {
    let citations: Vec<Citation> = digest.papers_data.iter().map(|entry| citation_of(state, entry)).collect();
    let name = format!("papertide-{}-{}", file_stem(&digest.search_term), digest.sent_at.format("%Y-%m-%d"));
    file(format, &citations, &name)
}

/// The citation of a digest's paper: from the index when the paper is there, else from the
/// digest's record of it.
pub fn citation_of(state: &AppState, entry: &DigestEntry) -> Citation {
    let indexed = entry.keys.first().and_then(|key| DedupKey::parse(key)).and_then(|key| state.index.find(&key).ok().flatten());
    match indexed {
        Some(paper) => Citation::from(&paper),
        None => Citation::from_entry(entry),
    }
}

/// A citation file's media types: RIS or BibTeX.
pub struct CitationFile;

impl TextMedia for CitationFile {
    const MEDIA_TYPES: &'static [&'static str] = &["application/x-research-info-systems", "application/x-bibtex"];
}

fn file(format: CitationFormat, citations: &[Citation], name: &str) -> Text<CitationFile> {
    let (text, extension, content_type) = match format {
        CitationFormat::Ris => (ris(citations), "ris", "application/x-research-info-systems; charset=utf-8"),
        CitationFormat::Bibtex => (bibtex(citations), "bib", "application/x-bibtex; charset=utf-8"),
    };
    Text::new(content_type, text)
        .header(header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}.{extension}\""))
        .header(header::CACHE_CONTROL, "private, no-store")
}

/// A file name's part from `text`: lower-case ASCII letters and digits, words joined by `-`, at
/// most 40 characters; "papers" when nothing is left.
fn file_stem(text: &str) -> String {
    let mut stem = String::new();
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|word| !word.is_empty()) {
        if stem.len() + word.len() + 1 > 40 {
            break;
        }
        if !stem.is_empty() {
            stem.push('-');
        }
        stem.push_str(&word.to_ascii_lowercase());
    }
    if stem.is_empty() {
        "papers".to_owned()
    } else {
        stem
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stems_are_safe_in_a_header() {
        assert_eq!(file_stem("CRISPR \"base\" editing; 2024"), "crispr-base-editing-2024");
        assert_eq!(file_stem("β-амилоид"), "papers");
        assert!(file_stem(&"word ".repeat(30)).len() <= 40);
    }
}
