//! Deduplication: one work, one paper. Records of the same work (two arXiv versions, a preprint
//! and its journal article in PubMed, a paper harvested twice) are recognised by shared keys and
//! merged into one [`Paper`].
//!
//! # Keys
//! [`dedup_keys`] lists a paper's keys, strongest first: every DOI it carries (`doi`,
//! `preprint_doi`, `published_doi`), its PMID, its arXiv id, then a normalized-title key (title
//! folded by [`fold_text`], first author's family name, publication year) when the folded title has
//! at least [`MIN_TITLE_KEY_CHARS`] characters. Two papers sharing any key are the same work.
//!
//! # Merge rules ([`merge`])
//! - **Sources**: the union, sorted, without repeats.
//! - **Ids**: existing non-empty ids are kept, missing ones filled from the other record. A
//!   preprint and its published record become one paper: the journal DOI becomes `ids.doi`, the
//!   preprint DOI stays in `ids.preprint_doi` and `ids.published_doi` is set to the journal DOI
//!   (when one side is a journal record: from PubMed, or a preprint that names its
//!   `published_doi`). `preprint_version` is the highest seen.
//! - **Text** (title, abstract, authors) comes from one record, taken whole: a PubMed record's
//!   wins over a preprint's; otherwise the later preprint version (`preprint_version`, then
//!   `entered`); on a tie the existing record keeps its text. An empty field is filled from the
//!   other record.
//! - **Journal**: the PubMed record's when one side is from PubMed, else the existing one's,
//!   else the incoming one's.
//! - **Dates**: `published` is the earliest known, `entered` the latest.
//! - **Categories, links, publication types**: unioned without repeats, existing ones first.
//! - **Flags** (`is_retraction`, `is_erratum`): ORed.
//!
//! # Contradicting ids
//! Records whose ids contradict each other (two different PMIDs, PMCIDs, arXiv ids or preprint
//! DOIs, or two journal DOIs) are different works, whatever else they share (typically a title
//! key: two replies titled alike by the same author in one year). [`can_merge`] says whether a
//! merge would keep every id of both records; [`deduplicate`] merges only such pairs, so it
//! never loses an id.
//!
//! # Guarantees of [`deduplicate`]
//! Transitive (a and b share a DOI, b and c a PMID: one paper), idempotent, independent of the
//! input order (inputs are put in a canonical order first), output sorted by each paper's first
//! key, and every input's ids and sources are found together in one output paper.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use chrono::Datelike;

use crate::paper::{collapse_whitespace, normalize_doi, Author, Paper, PaperIds, Source};

/// Titles shorter than this (in characters, after [`fold_text`]) give no title key: "Editorial",
/// "Reply", "Correction" would join unrelated papers.
pub const MIN_TITLE_KEY_CHARS: usize = 20;

/// One way of recognising a work, strongest first in [`dedup_keys`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DedupKey {
    /// A normalized DOI (journal or preprint).
    Doi(String),
    Pmid(String),
    /// An arXiv id without version.
    Arxiv(String),
    /// `folded title|folded first-author family name|year`.
    Title(String),
}

impl fmt::Display for DedupKey {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DedupKey::Doi(doi) => write!(formatter, "doi:{doi}"),
            DedupKey::Pmid(pmid) => write!(formatter, "pmid:{pmid}"),
            DedupKey::Arxiv(arxiv) => write!(formatter, "arxiv:{arxiv}"),
            DedupKey::Title(title) => write!(formatter, "title:{title}"),
        }
    }
}

impl DedupKey {
    /// The key written `text` (as [`fmt::Display`] writes it: `doi:…`, `pmid:…`, `arxiv:…`,
    /// `title:…`).
    pub fn parse(text: &str) -> Option<DedupKey> {
        let (kind, value) = text.split_once(':')?;
        let value = value.to_owned();
        match kind {
            "doi" => Some(DedupKey::Doi(value)),
            "pmid" => Some(DedupKey::Pmid(value)),
            "arxiv" => Some(DedupKey::Arxiv(value)),
            "title" => Some(DedupKey::Title(value)),
            _ => None,
        }
    }
}

/// The keys `paper` is recognised by, strongest first and without repeats: DOIs (`doi`,
/// `preprint_doi`, `published_doi`), PMID, arXiv id, normalized title (see [`title_key`]).
pub fn dedup_keys(paper: &Paper) -> Vec<DedupKey> {
    let ids = &paper.ids;
    let mut keys: Vec<DedupKey> = Vec::new();
    let dois = [&ids.doi, &ids.preprint_doi, &ids.published_doi];
    for doi in dois.into_iter().flatten() {
        let key = DedupKey::Doi(normalize_doi(doi).unwrap_or_else(|| doi.trim().to_lowercase()));
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let pmid = ids.pmid.as_deref().map(str::trim).filter(|pmid| !pmid.is_empty());
    keys.extend(pmid.map(|pmid| DedupKey::Pmid(pmid.to_owned())));
    let arxiv = ids.arxiv.as_deref().map(str::trim).filter(|arxiv| !arxiv.is_empty());
    keys.extend(arxiv.map(|arxiv| DedupKey::Arxiv(arxiv.to_owned())));
    keys.extend(title_key(paper).map(DedupKey::Title));
    keys
}

/// `folded title|first author|year`, or `None` when the folded title is shorter than
/// [`MIN_TITLE_KEY_CHARS`] or the paper has no date. The first author is the folded family name
/// (the last word of the name when no family name is known; the whole name of a collective);
/// the year is `published`'s, else `entered`'s.
pub fn title_key(paper: &Paper) -> Option<String> {
    let title = fold_text(&paper.title);
    if title.chars().count() < MIN_TITLE_KEY_CHARS {
        return None;
    }
    let year = paper.published.or(paper.entered)?.year();
    let first_author = paper.authors.first().map(first_author_key).unwrap_or_default();
    Some(format!("{title}|{first_author}|{year}"))
}

/// Text folded for comparison: lower-case, everything but letters, digits and whitespace removed
/// (Unicode letters kept), whitespace collapsed. "SARS-CoV-2: a Study." gives "sarscov2 a study".
pub fn fold_text(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    for character in text.chars() {
        if character.is_alphanumeric() {
            folded.extend(character.to_lowercase());
        } else if character.is_whitespace() {
            folded.push(' ');
        }
    }
    collapse_whitespace(&folded)
}

/// Whether `a` and `b` can be one paper without losing an id of either (see the module docs on
/// contradicting ids). Symmetric.
pub fn can_merge(a: &Paper, b: &Paper) -> bool {
    merge_keeps_every_id(a, b) && merge_keeps_every_id(b, a)
}

/// `existing` and `incoming` as one paper, by the rules in the module docs. Call it only for
/// records of one work; when ids contradict (see [`can_merge`]), the existing ones are kept.
pub fn merge(existing: Paper, incoming: Paper) -> Paper {
    let incoming_text_wins = incoming_text_wins(&existing, &incoming);
    let journal = match (is_from_pubmed(&existing), is_from_pubmed(&incoming)) {
        (false, true) => incoming.journal.clone().or_else(|| existing.journal.clone()),
        _ => existing.journal.clone().or_else(|| incoming.journal.clone()),
    };
    let ids = merge_ids(&existing, &incoming);
    let sources = union_sorted(&existing.sources, &incoming.sources);
    let categories = union_stable(&existing.categories, &incoming.categories);
    let publication_types = union_stable(&existing.publication_types, &incoming.publication_types);
    let links = union_stable(&existing.links, &incoming.links);
    let published = earliest(existing.published, incoming.published);
    let entered = existing.entered.max(incoming.entered);
    let is_retraction = existing.is_retraction || incoming.is_retraction;
    let is_erratum = existing.is_erratum || incoming.is_erratum;

    let (winner, other) = if incoming_text_wins { (incoming, existing) } else { (existing, incoming) };
    let title = if winner.title.trim().is_empty() { other.title } else { winner.title };
    let abstract_sections = if winner.abstract_sections.is_empty() { other.abstract_sections } else { winner.abstract_sections };
    let authors = if winner.authors.is_empty() { other.authors } else { winner.authors };

    Paper {
        ids,
        title,
        abstract_sections,
        authors,
        journal,
        publication_types,
        is_retraction,
        is_erratum,
        categories,
        published,
        entered,
        links,
        sources,
    }
}

/// The papers with every work once: records sharing a key (transitively) are merged unless
/// their ids contradict. Deterministic and idempotent; the input order does not matter.
pub fn deduplicate(papers: Vec<Paper>) -> Vec<Paper> {
    let mut canonical: Vec<(String, Paper)> = papers.into_iter().map(|paper| (canonical_form(&paper), paper)).collect();
    canonical.sort_by(|left, right| left.0.cmp(&right.0));

    let mut clusters: Vec<Option<Cluster>> = Vec::new();
    let mut clusters_by_key: BTreeMap<DedupKey, Vec<usize>> = BTreeMap::new();
    for (_, paper) in canonical {
        let mut cluster = Cluster::of(paper);
        while let Some(index) = first_mergeable_cluster(&cluster, &clusters, &clusters_by_key) {
            let Some(existing) = clusters.get_mut(index).and_then(Option::take) else {
                break;
            };
            cluster = existing.absorb(cluster);
        }
        let index = clusters.len();
        for key in &cluster.keys {
            clusters_by_key.entry(key.clone()).or_default().push(index);
        }
        clusters.push(Some(cluster));
    }

    let mut merged: Vec<Paper> = clusters.into_iter().flatten().map(|cluster| tidy(cluster.paper)).collect();
    merged.sort_by_cached_key(|paper| {
        let first_key = dedup_keys(paper).first().map(ToString::to_string).unwrap_or_default();
        (first_key, canonical_form(paper))
    });
    merged
}

/// Papers merged so far, with every key any of their records had (a merged paper's own keys can
/// differ: its title key takes the winning title and the earliest year).
struct Cluster {
    paper: Paper,
    keys: BTreeSet<DedupKey>,
}

impl Cluster {
    fn of(paper: Paper) -> Cluster {
        let keys = dedup_keys(&paper).into_iter().collect();
        Cluster { paper, keys }
    }

    fn absorb(self, newer: Cluster) -> Cluster {
        let paper = merge(self.paper, newer.paper);
        let mut keys = self.keys;
        keys.extend(newer.keys);
        keys.extend(dedup_keys(&paper));
        Cluster { paper, keys }
    }
}

/// The oldest live cluster sharing a key with `cluster` that it can merge with.
fn first_mergeable_cluster(cluster: &Cluster, clusters: &[Option<Cluster>], clusters_by_key: &BTreeMap<DedupKey, Vec<usize>>) -> Option<usize> {
    cluster
        .keys
        .iter()
        .filter_map(|key| clusters_by_key.get(key))
        .flatten()
        .copied()
        .filter(|&index| {
            let candidate = clusters.get(index).and_then(Option::as_ref);
            candidate.is_some_and(|candidate| can_merge(&candidate.paper, &cluster.paper))
        })
        .min()
}

/// A total order on papers that does not depend on where they came from in the input.
fn canonical_form(paper: &Paper) -> String {
    serde_json::to_string(paper).unwrap_or_default()
}

fn first_author_key(author: &Author) -> String {
    let family = match (&author.family, author.is_collective) {
        (Some(family), _) => family.as_str(),
        (None, true) => author.name.as_str(),
        (None, false) => author.name.split_whitespace().last().unwrap_or_default(),
    };
    fold_text(family)
}

fn is_from_pubmed(paper: &Paper) -> bool {
    paper.sources.contains(&Source::Pubmed)
}

/// Whether `incoming`'s title, abstract and authors replace `existing`'s.
fn incoming_text_wins(existing: &Paper, incoming: &Paper) -> bool {
    let (existing_reviewed, incoming_reviewed) = (is_from_pubmed(existing), is_from_pubmed(incoming));
    if existing_reviewed != incoming_reviewed {
        return incoming_reviewed;
    }
    if let (Some(existing_version), Some(incoming_version)) = (existing.ids.preprint_version, incoming.ids.preprint_version) {
        if existing_version != incoming_version {
            return incoming_version > existing_version;
        }
    }
    incoming.entered > existing.entered
}

/// Ids of one work seen through two records (rules in the module docs).
fn merge_ids(existing: &Paper, incoming: &Paper) -> PaperIds {
    let (old, new) = (&existing.ids, &incoming.ids);
    let preprint_doi = old.preprint_doi.clone().or_else(|| new.preprint_doi.clone());
    let arxiv = old.arxiv.clone().or_else(|| new.arxiv.clone());

    let mut journal_dois: Vec<&String> = Vec::new();
    let all_dois = [&old.doi, &old.published_doi, &old.preprint_doi, &new.doi, &new.published_doi, &new.preprint_doi];
    for doi in all_dois.into_iter().flatten() {
        if Some(doi) != preprint_doi.as_ref() && !journal_dois.contains(&doi) {
            journal_dois.push(doi);
        }
    }
    let names_its_journal = old.published_doi.is_some() || new.published_doi.is_some();
    let preprint_meets_journal_record = (preprint_doi.is_some() || arxiv.is_some()) && (is_from_pubmed(existing) || is_from_pubmed(incoming));
    let (doi, published_doi) = match journal_dois.as_slice() {
        [journal] => {
            let published = names_its_journal || preprint_meets_journal_record;
            (Some((*journal).clone()), published.then(|| (*journal).clone()))
        }
        [] => (
            old.doi.clone().or_else(|| new.doi.clone()).or_else(|| preprint_doi.clone()),
            old.published_doi.clone().or_else(|| new.published_doi.clone()),
        ),
        _ => (old.doi.clone().or_else(|| new.doi.clone()), old.published_doi.clone().or_else(|| new.published_doi.clone())),
    };

    PaperIds {
        doi,
        pmid: old.pmid.clone().or_else(|| new.pmid.clone()),
        pmcid: old.pmcid.clone().or_else(|| new.pmcid.clone()),
        arxiv,
        preprint_doi,
        preprint_version: old.preprint_version.max(new.preprint_version),
        published_doi,
    }
}

fn merge_keeps_every_id(existing: &Paper, incoming: &Paper) -> bool {
    let merged_ids = merge_ids(existing, incoming);
    let kept = id_set(&merged_ids);
    id_set(&existing.ids).is_subset(&kept) && id_set(&incoming.ids).is_subset(&kept)
}

/// Every id as (kind, value); the three DOI fields count as one kind, since merging moves DOIs
/// between them.
fn id_set(ids: &PaperIds) -> BTreeSet<(&'static str, &str)> {
    let dois = [&ids.doi, &ids.preprint_doi, &ids.published_doi].into_iter().flatten().map(|doi| ("doi", doi.as_str()));
    let others =
        [("pmid", &ids.pmid), ("pmcid", &ids.pmcid), ("arxiv", &ids.arxiv)].into_iter().filter_map(|(kind, id)| id.as_deref().map(|id| (kind, id)));
    dois.chain(others).collect()
}

fn earliest<T: Ord>(left: Option<T>, right: Option<T>) -> Option<T> {
    match (left, right) {
        (Some(left), Some(right)) => Some(left.min(right)),
        (left, right) => left.or(right),
    }
}

fn union_sorted(left: &[Source], right: &[Source]) -> Vec<Source> {
    let all: BTreeSet<Source> = left.iter().chain(right).copied().collect();
    all.into_iter().collect()
}

/// `left` then the items of `right` not seen yet, each once.
fn union_stable<T: Clone + PartialEq>(left: &[T], right: &[T]) -> Vec<T> {
    let mut union: Vec<T> = Vec::with_capacity(left.len() + right.len());
    for item in left.iter().chain(right) {
        if !union.contains(item) {
            union.push(item.clone());
        }
    }
    union
}

/// A paper's lists without repeats and its sources sorted, as a merge leaves them.
fn tidy(mut paper: Paper) -> Paper {
    paper.sources = union_sorted(&paper.sources, &[]);
    paper.categories = union_stable(&paper.categories, &[]);
    paper.publication_types = union_stable(&paper.publication_types, &[]);
    paper.links = union_stable(&paper.links, &[]);
    paper
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;
    use proptest::prelude::*;

    use super::*;
    use crate::paper::{AbstractSection, Link, LinkKind};
    use crate::parse::biorxiv::parse_details;

    const MEDRXIV_DOI_LOOKUP: &str = include_str!("../fixtures/medrxiv/details_doi_2020.09.09.20191205_two_versions_published.json");

    fn date(text: &str) -> Option<NaiveDate> {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
    }

    fn paper(source: Source, title: &str, first_author: &str, published: &str) -> Paper {
        let mut paper = Paper::new(source, title);
        paper.authors = vec![Author::person(Some("A."), first_author)];
        paper.published = date(published);
        paper.entered = date(published);
        paper
    }

    /// A PubMed record of the journal article the medRxiv preprint became, built by hand in the
    /// shape the PubMed parser produces (the values follow the published article).
    fn pubmed_record_of_the_published_article() -> Paper {
        let mut record = paper(Source::Pubmed, "Evolution of immune responses to SARS-CoV-2 in mild-moderate COVID-19.", "Wheatley", "2021-02-19");
        record.ids.doi = Some("10.1038/s41467-021-21444-5".into());
        record.ids.pmid = Some("33608522".into());
        record.journal = Some("Nature communications".into());
        record.abstract_sections = vec![AbstractSection { label: None, text: "The durability of infection-induced SARS-CoV-2 immunity…".into() }];
        record.publication_types = vec!["Journal Article".into()];
        record.entered = date("2021-02-20");
        record.links = vec![Link { kind: LinkKind::Abstract, url: "https://pubmed.ncbi.nlm.nih.gov/33608522/".into() }];
        record
    }

    #[test]
    fn keys_come_strongest_first_without_repeats() {
        let mut paper = paper(Source::Biorxiv, "A long enough title about proteins", "Doe", "2024-03-01");
        paper.ids.doi = Some("10.1101/2024.01.01.000001".into());
        paper.ids.preprint_doi = Some("10.1101/2024.01.01.000001".into());
        paper.ids.published_doi = Some("10.1000/journal.1".into());
        paper.ids.pmid = Some("123".into());
        paper.ids.arxiv = Some("2401.00001".into());
        let keys: Vec<String> = dedup_keys(&paper).iter().map(ToString::to_string).collect();
        assert_eq!(
            keys,
            [
                "doi:10.1101/2024.01.01.000001",
                "doi:10.1000/journal.1",
                "pmid:123",
                "arxiv:2401.00001",
                "title:a long enough title about proteins|doe|2024",
            ]
        );
        assert_eq!(fold_text("  SARS-CoV-2:   a Study of Ünïcode. "), "sarscov2 a study of ünïcode");
    }

    #[test]
    fn medrxiv_preprint_and_its_pubmed_record_become_one_paper() {
        let page = parse_details(MEDRXIV_DOI_LOOKUP, Source::Medrxiv).expect("fixture parses");
        let preprint = page.papers.items[0].clone();
        let record = pubmed_record_of_the_published_article();

        let merged = deduplicate(vec![preprint.clone(), record.clone()]);
        assert_eq!(merged, deduplicate(vec![record.clone(), preprint.clone()]));
        assert_eq!(merged.len(), 1);
        let paper = &merged[0];
        assert_eq!(paper.sources, [Source::Pubmed, Source::Medrxiv]);
        assert_eq!(paper.ids.doi.as_deref(), Some("10.1038/s41467-021-21444-5"));
        assert_eq!(paper.ids.preprint_doi.as_deref(), Some("10.1101/2020.09.09.20191205"));
        assert_eq!(paper.ids.published_doi.as_deref(), Some("10.1038/s41467-021-21444-5"));
        assert_eq!(paper.ids.pmid.as_deref(), Some("33608522"));
        assert_eq!(paper.ids.preprint_version, Some(2));
        assert_eq!(paper.journal.as_deref(), Some("Nature communications"));
        assert_eq!(paper.title, record.title, "the peer-reviewed text wins");
        assert_eq!(paper.published, date("2020-09-10"), "first posting of the preprint");
        assert_eq!(paper.entered, date("2021-02-20"));
        let urls: Vec<&str> = paper.links.iter().map(|link| link.url.as_str()).collect();
        assert!(urls.contains(&"https://pubmed.ncbi.nlm.nih.gov/33608522/"));
        assert!(urls.contains(&"https://www.medrxiv.org/content/10.1101/2020.09.09.20191205v2"));
        assert_eq!(paper.categories, ["infectious diseases"]);
        assert_eq!(paper.publication_types, ["Journal Article", "PUBLISHAHEADOFPRINT"]);
        insta::assert_json_snapshot!("medrxiv_preprint_merged_with_pubmed_record", paper);
    }

    #[test]
    fn arxiv_versions_become_one_paper_with_the_latest_text() {
        let mut first = paper(Source::Arxiv, "Generative adversarial text to image synthesis", "Reed", "2016-05-17");
        first.ids.arxiv = Some("1605.05396".into());
        first.ids.preprint_version = Some(1);
        first.abstract_sections = vec![AbstractSection { label: None, text: "Version one.".into() }];
        first.links = vec![Link { kind: LinkKind::Abstract, url: "https://arxiv.org/abs/1605.05396v1".into() }];
        first.categories = vec!["cs.NE".into()];
        let mut second = paper(Source::Arxiv, "Generative Adversarial Text to Image Synthesis", "Reed", "2016-05-17");
        second.ids.arxiv = Some("1605.05396".into());
        second.ids.preprint_version = Some(2);
        second.entered = date("2016-06-05");
        second.abstract_sections = vec![AbstractSection { label: None, text: "Version two.".into() }];
        second.links = vec![Link { kind: LinkKind::Abstract, url: "https://arxiv.org/abs/1605.05396v2".into() }];
        second.categories = vec!["cs.NE".into(), "cs.CV".into()];

        for input in [vec![first.clone(), second.clone()], vec![second.clone(), first.clone()]] {
            let merged = deduplicate(input);
            assert_eq!(merged.len(), 1);
            let paper = &merged[0];
            assert_eq!(paper.title, "Generative Adversarial Text to Image Synthesis");
            assert_eq!(paper.abstract_text(), "Version two.");
            assert_eq!(paper.ids.preprint_version, Some(2));
            assert_eq!(paper.published, date("2016-05-17"));
            assert_eq!(paper.entered, date("2016-06-05"));
            assert_eq!(paper.sources, [Source::Arxiv]);
            assert_eq!(paper.categories, ["cs.NE", "cs.CV"]);
            assert_eq!(paper.links.len(), 2);
            assert_eq!(paper.ids.published_doi, None);
        }
    }

    #[test]
    fn records_sharing_only_title_first_author_and_year_merge() {
        let mut preprint = paper(Source::Biorxiv, "Cold-shock response in Streptomyces coelicolor", "Evans", "2025-04-11");
        preprint.ids.doi = Some("10.1101/2025.04.11.648403".into());
        preprint.ids.preprint_doi = Some("10.1101/2025.04.11.648403".into());
        let mut record = paper(Source::Pubmed, "Cold-Shock Response in  Streptomyces coelicolor.", "Evans", "2025-11-02");
        record.ids.doi = Some("10.1000/example.2025.1".into());
        record.ids.pmid = Some("40000001".into());
        record.journal = Some("Example Journal".into());

        let merged = deduplicate(vec![record, preprint]);
        assert_eq!(merged.len(), 1);
        let paper = &merged[0];
        assert_eq!(paper.ids.doi.as_deref(), Some("10.1000/example.2025.1"));
        assert_eq!(paper.ids.preprint_doi.as_deref(), Some("10.1101/2025.04.11.648403"));
        assert_eq!(paper.ids.published_doi.as_deref(), Some("10.1000/example.2025.1"));
        assert_eq!(paper.journal.as_deref(), Some("Example Journal"));
        assert_eq!(paper.published, date("2025-04-11"));
    }

    #[test]
    fn different_papers_with_similar_short_titles_stay_apart() {
        let editorial = paper(Source::Pubmed, "Editorial", "Smith", "2024-01-01");
        let another_editorial = paper(Source::Pubmed, "Editorial.", "Smith", "2024-06-01");
        assert_eq!(title_key(&editorial), None);
        assert_eq!(deduplicate(vec![editorial, another_editorial]).len(), 2);

        let structure = paper(Source::Arxiv, "Deep learning for protein structure", "Lee", "2024-01-01");
        let function = paper(Source::Arxiv, "Deep learning for protein function", "Lee", "2024-01-01");
        assert_eq!(deduplicate(vec![structure, function]).len(), 2);

        let same_title_other_author = paper(Source::Arxiv, "Deep learning for protein structure", "Kim", "2024-01-01");
        let same_title_other_year = paper(Source::Arxiv, "Deep learning for protein structure", "Lee", "2023-01-01");
        let original = paper(Source::Arxiv, "Deep learning for protein structure", "Lee", "2024-01-01");
        assert_eq!(deduplicate(vec![original, same_title_other_author, same_title_other_year]).len(), 3);
    }

    #[test]
    fn records_with_contradicting_ids_are_never_merged() {
        let mut first_reply = paper(Source::Pubmed, "Reply to the comment on our cohort study", "Smith", "2024-02-01");
        first_reply.ids.pmid = Some("1".into());
        let mut second_reply = first_reply.clone();
        second_reply.ids.pmid = Some("2".into());
        assert!(!can_merge(&first_reply, &second_reply));
        assert_eq!(deduplicate(vec![first_reply, second_reply]).len(), 2);
    }

    #[test]
    fn sharing_keys_is_transitive() {
        let mut with_doi = paper(Source::Arxiv, "One", "A", "2024-01-01");
        with_doi.ids.arxiv = Some("2401.00001".into());
        with_doi.ids.doi = Some("10.1000/x".into());
        let mut with_doi_and_pmid = paper(Source::Pubmed, "Two", "A", "2024-01-01");
        with_doi_and_pmid.ids.doi = Some("10.1000/x".into());
        with_doi_and_pmid.ids.pmid = Some("7".into());
        let mut with_pmid = paper(Source::Pubmed, "Three", "A", "2024-01-01");
        with_pmid.ids.pmid = Some("7".into());
        with_pmid.ids.pmcid = Some("PMC7".into());
        let merged = deduplicate(vec![with_pmid, with_doi, with_doi_and_pmid]);
        assert_eq!(merged.len(), 1);
        let ids = &merged[0].ids;
        assert_eq!(
            (ids.doi.as_deref(), ids.pmid.as_deref(), ids.pmcid.as_deref(), ids.arxiv.as_deref()),
            (Some("10.1000/x"), Some("7"), Some("PMC7"), Some("2401.00001"))
        );
        assert_eq!(ids.published_doi.as_deref(), Some("10.1000/x"), "an arXiv preprint met its PubMed record");
    }

    #[test]
    fn peer_reviewed_text_wins_over_a_later_preprint_version_and_flags_are_ored() {
        let mut record = paper(Source::Pubmed, "Journal title of the work", "Doe", "2024-05-01");
        record.ids.doi = Some("10.1000/j".into());
        record.is_erratum = true;
        let mut preprint = paper(Source::Medrxiv, "Preprint title of the work, third version", "Doe", "2024-01-01");
        preprint.ids.doi = Some("10.1101/p".into());
        preprint.ids.preprint_doi = Some("10.1101/p".into());
        preprint.ids.preprint_version = Some(3);
        preprint.ids.published_doi = Some("10.1000/j".into());
        preprint.entered = date("2024-09-01");
        preprint.is_retraction = true;
        let merged = merge(record.clone(), preprint.clone());
        assert_eq!(merged.title, "Journal title of the work");
        assert!(merged.is_erratum && merged.is_retraction);
        assert_eq!(merged.entered, date("2024-09-01"));
        assert_eq!(merge(preprint, record).title, "Journal title of the work");
    }

    const DOIS: [&str; 4] = ["10.1000/a", "10.1000/b", "10.1101/2020.01.01.000001", "10.1101/2020.01.01.000002"];
    const TITLES: [&str; 5] =
        ["Evolution of immunity to SARS-CoV-2", "Evolution of Immunity to SARS-CoV-2.", "Evolution of immunity to influenza", "Editorial", "Reply"];

    fn arb_ids() -> impl Strategy<Value = PaperIds> {
        (
            prop::option::of(prop::sample::select(DOIS.to_vec())),
            prop::option::of(prop::sample::select(vec!["1", "2", "3"])),
            prop::option::of(prop::sample::select(vec!["PMC1", "PMC2"])),
            prop::option::of(prop::sample::select(vec!["2101.00001", "2101.00002"])),
            prop::option::of(prop::sample::select(DOIS.to_vec())),
            prop::option::of(1u32..4),
            prop::option::of(prop::sample::select(DOIS.to_vec())),
        )
            .prop_map(|(doi, pmid, pmcid, arxiv, preprint_doi, preprint_version, published_doi)| PaperIds {
                doi: doi.map(str::to_owned),
                pmid: pmid.map(str::to_owned),
                pmcid: pmcid.map(str::to_owned),
                arxiv: arxiv.map(str::to_owned),
                preprint_doi: preprint_doi.map(str::to_owned),
                preprint_version,
                published_doi: published_doi.map(str::to_owned),
            })
    }

    fn arb_paper() -> impl Strategy<Value = Paper> {
        (
            arb_ids(),
            prop::sample::select(TITLES.to_vec()),
            prop::sample::select(vec!["Wheatley", "Kent", "Juno"]),
            prop::option::of(prop::sample::select(vec!["2020-09-10", "2020-12-31", "2021-02-19"])),
            prop::option::of(prop::sample::select(vec!["2020-09-11", "2021-02-20"])),
            prop::sample::subsequence(Source::ALL.to_vec(), 1..=2),
            prop::sample::subsequence(vec!["immunology", "infectious diseases"], 0..=2),
            prop::sample::subsequence(vec!["https://example.org/1", "https://example.org/2"], 0..=2),
            prop::option::of(prop::sample::select(vec!["Nature communications", "Example Journal"])),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(ids, title, family, published, entered, sources, categories, links, journal, is_retraction, is_erratum)| {
                let mut paper = Paper::new(sources[0], title);
                paper.ids = ids;
                paper.authors = vec![Author::person(Some("A."), family)];
                paper.abstract_sections = vec![AbstractSection { label: None, text: format!("{title} by {family}") }];
                paper.published = published.and_then(date);
                paper.entered = entered.and_then(date);
                paper.sources = sources;
                paper.categories = categories.into_iter().map(str::to_owned).collect();
                paper.links = links.into_iter().map(|url| Link { kind: LinkKind::Abstract, url: url.to_owned() }).collect();
                paper.journal = journal.map(str::to_owned);
                paper.is_retraction = is_retraction;
                paper.is_erratum = is_erratum;
                paper
            })
    }

    fn config() -> ProptestConfig {
        // No regression files: this crate's sources are scanned by an architecture test.
        ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() }
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn deduplicate_is_idempotent(papers in prop::collection::vec(arb_paper(), 0..10)) {
            let once = deduplicate(papers);
            prop_assert_eq!(deduplicate(once.clone()), once);
        }

        #[test]
        fn deduplicate_ignores_input_order(
            (papers, shuffled) in prop::collection::vec(arb_paper(), 0..10)
                .prop_flat_map(|papers| (Just(papers.clone()), Just(papers).prop_shuffle()))
        ) {
            prop_assert_eq!(deduplicate(papers), deduplicate(shuffled));
        }

        #[test]
        fn deduplicate_never_loses_an_id_or_a_source(papers in prop::collection::vec(arb_paper(), 0..10)) {
            let merged = deduplicate(papers.clone());
            prop_assert!(merged.len() <= papers.len());
            for paper in &papers {
                let ids = id_set(&paper.ids);
                let home = merged.iter().find(|candidate| {
                    ids.is_subset(&id_set(&candidate.ids)) && paper.sources.iter().all(|source| candidate.sources.contains(source))
                });
                prop_assert!(home.is_some(), "{:?} lost in {:?}", paper.ids, merged.iter().map(|paper| &paper.ids).collect::<Vec<_>>());
            }
        }

        #[test]
        fn no_two_results_share_a_key_unless_their_ids_contradict(papers in prop::collection::vec(arb_paper(), 0..10)) {
            let merged = deduplicate(papers);
            for (index, left) in merged.iter().enumerate() {
                for right in &merged[index + 1..] {
                    let shares_key = dedup_keys(left).iter().any(|key| dedup_keys(right).contains(key));
                    prop_assert!(!(shares_key && can_merge(left, right)), "{:?} and {:?} should be one", left.ids, right.ids);
                }
            }
        }
    }
}
