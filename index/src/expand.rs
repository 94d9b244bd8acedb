//! Expanded ranking: a query widened by pseudo-relevance feedback (`engine::expansion::rm3`) over
//! the index itself, and the word statistics the absolute relevance score needs
//! (`engine::scoring`).
//!
//! The feedback papers are the best matches of the query's text over the whole index (no date
//! or source filter: the whole index is the better sample of how a topic is written about); their
//! titles and abstracts are analyzed with the index's English analyzer, and each is told how much
//! of the query's own words it carries, so that only papers really on the topic feed the
//! expansion. A word's share of the index is its document frequency (in the title or the
//! abstract, whichever is larger) over the number of papers. The final query is the
//! original text query, boosted by `original_weight / |q|`, or'ed with each word of the
//! relevance model over the English text fields (title weighted as in [`crate::TITLE_BOOST`]),
//! boosted by its weight in the model; then the query's filters apply as in
//! [`PaperIndex::search`].

use std::collections::HashMap;

use engine::expansion::{rm3, FeedbackDoc, Rm3};
use engine::scoring::{evidence, idf, CollectionStats, PaperText, QueryWord, ScoredQuery};
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
        let ranked =
            found.into_iter().map(|(score, address)| crate::query::id_of(&searcher, address).map(|id| (id, score))).collect::<Result<_, _>>()?;
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
        let found =
            searcher.search(&BooleanQuery::new(clauses), &TopDocs::with_limit(query.limit)).map_err(|source| IndexError::Search { source })?;
        Ok((found, expansion))
    }

    fn expand_with(&self, searcher: &Searcher, query: &PaperQuery, params: &Rm3) -> Result<Expansion, IndexError> {
        let query_terms = self.analyze(&query.text);
        if query_terms.is_empty() {
            return Ok(Vec::new());
        }
        let fields = self.fields();
        let stats = collection_stats(searcher, fields);
        let own_only = self.scored_query_with(searcher, &query_terms, &[]);
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
            let own = evidence(&own_only, &PaperText::from_words(tokens.iter().map(String::as_str)), &stats);
            feedback.push(FeedbackDoc::from_tokens(score, own.coverage, own.strength, tokens));
        }
        let documents = stats.documents.max(1) as f64;
        let mut shares: HashMap<&str, f64> = HashMap::new();
        for doc in feedback.iter().filter(|doc| doc.coverage >= params.min_coverage) {
            for word in doc.term_counts.keys() {
                if !shares.contains_key(word.as_str()) {
                    shares.insert(word, document_frequency(searcher, fields, word) as f64 / documents);
                }
            }
        }
        Ok(rm3(&query_terms, &feedback, params, |word| shares.get(word).copied().unwrap_or(1.0)))
    }

    /// The index-wide figures of the absolute relevance score.
    pub fn collection_stats(&self) -> CollectionStats {
        collection_stats(&self.searcher(), self.fields())
    }

    /// `own` (the topic's analyzed words) and `searched` (the weighted words it was searched
    /// with) as the absolute relevance score reads them, with each word's idf in the index. The
    /// topic's own words keep at least half of the weight however many words the search added
    /// (an LLM's phrases, RM3's words), so that a paper is scored against the user's topic first.
    pub fn scored_query(&self, own: &[String], searched: &[(String, f32)]) -> ScoredQuery {
        self.scored_query_with(&self.searcher(), own, searched)
    }

    fn scored_query_with(&self, searcher: &Searcher, own: &[String], searched: &[(String, f32)]) -> ScoredQuery {
        let fields = self.fields();
        let documents = searcher.num_docs();
        let word_idf = |word: &str| idf(document_frequency(searcher, fields, word), documents);
        let mut own_words: Vec<QueryWord> = Vec::new();
        for word in own {
            if !own_words.iter().any(|known| &known.word == word) {
                own_words.push(QueryWord { word: word.clone(), weight: 1.0, idf: word_idf(word) });
            }
        }
        let is_own = |word: &str| own_words.iter().any(|known| known.word == word);
        let own_total: f64 = searched.iter().filter(|(word, _)| is_own(word)).map(|(_, weight)| f64::from(*weight)).sum();
        let added_total: f64 = searched.iter().filter(|(word, _)| !is_own(word)).map(|(_, weight)| f64::from(*weight)).sum();
        let own_share = if added_total > 0.0 { (own_total / (own_total + added_total)).max(0.5) } else { 1.0 };
        let added_share = 1.0 - own_share;
        let mut searched_words: Vec<QueryWord> = Vec::new();
        if own_total > 0.0 {
            for (word, weight) in searched.iter().filter(|(word, _)| is_own(word)) {
                searched_words.push(QueryWord { word: word.clone(), weight: f64::from(*weight) / own_total * own_share, idf: word_idf(word) });
            }
        } else {
            let each = own_share / own_words.len().max(1) as f64;
            searched_words.extend(own_words.iter().map(|word| QueryWord { weight: each, ..word.clone() }));
        }
        for (word, weight) in searched.iter().filter(|(word, _)| !is_own(word)) {
            searched_words.push(QueryWord { word: word.clone(), weight: f64::from(*weight) / added_total * added_share, idf: word_idf(word) });
        }
        ScoredQuery { own: own_words, searched: searched_words }
    }
}

/// Papers in the index and the mean analyzed length of their title and abstract.
fn collection_stats(searcher: &Searcher, fields: crate::schema::Fields) -> CollectionStats {
    let documents = searcher.num_docs();
    let mut tokens: u64 = 0;
    for segment in searcher.segment_readers() {
        for field in [fields.title, fields.abstract_text] {
            if let Ok(inverted) = segment.inverted_index(field) {
                tokens += inverted.total_num_tokens();
            }
        }
    }
    let average_length = if documents > 0 { tokens as f64 / documents as f64 } else { 0.0 };
    CollectionStats { documents, average_length }
}

/// How many papers use `word` (analyzed) in their title or abstract: the larger of the two
/// fields' document frequencies.
fn document_frequency(searcher: &Searcher, fields: crate::schema::Fields, word: &str) -> u64 {
    [fields.title, fields.abstract_text]
        .into_iter()
        .map(|field| searcher.doc_freq(&Term::from_field_text(field, word)).unwrap_or(0))
        .max()
        .unwrap_or(0)
}

fn count(terms: &[String], term: &str) -> f32 {
    terms.iter().filter(|candidate| *candidate == term).count() as f32
}
