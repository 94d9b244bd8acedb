//! Searching the index: [`PaperQuery`] in, [`Hit`]s out, ranked by BM25.
//!
//! The text is matched against title (weighted by [`TITLE_BOOST`]), abstract, authors, journal and
//! categories, any word sufficing (more matching words rank higher); English stopwords in it
//! are dropped, as they are from the indexed text (`crate::tokenizer`). It may use tantivy's query
//! syntax (`"a phrase"`, `+required`, `-excluded`, `title:word`); text that does not parse is
//! searched as its plain words instead, so a user's typing never fails a search. Empty text lists
//! the papers the filters let through, newest `entered` first, all with score 0.
//!
//! The filters do not change scores: the date window keeps papers whose `entered` day lies in it
//! (both bounds inclusive; papers without an `entered` date are left out when a bound is set), and
//! the source filter keeps papers reported by any of the sources named.

use std::ops::Bound;

use chrono::NaiveDate;
use engine::paper::{Paper, Source};
use tantivy::collector::TopDocs;
use tantivy::query::{AllQuery, BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser, RangeQuery, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DateTime, DocAddress, Order, Searcher, TantivyDocument, Term};

use crate::error::IndexError;
use crate::paper_index::PaperIndex;
use crate::schema::{date_time, Fields};
use crate::PaperId;

/// How much more a word in the title counts than the same word elsewhere: nothing more. Each
/// field is scored by BM25 of its own and the fields' scores add up, so a title word already
/// counts twice when the abstract repeats it, and a title match scores high on its own because
/// titles are short (BM25 weighs a word by how much of its field it fills). The former boost of 2
/// on top counted a title word three times where the abstract repeats it, and lost ranking
/// quality wherever titles were present (bench/README.md, "relevance").
pub const TITLE_BOOST: f32 = 1.0;

/// What to look for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PaperQuery {
    /// Words or tantivy query syntax; empty means "everything the filters let through".
    pub text: String,
    /// First `entered` day wanted, inclusive.
    pub since: Option<NaiveDate>,
    /// Last `entered` day wanted, inclusive.
    pub until: Option<NaiveDate>,
    /// Papers reported by any of these; empty means every source.
    pub sources: Vec<Source>,
    /// The most hits to return; 0 returns none.
    pub limit: usize,
}

/// A paper found, with its BM25 score (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: PaperId,
    pub paper: Paper,
    pub score: f32,
}

impl PaperQuery {
    /// A query for `text` over every date and source.
    pub fn new(text: impl Into<String>, limit: usize) -> PaperQuery {
        PaperQuery { text: text.into(), limit, ..PaperQuery::default() }
    }
}

impl PaperIndex {
    /// The committed papers matching `query`, best first (see the module docs for the rules).
    pub fn search(&self, query: &PaperQuery) -> Result<Vec<Hit>, IndexError> {
        let searcher = self.searcher();
        let fields = self.fields();
        self.top(&searcher, query)?.into_iter().map(|(score, address)| hit(&searcher, fields, address, score)).collect()
    }

    /// The same ranking as [`PaperIndex::search`], without loading the papers: their ids and
    /// scores, best first. For ranking many candidates and loading only the few that are used.
    pub fn rank(&self, query: &PaperQuery) -> Result<Vec<(PaperId, f32)>, IndexError> {
        let searcher = self.searcher();
        let mut ids = Vec::new();
        for (score, address) in self.top(&searcher, query)? {
            ids.push((id_of(&searcher, address)?, score));
        }
        Ok(ids)
    }

    /// The addresses and scores of the best `query.limit` matches.
    pub(crate) fn top(&self, searcher: &Searcher, query: &PaperQuery) -> Result<Vec<(f32, DocAddress)>, IndexError> {
        let window_is_empty = matches!((query.since, query.until), (Some(since), Some(until)) if since > until);
        if query.limit == 0 || window_is_empty {
            return Ok(Vec::new());
        }
        let mut clauses = filters(self.fields(), query);
        if query.text.trim().is_empty() {
            clauses.push((Occur::Must, Box::new(AllQuery)));
            let newest_first = TopDocs::with_limit(query.limit).order_by_fast_field::<DateTime>(Fields::ENTERED, Order::Desc);
            let found = searcher.search(&BooleanQuery::new(clauses), &newest_first).map_err(|source| IndexError::Search { source })?;
            return Ok(found.into_iter().map(|(_, address)| (0.0, address)).collect());
        }
        clauses.push((Occur::Must, self.text_query(&query.text)));
        let best_first = TopDocs::with_limit(query.limit);
        searcher.search(&BooleanQuery::new(clauses), &best_first).map_err(|source| IndexError::Search { source })
    }

    /// `text` as a query over the text fields: as written if it parses, else as its plain words.
    pub(crate) fn text_query(&self, text: &str) -> Box<dyn Query> {
        let fields = self.fields();
        let mut parser = QueryParser::for_index(self.index(), fields.text_fields());
        parser.set_field_boost(fields.title, TITLE_BOOST);
        match parser.parse_query(text) {
            Ok(query) => query,
            Err(error) => {
                tracing::debug!(%error, "query text did not parse; searching its words");
                let (query, _ignored) = parser.parse_query_lenient(&plain_words(text));
                query
            }
        }
    }
}

/// The date-window and source clauses of `query`, scoring nothing.
pub(crate) fn filters(fields: Fields, query: &PaperQuery) -> Vec<(Occur, Box<dyn Query>)> {
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if query.since.is_some() || query.until.is_some() {
        let bound = |day: Option<NaiveDate>| match day {
            Some(day) => Bound::Included(Term::from_field_date_for_search(fields.entered, date_time(day))),
            None => Bound::Unbounded,
        };
        let window = RangeQuery::new(bound(query.since), bound(query.until));
        clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(Box::new(window), 0.0))));
    }
    if !query.sources.is_empty() {
        let any_source: Vec<(Occur, Box<dyn Query>)> = query
            .sources
            .iter()
            .map(|source| {
                let term = Term::from_field_text(fields.sources, source.as_str());
                (Occur::Should, Box::new(TermQuery::new(term, IndexRecordOption::Basic)) as Box<dyn Query>)
            })
            .collect();
        clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(Box::new(BooleanQuery::new(any_source)), 0.0))));
    }
    clauses
}

/// The id of the document at `address`, from its fast field.
pub(crate) fn id_of(searcher: &Searcher, address: DocAddress) -> Result<PaperId, IndexError> {
    let column = searcher.segment_reader(address.segment_ord).fast_fields().u64(Fields::ID).map_err(|source| IndexError::Search { source })?;
    let id = column.first(address.doc_id).ok_or(IndexError::DamagedDocument { field: Fields::ID })?;
    Ok(PaperId::new(id))
}

pub(crate) fn hit(searcher: &Searcher, fields: Fields, address: DocAddress, score: f32) -> Result<Hit, IndexError> {
    let document: TantivyDocument = searcher.doc(address).map_err(|source| IndexError::Search { source })?;
    let stored = fields.stored_paper(&document)?;
    Ok(Hit { id: stored.id, paper: stored.paper, score })
}

/// `text` without query syntax: lower-case letters, digits and spaces (the tokenizers split
/// words at everything else anyway, and lower-case words are never operators).
fn plain_words(text: &str) -> String {
    text.chars().map(|character| if character.is_alphanumeric() { character } else { ' ' }).collect::<String>().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_drop_every_operator() {
        assert_eq!(plain_words("\"unbalanced ( AND title:CRISPR-Cas9^2"), " unbalanced   and title crispr cas9 2");
    }

    #[test]
    fn a_window_ending_before_it_starts_finds_nothing_without_searching() {
        let index = PaperIndex::create_in_ram().expect("index");
        let query =
            PaperQuery { since: NaiveDate::from_ymd_opt(2025, 2, 1), until: NaiveDate::from_ymd_opt(2025, 1, 1), ..PaperQuery::new("anything", 10) };
        assert_eq!(index.search(&query).expect("searches"), []);
    }
}
