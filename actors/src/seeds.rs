//! [`SeedLookup`]: the papers a researcher names as seeds (DOIs, PMIDs, arXiv ids, read by
//! `engine::seed`), found by identifier: in the index first, then at the source that holds such
//! identifiers, and what a source brings is indexed before the answer is given.
//!
//! The order, for each distinct identifier:
//! 1. **The index** (`PaperIndex::find` by the identifier's dedup key, on the blocking pool): a
//!    paper found there is [`SeedOutcome::InIndex`] and no source is asked for it.
//! 2. **The source**, for the rest, all sources at once:
//!    - PMIDs: PubMed, one EFetch of all of them;
//!    - arXiv ids: arXiv, one `id_list` request (per 100 ids);
//!    - DOIs under a bioRxiv/medRxiv prefix (`engine::parse::biorxiv::is_preprint_server_doi`):
//!      bioRxiv, then medRxiv, and when neither has a post under it, Crossref (Cold Spring
//!      Harbor's journals share the `10.1101/` prefix);
//!    - every other DOI: Crossref (a DOI PubMed also has is fine there: the index merges the two
//!      records when PubMed's comes).
//! 3. **The index again**: the papers that came back are sent to the [`Indexer`] in one batch per
//!    source and committed before `resolve` returns (the vectorizer embeds them from the commit
//!    on), then they are [`SeedOutcome::Fetched`]. A paper counts only if one of its dedup keys
//!    is the identifier asked for; anything else a source sends is neither indexed nor returned.
//!
//! One deadline ([`DEFAULT_TIMEOUT`], 30 s, by default) covers a whole `resolve`: the index's
//! reads, every source's answer and the indexing. What is not done by then is
//! [`SeedOutcome::Failed`] with a message for the researcher ("PubMed did not answer in time;
//! try again later"); papers already sent to the indexer are still indexed, for the next try.
//! A source this lookup has no client for is `Failed` too ("… is not available on this
//! installation"). Identifiers that cannot be sent (not a PMID, arXiv id or DOI) are `Failed`
//! before anything is asked. The clients are the harvest's own, so their pacing, retries and
//! `Retry-After` pauses are shared with it.
//!
//! Architecture invariant: seeds write the index only through the [`Indexer`].

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::time::Duration;

use actix::Addr;
use engine::dedup::dedup_keys;
use engine::paper::{normalize_doi, Paper, Parsed, Source};
use engine::parse::biorxiv::is_preprint_server_doi;
use engine::seed::SeedId;
use index::PaperIndex;
use tokio::time::Instant;

use crate::indexer::{Indexer, Ingest};
use crate::sources::arxiv::is_arxiv_id;
use crate::sources::{ArxivClient, BiorxivClient, CrossrefClient, ErrorKind, PubmedClient, SourceError};

/// How long a lookup waits at most, by default: the index, the sources and the indexing.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Looks seeds up; see the module documentation. Cheap to clone (the clients share their pacing).
#[derive(Clone)]
pub struct SeedLookup {
    index: PaperIndex,
    indexer: Addr<Indexer>,
    pubmed: Option<PubmedClient>,
    arxiv: Option<ArxivClient>,
    biorxiv: Option<BiorxivClient>,
    crossref: Option<CrossrefClient>,
    timeout: Duration,
}

/// What became of one identifier asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedFound {
    pub id: SeedId,
    pub outcome: SeedOutcome,
}

/// Where a seed's paper was found, or why it was not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedOutcome {
    /// The index had it; no source was asked.
    InIndex(Paper),
    /// A source had it; it is in the index now.
    Fetched(Paper),
    /// Every place that could hold it was asked and none has it.
    NotFound,
    /// It could not be looked up, and why, in words for the researcher.
    Failed(String),
}

/// What one place answered about one identifier.
enum Answer {
    Found(Box<Paper>),
    Absent,
    Failed(String),
}

impl SeedLookup {
    /// A lookup in `index` that asks no source yet (see the `with_*` methods), indexing what
    /// sources bring through `indexer`.
    pub fn new(index: PaperIndex, indexer: Addr<Indexer>) -> SeedLookup {
        SeedLookup { index, indexer, pubmed: None, arxiv: None, biorxiv: None, crossref: None, timeout: DEFAULT_TIMEOUT }
    }

    /// Asks PubMed for PMIDs.
    pub fn with_pubmed(self, client: PubmedClient) -> SeedLookup {
        SeedLookup { pubmed: Some(client), ..self }
    }

    /// Asks arXiv for arXiv ids.
    pub fn with_arxiv(self, client: ArxivClient) -> SeedLookup {
        SeedLookup { arxiv: Some(client), ..self }
    }

    /// Asks bioRxiv and medRxiv for DOIs under their prefixes.
    pub fn with_biorxiv(self, client: BiorxivClient) -> SeedLookup {
        SeedLookup { biorxiv: Some(client), ..self }
    }

    /// Asks Crossref for the other DOIs.
    pub fn with_crossref(self, client: CrossrefClient) -> SeedLookup {
        SeedLookup { crossref: Some(client), ..self }
    }

    /// Waits at most `timeout` for one [`SeedLookup::resolve`].
    pub fn with_timeout(self, timeout: Duration) -> SeedLookup {
        SeedLookup { timeout, ..self }
    }

    /// What became of each of `ids`, in their order (an identifier given twice is looked up
    /// once and answered twice). Never fails as a whole: see the module documentation.
    pub async fn resolve(&self, ids: &[SeedId]) -> Vec<SeedFound> {
        let deadline = Instant::now() + self.timeout;
        let mut seen = HashSet::new();
        let distinct: Vec<SeedId> = ids.iter().filter(|id| seen.insert(*id)).cloned().collect();
        let mut outcomes = self.look_in_index(&distinct, deadline).await;
        let (mut pmids, mut arxiv_ids, mut dois) = (Vec::new(), Vec::new(), Vec::new());
        let not_in_index: Vec<SeedId> = distinct.into_iter().filter(|id| !outcomes.contains_key(id)).collect();
        for id in not_in_index {
            if let Some(refusal) = unsendable(&id) {
                outcomes.insert(id, SeedOutcome::Failed(refusal));
                continue;
            }
            match id {
                SeedId::Pmid(_) => pmids.push(id),
                SeedId::Arxiv(_) => arxiv_ids.push(id),
                SeedId::Doi(_) => dois.push(id),
            }
        }
        let (pubmed, arxiv, by_doi) =
            futures_util::future::join3(self.ask_pubmed(pmids, deadline), self.ask_arxiv(arxiv_ids, deadline), self.ask_by_doi(dois, deadline)).await;
        outcomes.extend(pubmed.into_iter().chain(arxiv).chain(by_doi));
        ids.iter()
            .map(|id| {
                let outcome = outcomes.get(id).cloned().unwrap_or_else(|| SeedOutcome::Failed("the lookup was interrupted; try again".into()));
                SeedFound { id: id.clone(), outcome }
            })
            .collect()
    }

    /// The ids the index has, and those it could not be searched for; the rest are not in the
    /// map.
    async fn look_in_index(&self, ids: &[SeedId], deadline: Instant) -> HashMap<SeedId, SeedOutcome> {
        const UNREADABLE: &str = "the paper index could not be searched; try again later";
        let index = self.index.clone();
        let wanted = ids.to_vec();
        let reads = tokio::task::spawn_blocking(move || wanted.into_iter().map(|id| (index.find(&id.key()), id)).collect::<Vec<_>>());
        let failed_all = || ids.iter().map(|id| (id.clone(), SeedOutcome::Failed(UNREADABLE.into()))).collect();
        match tokio::time::timeout_at(deadline, reads).await {
            Ok(Ok(found)) => found
                .into_iter()
                .filter_map(|(found, id)| match found {
                    Ok(Some(paper)) => Some((id, SeedOutcome::InIndex(paper))),
                    Ok(None) => None,
                    Err(error) => {
                        tracing::warn!(%error, seed = ?id, "the index could not be searched for a seed");
                        Some((id, SeedOutcome::Failed(UNREADABLE.into())))
                    }
                })
                .collect(),
            Ok(Err(stopped)) => {
                tracing::error!(error = %stopped, "the index's reads for seeds stopped");
                failed_all()
            }
            Err(_) => failed_all(),
        }
    }

    /// PubMed's answers for these PMIDs, from one EFetch, indexed.
    async fn ask_pubmed(&self, ids: Vec<SeedId>, deadline: Instant) -> Vec<(SeedId, SeedOutcome)> {
        if ids.is_empty() {
            return Vec::new();
        }
        let Some(client) = &self.pubmed else {
            return unavailable(ids, "PubMed");
        };
        let pmids: Vec<String> = ids.iter().map(id_text).collect();
        let fetched = within(deadline, client.fetch_ids(&pmids, None)).await;
        let answers = batch_answers(ids, "PubMed", fetched);
        self.index_found(answers, "PubMed", deadline).await
    }

    /// arXiv's answers for these ids, from one `id_list` request, indexed.
    async fn ask_arxiv(&self, ids: Vec<SeedId>, deadline: Instant) -> Vec<(SeedId, SeedOutcome)> {
        if ids.is_empty() {
            return Vec::new();
        }
        let Some(client) = &self.arxiv else {
            return unavailable(ids, "arXiv");
        };
        let arxiv_ids: Vec<String> = ids.iter().map(id_text).collect();
        let fetched = within(deadline, client.fetch_ids(&arxiv_ids)).await;
        let answers = batch_answers(ids, "arXiv", fetched);
        self.index_found(answers, "arXiv", deadline).await
    }

    /// Each DOI at bioRxiv/medRxiv or Crossref (all at once, each client pacing its own), then
    /// what was found indexed in one batch.
    async fn ask_by_doi(&self, ids: Vec<SeedId>, deadline: Instant) -> Vec<(SeedId, SeedOutcome)> {
        if ids.is_empty() {
            return Vec::new();
        }
        let asks = ids.into_iter().map(|id| async move {
            let answer = self.ask_one_doi(&id_text(&id), deadline).await;
            (id.clone(), keep_if_matching(&id, answer))
        });
        let answers = futures_util::future::join_all(asks).await;
        self.index_found(answers, "bioRxiv, medRxiv or Crossref", deadline).await
    }

    /// One DOI: bioRxiv, then medRxiv, for their prefixes; then Crossref.
    async fn ask_one_doi(&self, doi: &str, deadline: Instant) -> Answer {
        let preprint_prefix = is_preprint_server_doi(doi);
        let mut asked_preprint_servers = false;
        if let Some(client) = self.biorxiv.as_ref().filter(|_| preprint_prefix) {
            asked_preprint_servers = true;
            for (server, name) in [(Source::Biorxiv, "bioRxiv"), (Source::Medrxiv, "medRxiv")] {
                match within(deadline, client.fetch_doi(server, doi)).await {
                    Some(Ok(Some(paper))) => return Answer::Found(Box::new(paper)),
                    Some(Ok(None)) => {}
                    // Not there, or a DOI the API's path cannot carry (never sent): Crossref may know it.
                    Some(Err(error)) if error.kind() == ErrorKind::NotFound || error.attempts == 0 => {}
                    Some(Err(error)) => return Answer::Failed(source_failure(name, &error)),
                    None => return Answer::Failed(late(name)),
                }
            }
        }
        let Some(client) = &self.crossref else {
            return Answer::Failed(match (preprint_prefix, asked_preprint_servers) {
                (true, true) => "neither bioRxiv nor medRxiv has it, and Crossref is not available on this installation".into(),
                (true, false) => "bioRxiv, medRxiv and Crossref are not available on this installation".into(),
                (false, _) => "Crossref is not available on this installation".into(),
            });
        };
        match within(deadline, client.work(doi)).await {
            Some(Ok(Some(paper))) => Answer::Found(Box::new(paper)),
            Some(Ok(None)) => Answer::Absent,
            Some(Err(error)) => Answer::Failed(source_failure("Crossref", &error)),
            None => Answer::Failed(late("Crossref")),
        }
    }

    /// Indexes the papers found (one batch, committed, within the deadline) and gives every
    /// answer its outcome: found and indexed is `Fetched`; found but not indexed is `Failed`.
    async fn index_found(&self, answers: Vec<(SeedId, Answer)>, asked: &str, deadline: Instant) -> Vec<(SeedId, SeedOutcome)> {
        let papers: Vec<Paper> =
            answers.iter().filter_map(|(_, answer)| if let Answer::Found(paper) = answer { Some(Paper::clone(paper)) } else { None }).collect();
        let indexed = if papers.is_empty() {
            Ok(())
        } else {
            let count = papers.len();
            match tokio::time::timeout_at(deadline, self.indexer.send(Ingest(papers))).await {
                Ok(Ok(Ok(counts))) => {
                    tracing::info!(from = asked, papers = count, added = counts.added, merged = counts.merged, "seed papers indexed");
                    Ok(())
                }
                Ok(Ok(Err(error))) => {
                    tracing::warn!(%error, from = asked, "seed papers were not indexed");
                    Err("it was found but could not be added to the paper index; try again later")
                }
                Ok(Err(_)) => Err("it was found but the paper index is not running; try again later"),
                Err(_) => Err("it was found but could not be added to the paper index in time; try again later"),
            }
        };
        answers
            .into_iter()
            .map(|(id, answer)| {
                let outcome = match (answer, indexed) {
                    (Answer::Found(paper), Ok(())) => SeedOutcome::Fetched(*paper),
                    (Answer::Found(_), Err(why)) => SeedOutcome::Failed(why.into()),
                    (Answer::Absent, _) => SeedOutcome::NotFound,
                    (Answer::Failed(why), _) => SeedOutcome::Failed(why),
                };
                (id, outcome)
            })
            .collect()
    }
}

/// `ask` if it finishes by `deadline`; `None` if not.
async fn within<T>(deadline: Instant, ask: impl Future<Output = Result<T, SourceError>>) -> Option<Result<T, SourceError>> {
    tokio::time::timeout_at(deadline, ask).await.ok()
}

/// Each id's answer from one batch request: the paper that carries the id, absent, or the
/// batch's failure for all.
fn batch_answers(ids: Vec<SeedId>, asked: &str, fetched: Option<Result<Parsed<Paper>, SourceError>>) -> Vec<(SeedId, Answer)> {
    let papers = match fetched {
        Some(Ok(papers)) => papers.items,
        Some(Err(error)) => {
            tracing::warn!(%error, "seeds could not be looked up");
            let why = source_failure(asked, &error);
            return ids.into_iter().map(|id| (id, Answer::Failed(why.clone()))).collect();
        }
        None => return ids.into_iter().map(|id| (id, Answer::Failed(late(asked)))).collect(),
    };
    ids.into_iter()
        .map(|id| {
            let key = id.key();
            let answer = match papers.iter().find(|paper| dedup_keys(paper).contains(&key)) {
                Some(paper) => Answer::Found(Box::new(paper.clone())),
                None => Answer::Absent,
            };
            (id, answer)
        })
        .collect()
}

/// A paper found for `id` only if it carries `id`; else the place does not have it.
fn keep_if_matching(id: &SeedId, answer: Answer) -> Answer {
    match answer {
        Answer::Found(paper) if dedup_keys(&paper).contains(&id.key()) => Answer::Found(paper),
        Answer::Found(paper) => {
            tracing::warn!(seed = ?id, keys = ?dedup_keys(&paper), "a source answered a seed with another paper");
            Answer::Absent
        }
        other => other,
    }
}

/// Every id failed for want of a client for `name`.
fn unavailable(ids: Vec<SeedId>, name: &str) -> Vec<(SeedId, SeedOutcome)> {
    ids.into_iter().map(|id| (id, SeedOutcome::Failed(format!("{name} is not available on this installation")))).collect()
}

/// Why an identifier cannot be sent to its source, if it cannot.
fn unsendable(id: &SeedId) -> Option<String> {
    match id {
        SeedId::Pmid(pmid) if pmid.is_empty() || !pmid.bytes().all(|byte| byte.is_ascii_digit()) => Some(format!("{pmid:?} is not a PMID")),
        SeedId::Arxiv(arxiv) if !is_arxiv_id(arxiv) => Some(format!("{arxiv:?} is not an arXiv identifier")),
        SeedId::Doi(doi) if normalize_doi(doi).as_deref() != Some(doi.as_str()) => Some(format!("{doi:?} is not a DOI")),
        _ => None,
    }
}

fn id_text(id: &SeedId) -> String {
    match id {
        SeedId::Doi(text) | SeedId::Pmid(text) | SeedId::Arxiv(text) => text.clone(),
    }
}

/// `{name} did not answer in time; try again later`.
fn late(name: &str) -> String {
    format!("{name} did not answer in time; try again later")
}

/// What a failed request means to the researcher.
fn source_failure(name: &str, error: &SourceError) -> String {
    match error.kind() {
        ErrorKind::Transient | ErrorKind::NotFound => format!("{name} did not answer; try again later"),
        ErrorKind::RateLimited { .. } => format!("{name} asked Papertide to slow down; try again later"),
        ErrorKind::Parse => format!("{name} answered with something Papertide could not read; try again later"),
        ErrorKind::Permanent => format!("{name} refused the lookup ({})", error.failure),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::{Failure, Origin};

    #[test]
    fn identifiers_that_cannot_be_sent_are_refused() {
        assert_eq!(unsendable(&SeedId::Pmid("12345".into())), None);
        assert_eq!(unsendable(&SeedId::Pmid("12a45".into())).as_deref(), Some("\"12a45\" is not a PMID"));
        assert_eq!(unsendable(&SeedId::Arxiv("1605.08386".into())), None);
        assert!(unsendable(&SeedId::Arxiv("1605.08386 OR all:x".into())).is_some());
        assert_eq!(unsendable(&SeedId::Doi("10.1038/nature12373".into())), None);
        assert!(unsendable(&SeedId::Doi("10.1038/NATURE12373".into())).is_some(), "seeds come normalized");
        assert!(unsendable(&SeedId::Doi("nature".into())).is_some());
    }

    #[test]
    fn failures_are_told_in_words_for_the_researcher() {
        let error = |failure| SourceError { origin: Origin::Source(Source::Pubmed), request: "efetch".into(), attempts: 5, failure };
        let status = |status| Failure::Status { status, retry_after: None, message: None };
        assert_eq!(source_failure("PubMed", &error(status(500))), "PubMed did not answer; try again later");
        assert_eq!(source_failure("PubMed", &error(status(429))), "PubMed asked Papertide to slow down; try again later");
        assert!(source_failure("PubMed", &error(Failure::Parse("x".into()))).contains("could not read"));
        assert!(source_failure("arXiv", &error(status(400))).starts_with("arXiv refused the lookup (HTTP 400"));
        assert_eq!(late("Crossref"), "Crossref did not answer in time; try again later");
    }

    #[test]
    fn a_paper_without_the_id_asked_for_does_not_count() {
        let mut paper = Paper::new(Source::Pubmed, "A paper");
        paper.ids.pmid = Some("1".into());
        assert!(matches!(keep_if_matching(&SeedId::Pmid("1".into()), Answer::Found(Box::new(paper.clone()))), Answer::Found(_)));
        assert!(matches!(keep_if_matching(&SeedId::Pmid("2".into()), Answer::Found(Box::new(paper.clone()))), Answer::Absent));
        let answers = batch_answers(
            vec![SeedId::Pmid("2".into()), SeedId::Pmid("1".into())],
            "PubMed",
            Some(Ok(Parsed { items: vec![paper], warnings: vec![] })),
        );
        assert!(matches!(answers.as_slice(), [(_, Answer::Absent), (_, Answer::Found(_))]));
    }
}
