//! Works by id, for work done on every paper rather than on the best matches of a query (the
//! embedding of each paper, ranking candidates by their vectors): every id newest first, the ids
//! in a date window (and their count), and the papers of given ids.
//!
//! Listing ids reads only fast fields (no stored document is loaded), so it stays cheap on an
//! index of millions of works; [`PaperIndex::papers_by_id`] loads the few papers wanted.

use std::cmp::Reverse;
use std::collections::HashMap;

use chrono::NaiveDate;
use engine::paper::{Paper, Source};
use tantivy::collector::{Count, DocSetCollector};
use tantivy::query::{AllQuery, BooleanQuery, Occur, TermSetQuery};
use tantivy::{TantivyDocument, Term};

use crate::error::IndexError;
use crate::paper_index::PaperIndex;
use crate::query::{filters, id_of, PaperQuery};
use crate::schema::Fields;
use crate::PaperId;

impl PaperIndex {
    /// Every committed work, newest `entered` day first; works entered the same day newest id
    /// first (ids grow as works are added); works without an `entered` day last, newest id first.
    pub fn work_ids_newest_first(&self) -> Result<Vec<PaperId>, IndexError> {
        let searcher = self.searcher();
        let mut works: Vec<(Option<i64>, PaperId)> = Vec::with_capacity(usize::try_from(searcher.num_docs()).unwrap_or(0));
        for segment in searcher.segment_readers() {
            let fast_fields = segment.fast_fields();
            let ids = fast_fields.u64(Fields::ID).map_err(|source| IndexError::Search { source })?;
            let entered = fast_fields.date(Fields::ENTERED).map_err(|source| IndexError::Search { source })?;
            for doc in segment.doc_ids_alive() {
                let id = ids.first(doc).ok_or(IndexError::DamagedDocument { field: Fields::ID })?;
                let day = entered.first(doc).map(|day| day.into_timestamp_secs());
                works.push((day, PaperId::new(id)));
            }
        }
        // `None` sorts before every day, so reversed it comes last.
        works.sort_unstable_by_key(|&(day, id)| Reverse((day, id)));
        Ok(works.into_iter().map(|(_, id)| id).collect())
    }

    /// Every committed work whose `entered` day lies in `since..=until` (an open bound is no
    /// bound) and that any of `sources` reported (none named: every source), in id order. The
    /// same rules as [`PaperQuery`]'s filters, without a limit: works without an `entered` day
    /// are left out when a bound is set.
    pub fn ids_in_window(&self, since: Option<NaiveDate>, until: Option<NaiveDate>, sources: &[Source]) -> Result<Vec<PaperId>, IndexError> {
        if matches!((since, until), (Some(since), Some(until)) if since > until) {
            return Ok(Vec::new());
        }
        let window = PaperQuery { since, until, sources: sources.to_vec(), ..PaperQuery::default() };
        let mut clauses = filters(self.fields(), &window);
        clauses.push((Occur::Must, Box::new(AllQuery)));
        let searcher = self.searcher();
        let found = searcher.search(&BooleanQuery::new(clauses), &DocSetCollector).map_err(|source| IndexError::Search { source })?;
        let mut ids = found.into_iter().map(|address| id_of(&searcher, address)).collect::<Result<Vec<_>, _>>()?;
        ids.sort_unstable();
        Ok(ids)
    }

    /// How many committed works [`PaperIndex::ids_in_window`] would list, counted without
    /// listing them.
    pub fn count_in_window(&self, since: Option<NaiveDate>, until: Option<NaiveDate>, sources: &[Source]) -> Result<u64, IndexError> {
        if matches!((since, until), (Some(since), Some(until)) if since > until) {
            return Ok(0);
        }
        let window = PaperQuery { since, until, sources: sources.to_vec(), ..PaperQuery::default() };
        let mut clauses = filters(self.fields(), &window);
        clauses.push((Occur::Must, Box::new(AllQuery)));
        let count = self.searcher().search(&BooleanQuery::new(clauses), &Count).map_err(|source| IndexError::Search { source })?;
        Ok(count as u64)
    }

    /// The committed papers of `ids`, in the order asked (an id asked twice comes once); ids the
    /// index does not hold (never given, or absorbed by a merge since) are skipped.
    pub fn papers_by_id(&self, ids: &[PaperId]) -> Result<Vec<(PaperId, Paper)>, IndexError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let fields = self.fields();
        let terms = ids.iter().map(|id| Term::from_field_u64(fields.id, id.get()));
        let searcher = self.searcher();
        let found = searcher.search(&TermSetQuery::new(terms), &DocSetCollector).map_err(|source| IndexError::Lookup { source })?;
        let mut papers: HashMap<PaperId, Paper> = HashMap::with_capacity(found.len());
        for address in found {
            let document: TantivyDocument = searcher.doc(address).map_err(|source| IndexError::Lookup { source })?;
            let stored = fields.stored_paper(&document)?;
            papers.insert(stored.id, stored.paper);
        }
        Ok(ids.iter().filter_map(|id| papers.remove(id).map(|paper| (*id, paper))).collect())
    }
}
