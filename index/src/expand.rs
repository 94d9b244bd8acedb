//! Expanded ranking: a query widened by pseudo-relevance feedback (`engine::expansion::rm3`) over
//! the index itself.
//!
//! The feedback papers are the best matches of the query's text over the whole index (no date
//! or source filter: the whole index is the better sample of how a topic is written about); their
//! titles and abstracts are analyzed with the index's English analyzer. The final query is the
//! original text query, boosted by `original_weight / |q|`, or'ed with each word of the
//! relevance model over the English text fields (title weighted as in [`crate::TITLE_BOOST`]),
//! boosted by its weight in the model; then the query's filters apply as in
//! [`PaperIndex::search`].

use engine::expansion::{rm3, FeedbackDoc, Rm3};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, Searcher, TantivyDocument, Term};

use crate::error::IndexError;
use crate::paper_index::PaperIndex;
use crate::query::{filters, Hit, PaperQuery, TITLE_BOOST};
use crate::schema::ENGLISH_TOKENIZER;
use crate::PaperId;

/// An expanded query: each analyzed word with its weight, strongest first.
pub type Expansion = Vec<(String, f32)>;

impl PaperIndex {
    /// `text` as the index's English analyzer splits, lower-cases and stems it.
    pub fn analyze(&self, text: &str) -> Vec<String> {
        let Some(mut analyzer) = self.index().tokenizers().get(ENGLISH_TOKENIZER) else {
            return Vec::new();
        };
        let mut tokens = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            tokens.push(stream.token().text.clone());
        }
        tokens
    }

    /// Each analyzed word of `text` with the text it was read from, lowercased ("toxicity" for
    /// the word `toxic`), to show readers words rather than stems.
    pub fn analyze_with_surface(&self, text: &str) -> Vec<(String, String)> {
        let Some(mut analyzer) = self.index().tokenizers().get(ENGLISH_TOKENIZER) else {
            return Vec::new();
        };
        let mut tokens = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            let token = stream.token();
            let surface = text.get(token.offset_from..token.offset_to).unwrap_or(&token.text).to_lowercase();
            tokens.push((token.text.clone(), surface));
        }
        tokens
    }

    /// The RM3 expansion of `query.text` over the committed papers (see the module docs).
    pub fn expand(&self, query: &PaperQuery, params: &Rm3) -> Result<Expansion, IndexError> {
        let searcher = self.searcher();
        self.expand_with(&searcher, query, params)
    }

    /// Like [`PaperIndex::rank`], for the expanded query; the expansion comes along.
    pub fn rank_expanded(&self, query: &PaperQuery, params: &Rm3) -> Result<(Vec<(PaperId, f32)>, Expansion), IndexError> {
        let searcher = self.searcher();
        let (found, expansion) = self.top_expanded(&searcher, query, params)?;
        let ranked = found.into_iter().map(|(score, address)| crate::query::id_of(&searcher, address).map(|id| (id, score))).collect::<Result<_, _>>()?;
        Ok((ranked, expansion))
    }

    /// Like [`PaperIndex::search`], for the expanded query; the expansion comes along.
    pub fn search_expanded(&self, query: &PaperQuery, params: &Rm3) -> Result<(Vec<Hit>, Expansion), IndexError> {
        let searcher = self.searcher();
        let (found, expansion) = self.top_expanded(&searcher, query, params)?;
        let hits = found.into_iter().map(|(score, address)| crate::query::hit(&searcher, self.fields(), address, score)).collect::<Result<_, _>>()?;
        Ok((hits, expansion))
    }

    fn top_expanded(&self, searcher: &Searcher, query: &PaperQuery, params: &Rm3) -> Result<(Vec<(f32, DocAddress)>, Expansion), IndexError> {
        let query_terms = self.analyze(&query.text);
        if query.limit == 0 || query_terms.is_empty() {
            return Ok((self.top(searcher, query)?, Vec::new()));
        }
        let expansion = self.expand_with(searcher, query, params)?;
        let fields = self.fields();
        let query_share = params.original_weight / query_terms.len() as f32;
        let mut words: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Should, Box::new(BoostQuery::new(self.text_query(&query.text), query_share)))];
        for (term, weight) in &expansion {
            let model_weight = weight - if query_terms.contains(term) { query_share * count(&query_terms, term) } else { 0.0 };
            if model_weight <= f32::EPSILON {
                continue;
            }
            let per_field: Vec<(Occur, Box<dyn Query>)> = [(fields.title, TITLE_BOOST), (fields.abstract_text, 1.0), (fields.journal, 1.0)]
                .into_iter()
                .map(|(field, boost)| {
                    let term_query = TermQuery::new(Term::from_field_text(field, term), IndexRecordOption::WithFreqs);
                    (Occur::Should, Box::new(BoostQuery::new(Box::new(term_query), boost)) as Box<dyn Query>)
                })
                .collect();
            words.push((Occur::Should, Box::new(BoostQuery::new(Box::new(BooleanQuery::new(per_field)), model_weight))));
        }
        let mut clauses = filters(fields, query);
        clauses.push((Occur::Must, Box::new(BooleanQuery::new(words))));
        let found = searcher
            .search(&BooleanQuery::new(clauses), &TopDocs::with_limit(query.limit))
            .map_err(|source| IndexError::Search { source })?;
        Ok((found, expansion))
    }

    fn expand_with(&self, searcher: &Searcher, query: &PaperQuery, params: &Rm3) -> Result<Expansion, IndexError> {
        let query_terms = self.analyze(&query.text);
        if query_terms.is_empty() {
            return Ok(Vec::new());
        }
        let fields = self.fields();
        let best = TopDocs::with_limit(params.feedback_docs.max(1));
        let found = searcher.search(&self.text_query(&query.text), &best).map_err(|source| IndexError::Search { source })?;
        let mut feedback = Vec::with_capacity(found.len());
        for (score, address) in found {
            let document: TantivyDocument = searcher.doc(address).map_err(|source| IndexError::Search { source })?;
            let paper = fields.stored_paper(&document)?.paper;
            let mut tokens = self.analyze(&paper.title);
            for section in &paper.abstract_sections {
                tokens.extend(self.analyze(&section.text));
            }
            feedback.push(FeedbackDoc::from_tokens(score, tokens));
        }
        Ok(rm3(&query_terms, &feedback, params))
    }
}

fn count(terms: &[String], term: &str) -> f32 {
    terms.iter().filter(|candidate| *candidate == term).count() as f32
}
