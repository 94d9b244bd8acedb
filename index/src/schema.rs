//! The tantivy schema of the paper index, and the conversion of a paper to a document and back.
//!
//! One document is one work. It carries:
//! - `id`: the [`PaperId`] (indexed, stored, fast), the handle for replacing and deleting it;
//! - `keys`: the string form of every dedup key any record of the work ever had (raw, multi-valued,
//!   stored), for look-ups by DOI, PMID, arXiv id or normalized title;
//! - `title`, `abstract`, `journal` (English: lower-cased, stopwords dropped, stemmed), `authors`, `categories`
//!   (lower-cased, not stemmed: names and subject codes), all for BM25;
//! - `entered`, `published` (dates at midnight UTC, indexed and fast), `sources` (raw, multi-valued,
//!   fast) for the filters;
//! - `paper`: the whole [`Paper`] as JSON bytes, so a hit returns exactly what was upserted.
//!
//! Changing any of this changes [`SCHEMA_VERSION`].

use std::collections::BTreeSet;

use chrono::{NaiveDate, NaiveTime};
use engine::paper::Paper;
use tantivy::schema::{
    BytesOptions, DateOptions, DateTimePrecision, Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, Value, FAST,
    STORED, STRING,
};
use tantivy::{DateTime, TantivyDocument};

use crate::error::IndexError;
use crate::PaperId;

/// The version of the schema below, recorded beside an on-disk index; an index of another version
/// is refused (it was analyzed differently, so its terms would not match this binary's queries).
///
/// - 1: English text analyzed as tantivy's `en_stem` (split, lower-cased, Porter-stemmed).
/// - 2: English stopwords dropped before stemming (`crate::tokenizer`), under a tokenizer name of
///   our own, [`ENGLISH_TOKENIZER`].
pub const SCHEMA_VERSION: u32 = 2;

/// English text: split on non-alphanumerics, lower-cased, stopwords dropped, Porter-stemmed
/// (`crate::tokenizer::english_analyzer`, which `PaperIndex` registers under this name). The name
/// is not tantivy's `en_stem`, since the chain is not that one.
pub(crate) const ENGLISH_TOKENIZER: &str = "papertide_english";
/// Names and subject codes: split and lower-cased, not stemmed.
const PLAIN_TOKENIZER: &str = "default";

/// The schema's fields, looked up once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    pub id: Field,
    pub keys: Field,
    pub title: Field,
    pub abstract_text: Field,
    pub authors: Field,
    pub journal: Field,
    pub categories: Field,
    pub entered: Field,
    pub published: Field,
    pub sources: Field,
    pub paper: Field,
}

/// A work as the index holds it: its id, its paper and every key its records had.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StoredPaper {
    pub id: PaperId,
    pub paper: Paper,
    pub keys: BTreeSet<String>,
}

impl Fields {
    pub(crate) const ID: &'static str = "id";
    pub(crate) const ENTERED: &'static str = "entered";

    /// The schema of [`SCHEMA_VERSION`] and its fields.
    pub(crate) fn schema() -> (Schema, Fields) {
        let mut builder = Schema::builder();
        let english = text_options(ENGLISH_TOKENIZER);
        let plain = text_options(PLAIN_TOKENIZER);
        let date = DateOptions::default().set_indexed().set_fast().set_precision(DateTimePrecision::Seconds);
        let fields = Fields {
            id: builder.add_u64_field(Fields::ID, NumericOptions::default().set_indexed().set_stored().set_fast()),
            keys: builder.add_text_field("keys", STRING | STORED),
            title: builder.add_text_field("title", english.clone()),
            abstract_text: builder.add_text_field("abstract", english.clone()),
            authors: builder.add_text_field("authors", plain.clone()),
            journal: builder.add_text_field("journal", english),
            categories: builder.add_text_field("categories", plain),
            entered: builder.add_date_field(Fields::ENTERED, date.clone()),
            published: builder.add_date_field("published", date),
            sources: builder.add_text_field("sources", STRING | FAST),
            paper: builder.add_bytes_field("paper", BytesOptions::default().set_stored()),
        };
        (builder.build(), fields)
    }

    /// The fields a query's text is matched against.
    pub(crate) fn text_fields(&self) -> Vec<Field> {
        vec![self.title, self.abstract_text, self.authors, self.journal, self.categories]
    }

    /// The document for `stored`.
    pub(crate) fn document(&self, stored: &StoredPaper) -> Result<TantivyDocument, IndexError> {
        let paper = &stored.paper;
        let json = serde_json::to_vec(paper).map_err(|source| IndexError::EncodePaper { id: stored.id, source })?;
        let mut document = TantivyDocument::default();
        document.add_u64(self.id, stored.id.get());
        for key in &stored.keys {
            document.add_text(self.keys, key);
        }
        document.add_text(self.title, &paper.title);
        document.add_text(self.abstract_text, paper.abstract_text());
        for author in &paper.authors {
            document.add_text(self.authors, &author.name);
        }
        if let Some(journal) = &paper.journal {
            document.add_text(self.journal, journal);
        }
        for category in &paper.categories {
            document.add_text(self.categories, category);
        }
        if let Some(entered) = paper.entered {
            document.add_date(self.entered, date_time(entered));
        }
        if let Some(published) = paper.published {
            document.add_date(self.published, date_time(published));
        }
        for source in &paper.sources {
            document.add_text(self.sources, source.as_str());
        }
        document.add_bytes(self.paper, &json);
        Ok(document)
    }

    /// The work a stored document holds.
    pub(crate) fn stored_paper(&self, document: &TantivyDocument) -> Result<StoredPaper, IndexError> {
        decode_stored(document, self.id, self.keys, self.paper)
    }
}

/// The work a stored document holds, from its id, keys and paper fields (of this schema or an
/// older one being rebuilt).
pub(crate) fn decode_stored(document: &TantivyDocument, id: Field, keys: Field, paper: Field) -> Result<StoredPaper, IndexError> {
    let id = document.get_first(id).and_then(|value| value.as_u64()).ok_or(IndexError::DamagedDocument { field: "id" })?;
    let id = PaperId::new(id);
    let json = document.get_first(paper).and_then(|value| value.as_bytes()).ok_or(IndexError::DamagedDocument { field: "paper" })?;
    let paper: Paper = serde_json::from_slice(json).map_err(|source| IndexError::DecodePaper { id, source })?;
    let keys = document.get_all(keys).filter_map(|value| value.as_str()).map(str::to_owned).collect();
    Ok(StoredPaper { id, paper, keys })
}

/// A day as the index stores it: midnight UTC.
pub(crate) fn date_time(date: NaiveDate) -> DateTime {
    DateTime::from_timestamp_secs(date.and_time(NaiveTime::MIN).and_utc().timestamp())
}

fn text_options(tokenizer: &str) -> TextOptions {
    let indexing = TextFieldIndexing::default().set_tokenizer(tokenizer).set_index_option(IndexRecordOption::WithFreqsAndPositions);
    TextOptions::default().set_indexing_options(indexing)
}

#[cfg(test)]
mod tests {
    use engine::paper::{AbstractSection, Author, Source};

    use super::*;

    #[test]
    fn a_paper_survives_the_round_trip_through_a_document() {
        let (_, fields) = Fields::schema();
        let mut paper = Paper::new(Source::Biorxiv, "Cold-shock response in Streptomyces");
        paper.abstract_sections = vec![AbstractSection { label: Some("METHODS".into()), text: "Counting.".into() }];
        paper.authors = vec![Author::person(Some("Ada"), "Evans")];
        paper.entered = NaiveDate::from_ymd_opt(2025, 4, 11);
        let keys = ["doi:10.1101/x".to_owned(), "title:cold|evans|2025".to_owned()].into_iter().collect();
        let stored = StoredPaper { id: PaperId::new(7), paper, keys };

        let document = fields.document(&stored).expect("encodes");
        assert_eq!(fields.stored_paper(&document).expect("decodes"), stored);
    }

    #[test]
    fn days_are_stored_at_midnight_utc() {
        let day = NaiveDate::from_ymd_opt(1970, 1, 2).expect("a date");
        assert_eq!(date_time(day).into_timestamp_secs(), 86_400);
    }

    #[test]
    fn a_document_without_its_paper_is_reported_damaged() {
        let (_, fields) = Fields::schema();
        let mut document = TantivyDocument::default();
        document.add_u64(fields.id, 1);
        let error = fields.stored_paper(&document).expect_err("no paper field");
        assert!(matches!(error, IndexError::DamagedDocument { field: "paper" }), "{error}");
    }
}
