//! A topic's concepts, and the evidence a paper gives for each of its key concepts.
//!
//! **Concepts.** The topic's words as typed, analyzed (stems, with the surface each came from).
//! Most words are a concept each; a short part is bound to its neighbour into one phrase, so it
//! never matches alone: a single letter or a number ("vitamin D", "type 1", "hepatitis B"), and
//! any part of at most two letters in a hyphenated word with such a part ("IL-6", "COVID-19",
//! "SARS-CoV-2"). A paper has a phrase concept only where its words stand together, in order.
//!
//! **False friends.** A stem is not its topic word when the paper's spelling is a Latin genitive
//! of it (ending in "ae" where the topic's does not): "influenzae" in *Haemophilus influenzae* is
//! not influenza, *Streptococcus pneumoniae* is not pneumonia. Such words, and short parts
//! standing alone, are taken out of the paper's words before anything is weighed
//! ([`TopicConcepts::read_paper`]), so they add no strength and are never named as matched.
//!
//! **Key concepts** are the topic's most specific ([`crate::scoring::KEY_CONCEPT_SHARE`] of the
//! rarest concept's idf). With an embedding model a paper is sent only with evidence for each key
//! concept of its own ([`KeyEvidence`]), never for the topic as a whole (all-MiniLM-L6-v2 puts
//! most papers of one field close to each other: malaria and tuberculosis drug resistance):
//! - its words (the phrase, for a phrase concept);
//! - a known variant or abbreviation ([`VARIANTS`]: "TB", "tubercular" for tuberculosis), or the
//!   British or American spelling ("tumour", "leukaemia");
//! - a subject term the source gives the paper (PubMed's MeSH headings and keywords, arXiv's
//!   categories, bioRxiv's and medRxiv's subject) that has the concept's words;
//! - the concept's own meaning: the cosine of the concept's vector alone with the paper's at
//!   least [`CONCEPT_MEANING_COVERS`].
//!
//! A topic of four or more key concepts may miss one in three ([`allowed_missing`]). A request
//! (a sentence of [`REQUEST_CONCEPTS`] concepts or more, not a topic of a few words) may miss
//! more when the paper is close to the whole of it ([`REQUEST_MEANING_COVERS`]): a request's
//! relevant papers rarely repeat its words, and closeness to all of it says more than
//! closeness to a field.
//!
//! The reason line names the evidence it used; a paper without evidence claims no concept.

use std::fmt;

/// A concept's own cosine with a paper's vector from which the paper covers it in meaning
/// (all-MiniLM-L6-v2; calibrated on the trap collection and the short topics of MED, Cranfield
/// and SciFact: `bench/README.md`, "Key concepts need evidence").
pub const CONCEPT_MEANING_COVERS: f64 = 0.5;

/// How close a paper is in meaning to one key concept of the topic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Meaning {
    /// The cosine of the concept's own vector (its text alone) with the paper's.
    pub alone: f32,
    /// How much closer the paper is to the whole topic than to the topic without the concept
    /// (`None` for a topic of one concept): a paper about another disease of the same field comes
    /// closer when the concept goes.
    pub contrast: Option<f32>,
}

/// From what closeness a paper shows a key concept in meaning: its cosine with the concept alone
/// at least `alone`, or the topic's closeness falling by at least `contrast` without it. And from
/// what closeness to the whole of a request (a topic of at least `request_concepts` concepts) a
/// paper may miss more of its concepts than [`allowed_missing`]: `request`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeaningCovers {
    pub alone: f64,
    pub contrast: f64,
    pub request: f64,
    pub request_concepts: usize,
}

impl MeaningCovers {
    /// The service's thresholds.
    pub const SERVICE: MeaningCovers = MeaningCovers {
        alone: CONCEPT_MEANING_COVERS,
        contrast: CONCEPT_CONTRAST_COVERS,
        request: REQUEST_MEANING_COVERS,
        request_concepts: REQUEST_CONCEPTS,
    };

    fn covers(&self, meaning: &Meaning) -> bool {
        f64::from(meaning.alone) >= self.alone || meaning.contrast.is_some_and(|contrast| f64::from(contrast) >= self.contrast)
    }
}

/// The fall in a paper's closeness to the topic without one key concept from which the paper
/// shows the concept in meaning (calibrated with [`CONCEPT_MEANING_COVERS`]).
pub const CONCEPT_CONTRAST_COVERS: f64 = 0.08;

/// A paper this close in meaning to a request of many concepts ([`REQUEST_CONCEPTS`]: a
/// sentence describing what is wanted, not a topic of a few words) passes whatever concepts it
/// misses: such a request's relevant papers rarely repeat its concepts, and the closeness of a
/// whole request is evidence of the request, not of one concept (the reason line claims none it
/// lacks). The old gate's threshold for every topic, kept for requests only.
pub const REQUEST_MEANING_COVERS: f64 = 0.45;

/// A topic of this many concepts or more is a request (see [`REQUEST_MEANING_COVERS`]), not the
/// few words researchers type as a topic (chosen on MED's and Cranfield's long and short topics:
/// from five on, MED's short topics lost precision; `bench/README.md`, "Requests").
pub const REQUEST_CONCEPTS: usize = 6;

/// Known variants of a concept: another word for it or its abbreviation, as typed (a variant may
/// be several words, a phrase). Only unambiguous ones: "AD" is Alzheimer's disease and atopic
/// dermatitis, "PD" Parkinson's disease and programmed death, so neither is here.
pub const VARIANTS: &[(&str, &[&str])] = &[
    ("tuberculosis", &["TB", "Mtb", "tubercular", "tuberculous", "MDR-TB", "XDR-TB"]),
    ("HIV", &["human immunodeficiency virus", "HIV-1", "HIV-2"]),
    ("AIDS", &["acquired immunodeficiency syndrome"]),
    ("COVID-19", &["SARS-CoV-2", "coronavirus disease 2019", "COVID"]),
    ("SARS-CoV-2", &["COVID-19", "COVID"]),
    ("influenza", &["flu", "H1N1", "H3N2", "H5N1", "H7N9"]),
    ("malaria", &["Plasmodium", "falciparum", "vivax"]),
    ("cancer", &["tumor", "tumour", "carcinoma", "neoplasm", "neoplasia", "malignancy", "malignant", "oncology", "sarcoma", "leukemia", "lymphoma"]),
    ("tumor", &["cancer", "carcinoma", "neoplasm", "malignancy"]),
    (
        "neurodegeneration",
        &["neurodegenerative", "Alzheimer", "Parkinson", "Huntington", "amyotrophic lateral sclerosis", "frontotemporal dementia", "prion"],
    ),
    ("cardiovascular", &["cardiac", "coronary", "myocardial", "heart", "atherosclerosis", "atherosclerotic", "stroke"]),
    ("diabetes", &["diabetic", "T2D", "T2DM", "T1D", "T1DM", "NIDDM", "IDDM"]),
    ("obesity", &["obese", "adiposity", "overweight"]),
    ("hypertension", &["hypertensive", "high blood pressure"]),
    ("stroke", &["cerebrovascular", "cerebral infarction"]),
    ("autism", &["autistic", "ASD"]),
    ("depression", &["depressive", "MDD"]),
    ("leukemia", &["AML", "CML", "CLL"]),
    ("colorectal", &["CRC", "colon", "rectal"]),
    ("hepatocellular", &["HCC"]),
    ("breast", &["mammary"]),
    ("gastric", &["stomach"]),
    ("liver", &["hepatic"]),
    ("kidney", &["renal"]),
    ("lung", &["pulmonary"]),
    ("mouse", &["mice", "murine"]),
    ("children", &["child", "pediatric", "paediatric", "childhood"]),
    ("pregnancy", &["pregnant", "gestational", "gestation", "prenatal", "antenatal"]),
    ("hepatitis C", &["HCV"]),
    ("hepatitis B", &["HBV"]),
    ("Helicobacter pylori", &["H. pylori"]),
    ("HPV", &["human papillomavirus", "papillomavirus"]),
    ("COPD", &["chronic obstructive pulmonary disease"]),
    ("sepsis", &["septic"]),
    ("aspirin", &["acetylsalicylic acid"]),
    ("statin", &["atorvastatin", "simvastatin", "rosuvastatin", "pravastatin", "lovastatin", "fluvastatin", "HMG-CoA reductase inhibitor"]),
];

/// One concept of a topic.
#[derive(Debug, Clone, PartialEq)]
pub struct Concept {
    /// As typed: "tuberculosis", "vitamin D", "IL-6".
    pub typed: String,
    /// Its analyzed words, in order (more than one: a phrase).
    pub words: Vec<String>,
    /// The lower-cased surface each word was typed as.
    pub surfaces: Vec<String>,
}

/// How a paper shows a key concept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// Its own words.
    Words,
    /// A known variant or abbreviation, as the paper spells it.
    Variant(String),
    /// A subject term the source gives the paper.
    Subject(String),
    /// The concept's own meaning, this close (hundredths).
    Meaning(u8),
}

/// A key concept the paper shows other than by its words, as the reason line names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyEvidence {
    /// The concept as typed.
    pub concept: String,
    pub shown: Shown,
}

impl fmt::Display for KeyEvidence {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let concept = &self.concept;
        match &self.shown {
            Shown::Words => write!(formatter, "\"{concept}\""),
            Shown::Variant(variant) => write!(formatter, "\"{concept}\" as \"{variant}\""),
            Shown::Subject(subject) => write!(formatter, "\"{concept}\" as the subject \"{subject}\""),
            Shown::Meaning(_) => write!(formatter, "\"{concept}\" close in meaning on its own"),
        }
    }
}

/// A topic's concepts, and which are key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TopicConcepts {
    pub concepts: Vec<Concept>,
    /// Per concept: whether it is key.
    pub key: Vec<bool>,
}

/// Whether a typed part is too short to stand for a concept alone: a single letter or a number.
fn is_short(surface: &str) -> bool {
    surface.chars().count() == 1 || surface.chars().all(|character| character.is_ascii_digit())
}

/// The typed words of `text` (split at spaces and punctuation other than hyphens), each with the
/// byte range it covers.
fn typed_words(text: &str) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut start = None;
    for (at, character) in text.char_indices() {
        let inside = character.is_alphanumeric() || character == '-';
        match (inside, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                words.push((from, at));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        words.push((from, text.len()));
    }
    words
}

/// `text`'s concepts: `analyze` reads a text as the index does (stems with their surfaces).
pub fn concepts_of(text: &str, analyze: impl Fn(&str) -> Vec<(String, String)>) -> Vec<Concept> {
    // Each analyzed word, with the typed word it belongs to and the bytes of `text` it was read
    // from.
    let mut parts: Vec<(String, String, usize, (usize, usize))> = Vec::new();
    for (position, (from, to)) in typed_words(text).into_iter().enumerate() {
        let lower = text[from..to].to_lowercase();
        let mut cursor = 0;
        for (stem, surface) in analyze(&text[from..to]) {
            // Lower-casing keeps these words' lengths (ASCII); else the whole typed word.
            let span = match lower.get(cursor..).and_then(|rest| rest.find(&surface)) {
                Some(at) if lower.len() == to - from => {
                    cursor += at + surface.len();
                    (from + cursor - surface.len(), from + cursor)
                }
                _ => (from, to),
            };
            parts.push((stem, surface, position, span));
        }
    }
    let hyphenated_short = |position: usize| {
        let in_word: Vec<_> = parts.iter().filter(|part| part.2 == position).collect();
        in_word.len() > 1 && in_word.iter().any(|part| is_short(&part.1) || part.1.chars().count() <= 2)
    };
    let mut concepts: Vec<Concept> = Vec::new();
    // The bytes of `text` each concept was typed as.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (index, (stem, surface, position, span)) in parts.iter().enumerate() {
        let joins_previous = index > 0 && {
            let previous = &parts[index - 1];
            (previous.2 == *position && hyphenated_short(*position)) || is_short(surface) || (is_short(&previous.1) && index == 1)
        };
        match (concepts.last_mut(), spans.last_mut()) {
            (Some(last), Some(last_span)) if joins_previous => {
                last.words.push(stem.clone());
                last.surfaces.push(surface.clone());
                last_span.1 = span.1;
            }
            _ => {
                concepts.push(Concept { typed: String::new(), words: vec![stem.clone()], surfaces: vec![surface.clone()] });
                spans.push(*span);
            }
        }
    }
    for (concept, (from, to)) in concepts.iter_mut().zip(spans) {
        concept.typed = text[from..to].to_owned();
    }
    concepts
}

impl TopicConcepts {
    /// The concepts of `text`, key by `is_key` (given each concept's words).
    pub fn new(concepts: Vec<Concept>, is_key: impl Fn(&[Concept]) -> Vec<bool>) -> TopicConcepts {
        let key = is_key(&concepts);
        TopicConcepts { concepts, key }
    }

    /// The key concepts.
    pub fn key_concepts(&self) -> impl Iterator<Item = &Concept> {
        self.concepts.iter().zip(&self.key).filter(|(_, key)| **key).map(|(concept, _)| concept)
    }

    /// A paper's analyzed words as the topic reads them: a topic word spelled as its Latin
    /// genitive, a phrase concept's word outside its phrase, and the first word of a name that is
    /// not about it ([`NOT_THEIR_FIRST_WORD`], unless the topic names it too), taken out.
    pub fn read_paper(&self, words: &[(String, String)]) -> Vec<(String, String)> {
        let mut kept = vec![true; words.len()];
        for name in NOT_THEIR_FIRST_WORD {
            let named_by_topic = self.concepts.iter().flat_map(|concept| &concept.surfaces).any(|surface| surface == name[1]);
            if named_by_topic {
                continue;
            }
            for start in 0..words.len().saturating_sub(name.len() - 1) {
                if name.iter().enumerate().all(|(offset, part)| words[start + offset].1 == *part) {
                    kept[start] = false;
                }
            }
        }
        for concept in &self.concepts {
            for (at, (stem, surface)) in words.iter().enumerate() {
                if let Some(part) = concept.words.iter().position(|word| word == stem) {
                    if is_false_friend(&concept.surfaces[part], surface) {
                        kept[at] = false;
                    }
                }
            }
            if concept.words.len() > 1 {
                let mut in_phrase = vec![false; words.len()];
                for start in phrase_starts(&concept.words, words) {
                    in_phrase[start..start + concept.words.len()].iter_mut().for_each(|inside| *inside = true);
                }
                for (at, (stem, _)) in words.iter().enumerate() {
                    // A word of the phrase that is also a concept of its own stays.
                    let alone = self.concepts.iter().any(|other| other.words.len() == 1 && other.words[0] == *stem);
                    if concept.words.contains(stem) && !in_phrase[at] && !alone {
                        kept[at] = false;
                    }
                }
            }
        }
        words.iter().zip(kept).filter(|(_, kept)| *kept).map(|(word, _)| word.clone()).collect()
    }

    /// `words` with each known variant of a concept (`variants`, by concept, as
    /// [`variants_of`] gives them) read as the concept's own words, for the strength of the
    /// evidence: "TB" weighs as "tuberculosis" would.
    pub fn with_variants_read(&self, words: &[(String, String)], variants: &[Vec<Concept>]) -> Vec<(String, String)> {
        let mut read: Vec<(String, String)> = Vec::with_capacity(words.len());
        let mut at = 0;
        'words: while at < words.len() {
            for (concept, variants) in self.concepts.iter().zip(variants) {
                for variant in variants {
                    let length = variant.words.len();
                    let matches =
                        at + length <= words.len() && variant.words.iter().zip(&words[at..at + length]).all(|(word, (stem, _))| word == stem);
                    if matches {
                        read.extend(concept.words.iter().map(|word| (word.clone(), words[at].1.clone())));
                        at += length;
                        continue 'words;
                    }
                }
            }
            read.push(words[at].clone());
            at += 1;
        }
        read
    }

    /// Whether `words` (read by [`TopicConcepts::read_paper`]) have `concept`'s words.
    pub fn has_words(concept: &Concept, words: &[(String, String)]) -> bool {
        phrase_starts(&concept.words, words).next().is_some()
    }

    /// The evidence `paper` gives for each key concept: `words` are its title's and abstract's
    /// (read by [`TopicConcepts::read_paper`]), `subjects` its subject terms read the same way, each with
    /// its text, and `meaning` a concept's cosine with the paper when there is a model. `None`:
    /// a key concept without evidence.
    pub fn key_evidence(
        &self,
        words: &[(String, String)],
        subjects: &[(String, Vec<(String, String)>)],
        variants: &[Vec<Concept>],
        covers: &MeaningCovers,
        meaning: impl Fn(usize) -> Option<Meaning>,
        whole: Option<f32>,
    ) -> Option<Vec<KeyEvidence>> {
        let mut shown = Vec::new();
        let keys = self.key.iter().filter(|key| **key).count();
        let mut missing = 0;
        for (index, (concept, key)) in self.concepts.iter().zip(&self.key).enumerate() {
            if !*key {
                continue;
            }
            let evidence = if TopicConcepts::has_words(concept, words) {
                Shown::Words
            } else if let Some(variant) =
                variants.get(index).and_then(|variants| variants.iter().find(|variant| TopicConcepts::has_words(variant, words)))
            {
                let spelling = spelled(variant, words);
                // As the variant is written ("MDR-TB"), when the paper has it so but for case and hyphens.
                let letters =
                    |text: &str| text.chars().filter(|character| character.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>();
                Shown::Variant(if letters(&spelling) == letters(&variant.typed) { variant.typed.clone() } else { spelling })
            } else if let Some((subject, _)) = subjects.iter().find(|(_, read)| TopicConcepts::has_words(concept, read)) {
                Shown::Subject(subject.clone())
            } else if let Some(meaning) = meaning(index).filter(|meaning| covers.covers(meaning)) {
                Shown::Meaning((meaning.alone.clamp(0.0, 1.0) * 100.0).round() as u8)
            } else {
                missing += 1;
                continue;
            };
            shown.push(KeyEvidence { concept: concept.typed.clone(), shown: evidence });
        }
        let close_to_request = self.concepts.len() >= covers.request_concepts && whole.is_some_and(|cosine| f64::from(cosine) >= covers.request);
        (missing <= allowed_missing(keys) || close_to_request).then_some(shown)
    }
}

/// A topic of this many key concepts or more may miss one in so many (a long request is rarely
/// met word for word); a short topic's key concepts must each be shown.
pub const KEY_CONCEPTS_PER_MISS: usize = 3;

/// How many of `keys` key concepts a paper may show no evidence for: none up to three, one in
/// [`KEY_CONCEPTS_PER_MISS`] beyond (on the test collections' short topics, MED's precision rose
/// from 0.83 to 0.87 where requiring all of them lost two thirds of its relevant papers;
/// `bench/README.md`, "Key concepts need evidence").
pub fn allowed_missing(keys: usize) -> usize {
    keys.saturating_sub(1) / KEY_CONCEPTS_PER_MISS
}

/// `term` without `concept` (its first place as typed), spaces closed up.
pub fn without(term: &str, concept: &Concept) -> String {
    let rest = match term.find(&concept.typed) {
        Some(at) => format!("{} {}", &term[..at], &term[at + concept.typed.len()..]),
        None => term.to_owned(),
    };
    rest.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The variants [`VARIANTS`] knows of each of `topic`'s concepts, as concepts (analyzed by
/// `analyze`), with spelling variants (British and American) of its single words.
pub fn variants_of(topic: &TopicConcepts, analyze: impl Fn(&str) -> Vec<(String, String)>) -> Vec<Vec<Concept>> {
    topic
        .concepts
        .iter()
        .map(|concept| {
            let mut found: Vec<Concept> = Vec::new();
            for (name, variants) in VARIANTS {
                let named = concepts_of(name, &analyze);
                let same = named.len() == 1 && named[0].words == concept.words;
                if same {
                    for variant in *variants {
                        let words: Vec<(String, String)> = analyze(variant);
                        if !words.is_empty() {
                            found.push(Concept {
                                typed: (*variant).to_owned(),
                                surfaces: words.iter().map(|(_, surface)| surface.clone()).collect(),
                                words: words.into_iter().map(|(word, _)| word).collect(),
                            });
                        }
                    }
                }
            }
            if concept.words.len() == 1 {
                for spelling in other_spellings(&concept.surfaces[0]) {
                    let words = analyze(&spelling);
                    if words.len() == 1 && words[0].0 != concept.words[0] {
                        found.push(Concept { typed: spelling, words: vec![words[0].0.clone()], surfaces: vec![words[0].1.clone()] });
                    }
                }
            }
            // The longest first, so "MDR-TB" is read whole before "TB".
            found.sort_by_key(|variant| std::cmp::Reverse(variant.words.len()));
            found
        })
        .collect()
}

/// The British or American spelling of `word`: "ae"/"oe" and "e" ("leukaemia", "oestrogen"),
/// "our" and "or" ("tumour").
fn other_spellings(word: &str) -> Vec<String> {
    let mut spellings = Vec::new();
    for (from, to) in [("ae", "e"), ("oe", "e"), ("our", "or")] {
        if word.contains(from) && !word.ends_with(from) {
            spellings.push(word.replacen(from, to, 1));
        }
    }
    if let Some(stem) = word.strip_suffix("or") {
        spellings.push(format!("{stem}our"));
    }
    for (from, to) in [("leukem", "leukaem"), ("anem", "anaem"), ("hem", "haem"), ("estr", "oestr"), ("ped", "paed"), ("fet", "foet")] {
        if let Some(rest) = word.strip_prefix(from) {
            spellings.push(format!("{to}{rest}"));
        }
    }
    spellings
}

/// Names (lower-cased words) whose first word is not what it says alone: "tumor necrosis factor"
/// is a cytokine, in papers on inflammation of every kind, not a tumor; its "tumor" neither is the
/// topic's word nor shows "cancer".
const NOT_THEIR_FIRST_WORD: &[&[&str]] = &[&["tumor", "necrosis", "factor"], &["tumour", "necrosis", "factor"]];

/// Whether a paper's `surface` of a topic word typed as `typed` is another word that stems
/// alike: a Latin genitive ("influenzae" for "influenza").
fn is_false_friend(typed: &str, surface: &str) -> bool {
    surface.ends_with("ae") && !typed.ends_with("ae") && surface != typed
}

/// Where `phrase` starts in `words`, its words standing together in order.
fn phrase_starts<'a>(phrase: &'a [String], words: &'a [(String, String)]) -> impl Iterator<Item = usize> + 'a {
    (0..words.len().saturating_sub(phrase.len().saturating_sub(1)))
        .filter(move |start| !phrase.is_empty() && phrase.iter().enumerate().all(|(offset, word)| words[start + offset].0 == *word))
}

/// `concept` as `words` spell it where it first stands.
fn spelled(concept: &Concept, words: &[(String, String)]) -> String {
    match phrase_starts(&concept.words, words).next() {
        Some(start) => words[start..start + concept.words.len()].iter().map(|(_, surface)| surface.as_str()).collect::<Vec<_>>().join(" "),
        None => concept.typed.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits as the index does (letters and digits), lower-cases, and stems crudely: a final
    /// "s" or "e" dropped ("influenzae" → "influenza", as the index's stemmer reads it too).
    fn analyze(text: &str) -> Vec<(String, String)> {
        text.split(|character: char| !character.is_alphanumeric())
            .filter(|word| !word.is_empty() && !["in", "of", "and", "the"].contains(word))
            .map(|word| {
                let surface = word.to_lowercase();
                let stem = surface.strip_suffix('s').or_else(|| surface.strip_suffix('e')).unwrap_or(&surface).to_owned();
                (stem, surface)
            })
            .collect()
    }

    fn typed(text: &str) -> Vec<String> {
        concepts_of(text, analyze).into_iter().map(|concept| concept.typed).collect()
    }

    const COVERS: MeaningCovers = MeaningCovers { alone: 0.5, contrast: 0.08, request: 0.45, request_concepts: 5 };

    /// `text`'s concepts, the first `key` of them key.
    fn topic(text: &str, key: &[bool]) -> TopicConcepts {
        TopicConcepts::new(concepts_of(text, analyze), |concepts| (0..concepts.len()).map(|at| key.get(at).copied().unwrap_or(false)).collect())
    }

    #[test]
    fn short_parts_are_bound_to_their_neighbour_and_whole_words_stand_alone() {
        assert_eq!(typed("vitamin D supplementation"), ["vitamin D", "supplementation"]);
        assert_eq!(typed("type 1 diabetes pregnancy"), ["type 1", "diabetes", "pregnancy"]);
        assert_eq!(typed("IL-6 signalling in sepsis"), ["IL-6", "signalling", "sepsis"]);
        assert_eq!(typed("COVID-19 vaccine"), ["COVID-19", "vaccine"]);
        assert_eq!(typed("SARS-CoV-2 spike"), ["SARS-CoV-2", "spike"]);
        assert_eq!(typed("TB drug resistance"), ["TB", "drug", "resistance"], "a two-letter word is a word");
        assert_eq!(typed("multidrug-resistant tuberculosis"), ["multidrug", "resistant", "tuberculosis"]);
        assert_eq!(typed("5 HT receptors"), ["5 HT", "receptors"], "a number first binds to what follows");
        assert_eq!(concepts_of("hepatitis B", analyze)[0].words, ["hepatiti", "b"]);
    }

    #[test]
    fn a_latin_genitive_is_not_its_topic_word() {
        let influenza = topic("influenza vaccine effectiveness", &[true, false, false]);
        let hib = analyze("Haemophilus influenzae type b vaccine effectiveness in infants");
        let read = influenza.read_paper(&hib);
        assert!(!read.iter().any(|(stem, _)| stem == "influenza"), "{read:?}");
        assert!(read.iter().any(|(stem, _)| stem == "vaccin"), "the other words stay");
        assert_eq!(influenza.key_evidence(&read, &[], &[], &COVERS, |_| None, None), None, "no evidence for influenza");
        let flu = influenza.read_paper(&analyze("Influenza vaccine effectiveness against H3N2"));
        assert_eq!(influenza.key_evidence(&flu, &[], &[], &COVERS, |_| None, None).map(|shown| shown.len()), Some(1));
        let pneumonia = topic("pneumonia in children", &[true, false]);
        let pneumoniae = pneumonia.read_paper(&analyze("Streptococcus pneumoniae carriage"));
        assert!(pneumoniae.is_empty() || !pneumoniae.iter().any(|(stem, _)| stem == "pneumonia"));
    }

    #[test]
    fn a_short_part_counts_only_beside_its_neighbour() {
        let vitamin_d = topic("vitamin D supplementation", &[true, false]);
        let folate = analyze("Folate and vitamin B6 supplementation; serum levels at day d 7");
        let read = vitamin_d.read_paper(&folate);
        assert!(!read.iter().any(|(stem, _)| stem == "d"), "the letter alone is no match: {read:?}");
        assert!(!read.iter().any(|(stem, _)| stem == "vitamin"), "nor the word without its letter");
        assert_eq!(vitamin_d.key_evidence(&read, &[], &[], &COVERS, |_| None, None), None);
        let trial = vitamin_d.read_paper(&analyze("Vitamin D supplementation and fractures"));
        assert!(TopicConcepts::has_words(&vitamin_d.concepts[0], &trial));
        assert_eq!(
            vitamin_d.key_evidence(&trial, &[], &[], &COVERS, |_| None, None),
            Some(vec![KeyEvidence { concept: "vitamin D".into(), shown: Shown::Words }])
        );
        let type_1 = topic("type 1 diabetes", &[true, true]);
        let type_2 = type_1.read_paper(&analyze("type 2 diabetes in 1 cohort"));
        assert_eq!(type_1.key_evidence(&type_2, &[], &[], &COVERS, |_| None, None), None, "type 2 is not type 1");
    }

    #[test]
    fn a_key_concept_without_its_words_needs_evidence_of_its_own() {
        let tuberculosis = topic("tuberculosis drug resistance", &[true, false, false]);
        let variants = variants_of(&tuberculosis, analyze);
        assert!(variants[0].iter().any(|variant| variant.typed == "TB"));
        // Malaria drug resistance: the generic words, no evidence for tuberculosis.
        let malaria = tuberculosis.read_paper(&analyze("Chloroquine drug resistance in Plasmodium falciparum"));
        assert_eq!(
            tuberculosis.key_evidence(&malaria, &[], &variants, &COVERS, |_| Some(Meaning { alone: 0.42, contrast: Some(-0.05) }), None),
            None,
            "same field, not the concept"
        );
        // A known abbreviation.
        let tb = tuberculosis.read_paper(&analyze("Drug resistance of TB isolates"));
        let shown = tuberculosis.key_evidence(&tb, &[], &variants, &COVERS, |_| None, None).expect("shown by its abbreviation");
        assert_eq!(shown[0].to_string(), "\"tuberculosis\" as \"TB\"");
        // A subject term the source gives the paper.
        let subjects = vec![("Tuberculosis, Multidrug-Resistant".to_owned(), analyze("Tuberculosis, Multidrug-Resistant"))];
        let plain = tuberculosis.read_paper(&analyze("Drug resistance in isolates from Peru"));
        let shown = tuberculosis.key_evidence(&plain, &subjects, &variants, &COVERS, |_| None, None).expect("shown by its subject term");
        assert_eq!(shown[0].to_string(), "\"tuberculosis\" as the subject \"Tuberculosis, Multidrug-Resistant\"");
        // The concept's own meaning, from the threshold.
        let shown = tuberculosis
            .key_evidence(&plain, &[], &variants, &COVERS, |_| Some(Meaning { alone: 0.55, contrast: None }), None)
            .expect("close to the concept itself");
        assert_eq!(shown[0].shown, Shown::Meaning(55));
        assert_eq!(tuberculosis.key_evidence(&plain, &[], &variants, &COVERS, |_| Some(Meaning { alone: 0.49, contrast: Some(0.01) }), None), None);
        let contrasted = tuberculosis.key_evidence(&plain, &[], &variants, &COVERS, |_| Some(Meaning { alone: 0.3, contrast: Some(0.1) }), None);
        assert!(contrasted.is_some(), "the topic without the concept is much further from it");
        // A concept that is not key needs nothing.
        assert!(tuberculosis.key_evidence(&tuberculosis.read_paper(&analyze("tuberculosis")), &[], &variants, &COVERS, |_| None, None).is_some());
    }

    #[test]
    fn a_long_topic_may_miss_one_key_concept_in_three_and_a_short_one_none() {
        assert_eq!((1..=10).map(allowed_missing).collect::<Vec<_>>(), [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]);
        let long = topic("growth hormone bone development rats", &[true, true, true, true, false]);
        let without_bone = long.read_paper(&analyze("growth hormone and development of rats"));
        let shown = long.key_evidence(&without_bone, &[], &[], &COVERS, |_| None, None).expect("one of four missing");
        assert_eq!(shown.len(), 3, "the missing one is not claimed");
        let without_two = long.read_paper(&analyze("growth hormone in rats"));
        assert_eq!(long.key_evidence(&without_two, &[], &[], &COVERS, |_| None, None), None);
        let close = long.key_evidence(&without_two, &[], &[], &COVERS, |_| None, Some(0.46)).expect("close to the whole request");
        assert_eq!(close.len(), 2, "the two it misses are not claimed");
        assert_eq!(long.key_evidence(&without_two, &[], &[], &COVERS, |_| None, Some(0.44)), None);
        let short = topic("growth hormone rats", &[true, true, true]);
        let without_rats = short.read_paper(&analyze("growth hormone"));
        assert_eq!(short.key_evidence(&without_rats, &[], &[], &COVERS, |_| None, Some(0.9)), None, "a topic's closeness shows none of its concepts");
    }

    #[test]
    fn a_topic_without_a_concept_keeps_the_rest_as_typed() {
        let concepts = concepts_of("Vitamin D supplementation in older adults", analyze);
        assert_eq!(without("Vitamin D supplementation in older adults", &concepts[0]), "supplementation in older adults");
        assert_eq!(without("autophagy", &concepts_of("autophagy", analyze)[0]), "");
    }

    #[test]
    fn a_variant_weighs_as_its_concept() {
        let tuberculosis = topic("tuberculosis drug resistance", &[true, false, false]);
        let variants = variants_of(&tuberculosis, analyze);
        let read = tuberculosis.with_variants_read(&analyze("Resistance in MDR-TB and TB"), &variants);
        let stems: Vec<&str> = read.iter().map(|(stem, _)| stem.as_str()).collect();
        assert_eq!(stems, ["resistanc", "tuberculosi", "tuberculosi"], "the phrase MDR-TB first, then TB");
    }

    #[test]
    fn british_and_american_spellings_are_variants() {
        let tumor = topic("tumor hypoxia", &[true, false]);
        let variants = variants_of(&tumor, analyze);
        let british = tumor.read_paper(&analyze("Hypoxia in the tumour microenvironment"));
        let shown = tumor.key_evidence(&british, &[], &variants, &COVERS, |_| None, None).expect("tumour is tumor");
        assert_eq!(shown[0].shown, Shown::Variant("tumour".into()));
        assert!(other_spellings("leukemia").contains(&"leukaemia".to_owned()));
        assert!(other_spellings("anaemia").contains(&"anemia".to_owned()));
        assert!(other_spellings("influenzae").is_empty(), "a final \"ae\" is a genitive, not a spelling");
    }

    #[test]
    fn a_name_is_not_its_first_word() {
        let cancer = topic("gastric cancer", &[true, true]);
        let variants = variants_of(&cancer, analyze);
        let cytokine = cancer.read_paper(&analyze("Gastric epithelium releases tumor necrosis factor alpha"));
        assert_eq!(cancer.key_evidence(&cytokine, &[], &variants, &COVERS, |_| None, None), None, "TNF is no tumor");
        let both = cancer.read_paper(&analyze("Tumor necrosis factor alpha in a gastric tumor"));
        assert!(cancer.key_evidence(&both, &[], &variants, &COVERS, |_| None, None).is_some(), "the tumor itself still counts");
        let tnf = topic("tumor necrosis factor", &[true, true, true]);
        let tnf_paper = tnf.read_paper(&analyze("Gastric epithelium releases tumor necrosis factor alpha"));
        assert!(tnf.key_evidence(&tnf_paper, &[], &[], &COVERS, |_| None, None).is_some(), "a topic naming TNF keeps it");
    }
}
