//! The English analyzer of the text fields, registered under [`crate::schema::ENGLISH_TOKENIZER`]:
//! split on non-alphanumerics, drop tokens of 40 bytes or more, lower-case, drop English
//! stopwords, Porter-stem, with the stems remembered. It is tantivy's built-in `en_stem` chain
//! with tantivy's English stopword filter (Lucene's 33-word list, the one Lucene's
//! `EnglishAnalyzer` uses) before the stemmer.
//!
//! **Why stopwords go.** Function words ("of", "the", "and", "is") carry no topic, yet every
//! query that contained one matched nearly every paper through it, and they filled every
//! document's length. Dropping them at analysis time keeps them out of queries (typed questions
//! such as "the effects of … on the …" are half function words), out of document lengths, and out
//! of the words that expansion and match reasons see. The list is deliberately Lucene's short one:
//! it holds only words that are never a topic, where long lists start to drop words a search may
//! need ("first", "general", "most"). Positions are kept, so a phrase still matches across a
//! dropped word. The one known cost: a query word that is also a stopword ("vitamin A") loses it.
//!
//! Stemming is the largest single cost of indexing papers, and their vocabulary is small next to
//! their word count, so each analyzer keeps a map from word to stem and stems a word once. The map
//! belongs to one clone of the analyzer (tantivy clones it per segment writer and per query), needs
//! no lock, and stops growing at [`MAX_CACHED_STEMS`] words. A stem comes from tantivy's own
//! stemmer, so the tokens are exactly those of the same chain built from tantivy's filters.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use tantivy::tokenizer::{
    LowerCaser, RawTokenizer, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer, TokenFilter, TokenStream, Tokenizer,
};

/// Tokens this long (in bytes) or longer are dropped, as tantivy's `en_stem` does.
const LONGEST_TOKEN: usize = 40;

/// The most words one analyzer remembers the stem of (a few MiB at most); words met after that
/// are stemmed every time.
pub(crate) const MAX_CACHED_STEMS: usize = 100_000;

/// The English analyzer: tantivy's `en_stem` chain, English stopwords dropped before stemming,
/// with remembered stems.
pub(crate) fn english_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(LONGEST_TOKEN))
        .filter(LowerCaser)
        .filter(english_stopwords())
        .filter(RememberedStems)
        .build()
}

/// The English stopwords: Lucene's list (its `EnglishAnalyzer` default), which is also tantivy's
/// list for English.
pub(crate) const ENGLISH_STOPWORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on", "or", "such", "that",
    "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
];

fn english_stopwords() -> StopWordFilter {
    StopWordFilter::remove(ENGLISH_STOPWORDS.iter().map(|word| (*word).to_owned()))
}

/// A token filter that replaces each (lower-cased) token with its English stem, remembering the
/// stems it has computed.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RememberedStems;

impl TokenFilter for RememberedStems {
    type Tokenizer<T: Tokenizer> = RememberedStemsFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> RememberedStemsFilter<T> {
        RememberedStemsFilter { inner: tokenizer, stems: StemCache::new() }
    }
}

/// [`RememberedStems`] applied to the tokenizer `T`.
#[derive(Clone)]
pub(crate) struct RememberedStemsFilter<T> {
    inner: T,
    stems: StemCache,
}

impl<T: Tokenizer> Tokenizer for RememberedStemsFilter<T> {
    type TokenStream<'a> = RememberedStemsStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        RememberedStemsStream { tail: self.inner.token_stream(text), stems: &mut self.stems }
    }
}

/// The token stream of [`RememberedStemsFilter`].
pub(crate) struct RememberedStemsStream<'a, S> {
    tail: S,
    stems: &'a mut StemCache,
}

impl<S: TokenStream> TokenStream for RememberedStemsStream<'_, S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        self.stems.stem_in_place(&mut self.tail.token_mut().text);
        true
    }

    fn token(&self) -> &tantivy::tokenizer::Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut tantivy::tokenizer::Token {
        self.tail.token_mut()
    }
}

/// Words and their stems, and the stemmer for the words not seen yet.
#[derive(Clone)]
struct StemCache {
    /// Tantivy's English stemmer applied to one whole word (a raw token).
    stemmer: TextAnalyzer,
    stems: HashMap<String, String, BuildHasherDefault<WordHasher>>,
}

impl StemCache {
    fn new() -> StemCache {
        StemCache { stemmer: TextAnalyzer::builder(RawTokenizer::default()).filter(Stemmer::default()).build(), stems: HashMap::default() }
    }

    /// Replaces `word` with its stem.
    fn stem_in_place(&mut self, word: &mut String) {
        if let Some(stem) = self.stems.get(word.as_str()) {
            word.clear();
            word.push_str(stem);
            return;
        }
        let stem = {
            let mut stream = self.stemmer.token_stream(word);
            if stream.advance() {
                stream.token().text.clone()
            } else {
                word.clone()
            }
        };
        if self.stems.len() < MAX_CACHED_STEMS {
            self.stems.insert(std::mem::replace(word, stem.clone()), stem);
        } else {
            *word = stem;
        }
    }
}

/// FNV-1a, 64 bits: for short words several times faster than the standard library's SipHash,
/// whose protection against chosen collisions a bounded cache of one analyzer does not need.
struct WordHasher(u64);

impl Default for WordHasher {
    fn default() -> WordHasher {
        WordHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::{Language, Token};

    use super::*;

    /// Tantivy's built-in `en_stem`, as registered by its tokenizer manager.
    fn builtin_en_stem() -> TextAnalyzer {
        TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(LONGEST_TOKEN))
            .filter(LowerCaser)
            .filter(Stemmer::new(Language::English))
            .build()
    }

    /// The same chain built from tantivy's own filters alone: `en_stem` with tantivy's English
    /// stopword list (its `stopwords` feature) before the stemmer.
    fn builtin_en_stem_without_stopwords() -> TextAnalyzer {
        TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(LONGEST_TOKEN))
            .filter(LowerCaser)
            .filter(StopWordFilter::new(Language::English).expect("tantivy has an English stopword list"))
            .filter(Stemmer::new(Language::English))
            .build()
    }

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<Token> {
        let mut stream = analyzer.token_stream(text);
        let mut tokens = Vec::new();
        stream.process(&mut |token| tokens.push(token.clone()));
        tokens
    }

    const TEXTS: [&str; 4] = [
        "Ribosome stalling drives the cold-shock responses of bacteria; RIBOSOMES stalled, stalling again.",
        "Generalizations: running runners ran, happily HAPPIER happiest — caresses ponies ties caress cats.",
        "Ünïcode wörds, Fe3O4@SiO2, α1-microglobulin and a pneumonoultramicroscopicsilicovolcanoconiosisisms-long token",
        "",
    ];

    #[test]
    fn the_tokens_are_tantivys_own_chain_every_time() {
        let mut ours = english_analyzer();
        let mut builtin = builtin_en_stem_without_stopwords();
        for _ in 0..2 {
            for text in TEXTS {
                assert_eq!(tokens(&mut ours, text), tokens(&mut builtin, text), "{text}");
            }
        }
    }

    #[test]
    fn stopwords_are_the_only_tokens_builtin_en_stem_keeps_and_we_drop() {
        let mut ours = english_analyzer();
        let mut builtin = builtin_en_stem();
        for text in TEXTS {
            let kept: Vec<Token> = tokens(&mut ours, text);
            let dropped: Vec<String> = tokens(&mut builtin, text)
                .into_iter()
                .filter(|token| !kept.iter().any(|ours| ours.position == token.position))
                .map(|token| token.text)
                .collect();
            assert!(dropped.iter().all(|word| ENGLISH_STOPWORDS.contains(&word.as_str())), "{text}: {dropped:?}");
        }
        let words = |analyzer: &mut TextAnalyzer, text: &str| tokens(analyzer, text).into_iter().map(|token| token.text).collect::<Vec<_>>();
        assert_eq!(words(&mut ours, "The effects of a drug on the heart"), ["effect", "drug", "heart"]);
        assert_eq!(words(&mut ours, "What is it"), ["what"], "only Lucene's 33 words go");
    }

    #[test]
    fn positions_survive_a_dropped_stopword() {
        let mut ours = english_analyzer();
        let positions: Vec<(String, usize)> =
            tokens(&mut ours, "theory of relativity").into_iter().map(|token| (token.text, token.position)).collect();
        assert_eq!(positions, [("theori".to_owned(), 0), ("relat".to_owned(), 2)], "a phrase still spans the gap");
    }

    #[test]
    fn the_cache_stops_growing_but_stemming_goes_on() {
        let mut cache = StemCache::new();
        let mut builtin = builtin_en_stem();
        for number in 0..MAX_CACHED_STEMS + 10 {
            let mut word = format!("walk{number}ing");
            let expected: Vec<String> = tokens(&mut builtin, &word).into_iter().map(|token| token.text).collect();
            cache.stem_in_place(&mut word);
            assert_eq!([word], expected.as_slice());
        }
        assert_eq!(cache.stems.len(), MAX_CACHED_STEMS);
    }
}
