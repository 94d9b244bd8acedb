//! Test collections: documents, queries and relevance judgments, read from the two common
//! layouts.
//!
//! **SMART** (a directory): a documents file (`*.ALL`, `*.all.*`), a queries file (`*.QRY`) and a
//! judgments file (`*.REL`, `*qrel*`; never `*.OLD` or `*readme*`). Records open with `.I id`
//! and hold fields `.T` (title), `.A`, `.B`, `.W` (text). A document is its title and text.
//! **A query's id is its position in the queries file (1, 2, …)**: Cranfield's `.I` numbers skip
//! values while its judgments count queries by position; MED's agree with their positions.
//! Judgments come in three layouts, decided once for the whole file:
//! - `query doc code` (three columns; Cranfield): Cleverdon's codes 1 to 4 are relevant, 1 the
//!   most, so the gain is 5 − code; `-1` and other codes are not judged relevant.
//! - `query doc 0 0` (four columns, the last two zero on every line; CISI's `1 28 0 0.000000`,
//!   CACM's `01 1410 0 0`): the file lists the relevant pairs, each with gain 1.
//! - `query iteration doc grade` (four columns otherwise; TREC): relevant when the grade is above
//!   0. The iteration is ignored (it is constant, or a round number).
//!
//! A line alone cannot tell the last two apart: `1 28 0 0` is a relevant pair, or TREC's
//! non-relevant judgment of document 0. The file can: in the pairs layout the second column holds
//! the documents and varies while the third and fourth are always zero, and a TREC file whose
//! documents and grades were all 0 would judge nothing relevant.
//!
//! Ids made only of digits compare by their value, whatever their zero-padding (`.I 0042` is
//! document 42, `01` in the judgments is query 1): documents, query positions and judgments are
//! read through the same normalization.
//!
//! **BEIR** (a directory): `corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl` (`_id`,
//! `text`) and the judgments of one split, `qrels/SPLIT.tsv`: the one named, or `test`, else
//! `train`, else `dev` (a development collection, such as SciFact's training split). A header,
//! then `query-id corpus-id score`; relevant when the score is above 0. BEIR ids are kept as
//! written.
//!
//! Grades and scores may be written as decimals (`1`, `1.0`, `2.000`): the gain of a positive
//! grade is its integer part, and at least 1 (`0.5` is relevant with gain 1).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    pub id: String,
    pub title: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub id: String,
    pub text: String,
}

/// Relevant documents per query, with their gains (all above 0).
pub type Judgments = BTreeMap<String, BTreeMap<String, u32>>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collection {
    pub name: String,
    pub documents: Vec<Document>,
    pub queries: Vec<Query>,
    pub judgments: Judgments,
    /// The same requests as a researcher types a topic (two to six words, one per judged query,
    /// same ids), from `short-topics.tsv` when the collection has one.
    pub short_queries: Vec<Query>,
    /// Documents judged not relevant per query (a BEIR qrels' score 0): what the trap
    /// collection's off-topic share counts. Other collections list only relevant documents.
    pub not_relevant: BTreeMap<String, BTreeSet<String>>,
}

/// Which of a collection's queries to rank with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Topics {
    /// The collection's own queries (long requests, or claims).
    Long,
    /// The short topics of `short-topics.tsv`.
    Short,
    /// Both, measured apart.
    Both,
}

impl Topics {
    /// The kinds `self` selects, each as "long" or "short".
    pub fn kinds(self) -> &'static [&'static str] {
        match self {
            Topics::Long => &["long"],
            Topics::Short => &["short"],
            Topics::Both => &["long", "short"],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Smart,
    Beir,
}

/// The judgments splits read from a BEIR collection when none is named, in order of preference.
pub const DEFAULT_QRELS_SPLITS: [&str; 3] = ["test", "train", "dev"];

impl Collection {
    /// Reads the collection in `dir`; the format is guessed from its files when not given. A
    /// BEIR collection's judgments are its first split of [`DEFAULT_QRELS_SPLITS`].
    pub fn load(dir: &Path, format: Option<Format>) -> anyhow::Result<Collection> {
        Collection::load_with_qrels(dir, format, None)
    }

    /// Like [`Collection::load`], with a BEIR collection's judgments read from `qrels/SPLIT.tsv`
    /// when `qrels` names a split (an error listing the collection's splits if it has no such
    /// file). A SMART collection has one judgments file, and `qrels` does not apply to it.
    pub fn load_with_qrels(dir: &Path, format: Option<Format>, qrels: Option<&str>) -> anyhow::Result<Collection> {
        let format = match format {
            Some(format) => format,
            None => {
                let corpus = dir.join("corpus.jsonl");
                let is_beir = corpus.try_exists().with_context(|| format!("looking for {}", corpus.display()))?;
                if is_beir {
                    Format::Beir
                } else {
                    Format::Smart
                }
            }
        };
        let name = dir.file_name().map_or_else(|| dir.display().to_string(), |name| name.to_string_lossy().into_owned());
        let collection = match format {
            Format::Smart => load_smart(dir, name)?,
            Format::Beir => load_beir(dir, name, qrels)?,
        };
        if collection.documents.is_empty() || collection.queries.is_empty() || collection.judgments.is_empty() {
            bail!("{}: no documents, queries or judgments found", dir.display());
        }
        let short = dir.join(SHORT_TOPICS_FILE);
        let short_queries =
            if short.is_file() { short_topics(&read(&short)?).with_context(|| format!("reading {}", short.display()))? } else { Vec::new() };
        if let Some(unknown) = short_queries.iter().find(|query| !collection.queries.iter().any(|known| known.id == query.id)) {
            bail!("{}: short topic {:?} has no query of that id", short.display(), unknown.id);
        }
        Ok(Collection { short_queries, ..collection })
    }

    /// This collection with the `kind` ("long" or "short") of queries: the short topics in place
    /// of the queries, or `None` when it has none.
    pub fn with_topics(&self, kind: &str) -> Option<Collection> {
        match kind {
            "short" if self.short_queries.is_empty() => None,
            "short" => Some(Collection { queries: self.short_queries.clone(), ..self.clone() }),
            _ => Some(self.clone()),
        }
    }
}

/// The short topics' file in a collection's folder: `query id<TAB>topic` per line.
pub const SHORT_TOPICS_FILE: &str = "short-topics.tsv";

fn short_topics(text: &str) -> anyhow::Result<Vec<Query>> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| match line.split_once('\t') {
            Some((id, topic)) if !id.trim().is_empty() && !topic.trim().is_empty() => {
                Ok(Query { id: normalized_id(id.trim()), text: topic.trim().to_owned() })
            }
            _ => bail!("line {}: expected a query id, a tab and the topic", number + 1),
        })
        .collect()
}

fn load_smart(dir: &Path, name: String) -> anyhow::Result<Collection> {
    let files = list_files(dir)?;
    let lower = |path: &PathBuf| path.file_name().map(|name| name.to_string_lossy().to_lowercase()).unwrap_or_default();
    let pick = |what: &str, matches: &dyn Fn(&str) -> bool| -> anyhow::Result<PathBuf> {
        let found: Vec<&PathBuf> = files.iter().filter(|path| matches(&lower(path))).collect();
        match found.as_slice() {
            [one] => Ok((*one).clone()),
            [] => bail!("{}: no {what} file", dir.display()),
            many => bail!("{}: several {what} files: {many:?}", dir.display()),
        }
    };
    let ignored = |name: &str| name.ends_with(".old") || name.contains("readme") || name.ends_with(".md");
    let documents_file = pick("documents (*.ALL)", &|name| !ignored(name) && (name.ends_with(".all") || name.contains(".all.")))?;
    let queries_file = pick("queries (*.QRY)", &|name| !ignored(name) && name.ends_with(".qry"))?;
    let judgments_file = pick("judgments (*.REL, *qrel*)", &|name| !ignored(name) && (name.ends_with(".rel") || name.contains("qrel")))?;

    let documents = smart_records(&read(&documents_file)?)
        .into_iter()
        .map(|record| Document { title: record.field("T"), text: record.field("W"), id: normalized_id(&record.id) })
        .collect();
    let queries = smart_records(&read(&queries_file)?)
        .into_iter()
        .enumerate()
        .map(|(position, record)| Query { id: normalized_id(&(position + 1).to_string()), text: record.field("W") })
        .collect();
    let judgments = smart_judgments(&read(&judgments_file)?).with_context(|| format!("reading {}", judgments_file.display()))?;
    Ok(Collection { name, documents, queries, judgments, short_queries: Vec::new(), not_relevant: BTreeMap::new() })
}

fn load_beir(dir: &Path, name: String, split: Option<&str>) -> anyhow::Result<Collection> {
    let lines = |file: &str| -> anyhow::Result<Vec<serde_json::Value>> {
        read(&dir.join(file))?
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str(line).with_context(|| format!("{file}: not JSON: {line:.80}")))
            .collect()
    };
    let text = |value: &serde_json::Value, key: &str| value[key].as_str().unwrap_or_default().to_owned();
    let id = |value: &serde_json::Value| match &value["_id"] {
        serde_json::Value::String(id) => id.clone(),
        other => other.to_string(),
    };
    let documents = lines("corpus.jsonl")?.iter().map(|doc| Document { id: id(doc), title: text(doc, "title"), text: text(doc, "text") }).collect();
    let queries = lines("queries.jsonl")?.iter().map(|query| Query { id: id(query), text: text(query, "text") }).collect();
    let qrels_file = beir_qrels_file(dir, split)?;
    let judgments = beir_judgments(&read(&qrels_file)?).with_context(|| format!("reading {}", qrels_file.display()))?;
    let not_relevant = beir_not_relevant(&read(&qrels_file)?);
    Ok(Collection { name, documents, queries, judgments, short_queries: Vec::new(), not_relevant })
}

/// The pairs a BEIR qrels file judges not relevant (score 0).
fn beir_not_relevant(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut judged = BTreeMap::<String, BTreeSet<String>>::new();
    for line in text.lines() {
        if let [query, document, score] = line.split('\t').map(str::trim).collect::<Vec<_>>().as_slice() {
            if score.parse::<f64>().is_ok_and(|score| score <= 0.0) {
                judged.entry((*query).to_owned()).or_default().insert((*document).to_owned());
            }
        }
    }
    judged
}

/// `qrels/SPLIT.tsv` for the split named, or the first of [`DEFAULT_QRELS_SPLITS`] there is.
fn beir_qrels_file(dir: &Path, split: Option<&str>) -> anyhow::Result<PathBuf> {
    let folder = dir.join("qrels");
    let file_of = |split: &str| folder.join(format!("{split}.tsv"));
    let Some(split) = split else {
        return match DEFAULT_QRELS_SPLITS.iter().map(|split| file_of(split)).find(|path| path.is_file()) {
            Some(path) => Ok(path),
            None => bail!("{}: no qrels/test.tsv, qrels/train.tsv or qrels/dev.tsv; {}", dir.display(), describe_splits(&folder)),
        };
    };
    if split.is_empty() || split.contains(['/', '\\']) || split.starts_with('.') {
        bail!("{split:?} is not a judgments split name (such as test or train)");
    }
    let path = file_of(split);
    if !path.is_file() {
        bail!("{}: no judgments split {split:?} ({} does not exist); {}", dir.display(), path.display(), describe_splits(&folder));
    }
    Ok(path)
}

/// The judgments splits a BEIR `qrels` folder holds, in words for an error message.
fn describe_splits(folder: &Path) -> String {
    let Ok(files) = list_files(folder) else {
        return format!("there is no {} folder", folder.display());
    };
    let splits: Vec<String> = files
        .iter()
        .filter(|path| path.extension().is_some_and(|extension| extension == "tsv"))
        .filter_map(|path| path.file_stem().map(|stem| stem.to_string_lossy().into_owned()))
        .collect();
    if splits.is_empty() {
        format!("{} holds no SPLIT.tsv file", folder.display())
    } else {
        format!("the splits there are: {}", splits.join(", "))
    }
}

/// A BEIR qrels file: a header, then `query-id corpus-id score` separated by tabs.
fn beir_judgments(text: &str) -> anyhow::Result<Judgments> {
    let mut judgments = Judgments::new();
    for (number, line) in text.lines().enumerate() {
        let columns: Vec<&str> = line.split('\t').map(str::trim).collect();
        if number == 0 && columns.first().is_some_and(|first| first.parse::<f64>().is_err() && first.contains("id")) {
            continue;
        }
        let [query, document, score] = columns.as_slice() else {
            bail!("line {}: expected query-id, corpus-id and score", number + 1);
        };
        let score = parse_grade(score).with_context(|| format!("line {}: score {score:?}", number + 1))?;
        if let Some(gain) = gain_of(score) {
            judgments.entry((*query).to_owned()).or_default().insert((*document).to_owned(), gain);
        }
    }
    Ok(judgments)
}

struct SmartRecord {
    id: String,
    fields: Vec<(String, String)>,
}

impl SmartRecord {
    /// Every line of the field (there may be several fields of a kind), joined by spaces.
    fn field(&self, name: &str) -> String {
        let parts: Vec<&str> = self.fields.iter().filter(|(field, _)| field == name).map(|(_, text)| text.as_str()).collect();
        parts.join(" ")
    }
}

fn smart_records(text: &str) -> Vec<SmartRecord> {
    let mut records: Vec<SmartRecord> = Vec::new();
    let mut field: Option<String> = None;
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(id) = line.strip_prefix(".I") {
            records.push(SmartRecord { id: id.trim().to_owned(), fields: Vec::new() });
            field = None;
        } else if line.len() == 2 && line.starts_with('.') && line.as_bytes()[1].is_ascii_uppercase() {
            field = Some(line[1..].to_owned());
        } else if let (Some(record), Some(name)) = (records.last_mut(), &field) {
            let words = line.split_whitespace().collect::<Vec<_>>().join(" ");
            if words.is_empty() {
                continue;
            }
            match record.fields.last_mut() {
                Some((last, value)) if last == name => {
                    value.push(' ');
                    value.push_str(&words);
                }
                _ => record.fields.push((name.clone(), words)),
            }
        }
    }
    records
}

/// The three layouts of SMART judgments (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JudgmentLayout {
    /// `query doc code`, Cleverdon's codes.
    Codes,
    /// `query doc 0 0`: every line a relevant pair.
    Pairs,
    /// `query iteration doc grade`.
    Trec,
}

fn smart_judgments(text: &str) -> anyhow::Result<Judgments> {
    let lines: Vec<(usize, Vec<&str>)> = text
        .lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, columns)| !columns.is_empty())
        .collect();
    let layout = judgment_layout(&lines)?;
    let mut judgments = Judgments::new();
    for (number, columns) in &lines {
        let (query, document, gain) = match (layout, columns.as_slice()) {
            (JudgmentLayout::Codes, [query, document, code]) => {
                let code = parse_grade(code).with_context(|| format!("line {number}: code {code:?}"))?.trunc();
                let gain = (1.0..=4.0).contains(&code).then(|| 5 - code as u32);
                (query, document, gain)
            }
            (JudgmentLayout::Pairs, [query, document, _, _]) => (query, document, Some(1)),
            (JudgmentLayout::Trec, [query, _iteration, document, grade]) => {
                let grade = parse_grade(grade).with_context(|| format!("line {number}: grade {grade:?}"))?;
                (query, document, gain_of(grade))
            }
            (_, columns) => bail!("line {number}: {} columns where the file's lines have {}", columns.len(), layout_columns(layout)),
        };
        if let Some(gain) = gain {
            judgments.entry(normalized_id(query)).or_default().insert(normalized_id(document), gain);
        }
    }
    Ok(judgments)
}

/// Decides the layout from the whole file: three columns are codes; four are relevant pairs when
/// the third and fourth columns are zero on every line, and TREC otherwise.
fn judgment_layout(lines: &[(usize, Vec<&str>)]) -> anyhow::Result<JudgmentLayout> {
    let Some((number, first)) = lines.first() else {
        return Ok(JudgmentLayout::Trec);
    };
    let is_zero = |text: &str| text.parse::<f64>().is_ok_and(|value| value == 0.0);
    match first.len() {
        3 => Ok(JudgmentLayout::Codes),
        4 if lines.iter().all(|(_, columns)| columns.len() == 4 && is_zero(columns[2]) && is_zero(columns[3])) => Ok(JudgmentLayout::Pairs),
        4 => Ok(JudgmentLayout::Trec),
        _ => bail!("line {number}: expected `query iteration doc grade`, `query doc 0 0` or `query doc code`"),
    }
}

fn layout_columns(layout: JudgmentLayout) -> &'static str {
    match layout {
        JudgmentLayout::Codes => "three (`query doc code`)",
        JudgmentLayout::Pairs => "four (`query doc 0 0`)",
        JudgmentLayout::Trec => "four (`query iteration doc grade`)",
    }
}

/// A grade or score, which may be written as a decimal (`2`, `2.000`).
fn parse_grade(text: &str) -> anyhow::Result<f64> {
    let grade: f64 = text.parse().context("not a number")?;
    if !grade.is_finite() {
        bail!("not a finite number");
    }
    Ok(grade)
}

/// The gain of a grade: none unless it is above 0, else its integer part and at least 1.
fn gain_of(grade: f64) -> Option<u32> {
    (grade > 0.0).then(|| (grade.trunc() as u32).max(1))
}

/// An id of digits alone without its zero-padding (`0042` → `42`, `000` → `0`); any other id
/// as it is.
fn normalized_id(id: &str) -> String {
    if id.is_empty() || !id.bytes().all(|byte| byte.is_ascii_digit()) {
        return id.to_owned();
    }
    let unpadded = id.trim_start_matches('0');
    if unpadded.is_empty() {
        "0".to_owned()
    } else {
        unpadded.to_owned()
    }
}

fn list_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading the collection directory {}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries.filter_map(|entry| entry.ok().map(|entry| entry.path())).filter(|path| path.is_file()).collect();
    files.sort();
    Ok(files)
}

fn read(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smart_records_keep_their_fields_and_queries_are_numbered_by_position() {
        let records = smart_records(".I 1\n.T\nwing in a\nslipstream .\n.A\nbrenckman,m.\n.W\nan experimental\n  study .\n.I 7\n.W\nsecond\n");
        assert_eq!(records.len(), 2);
        assert_eq!((records[0].id.as_str(), records[0].field("T")), ("1", "wing in a slipstream .".to_owned()));
        assert_eq!(records[0].field("W"), "an experimental study .");
        assert_eq!(records[1].field("W"), "second");
        assert_eq!(records[1].field("T"), "");
    }

    /// Each query's relevant documents and gains, as `(query, [(document, gain)])`, for short
    /// comparisons.
    fn flat(judgments: &Judgments) -> Vec<(&str, Vec<(&str, u32)>)> {
        judgments
            .iter()
            .map(|(query, relevant)| (query.as_str(), relevant.iter().map(|(document, gain)| (document.as_str(), *gain)).collect()))
            .collect()
    }

    #[test]
    fn trec_judgments_grade_the_third_column_by_the_fourth() -> anyhow::Result<()> {
        let trec = smart_judgments("1 0 13 1\n1 0 14 2\n1 0 15 0\n2 0 5 0\n3 0 7 -1\n")?;
        assert_eq!(flat(&trec), vec![("1", vec![("13", 1), ("14", 2)])], "grades 0 and below are not relevant");
        Ok(())
    }

    #[test]
    fn cranfield_codes_one_to_four_are_relevant_with_gain_five_minus_code() -> anyhow::Result<()> {
        let cranfield = smart_judgments("1 184 2 \n1 29 -1\n1 12 4\n1 51 1.0\n2 5 5\n")?;
        assert_eq!(flat(&cranfield), vec![("1", vec![("12", 1), ("184", 3), ("51", 4)])], "code 5 and -1 are of no interest");
        Ok(())
    }

    #[test]
    fn listed_pairs_with_zero_filler_columns_are_relevant_with_gain_one() -> anyhow::Result<()> {
        let cisi = smart_judgments("    1     28 0 0.000000\n    1     35 0 0.000000\n    2     29 0 0.000000\n")?;
        assert_eq!(flat(&cisi), vec![("1", vec![("28", 1), ("35", 1)]), ("2", vec![("29", 1)])]);
        let cacm = smart_judgments("01 1410  0 0\n01 1572  0 0\n02 2434  0 0\n")?;
        assert_eq!(flat(&cacm), vec![("1", vec![("1410", 1), ("1572", 1)]), ("2", vec![("2434", 1)])], "query 01 is query 1");
        Ok(())
    }

    #[test]
    fn the_layout_of_four_columns_is_decided_by_the_whole_file_not_by_each_line() -> anyhow::Result<()> {
        // `2 13 0 0` alone reads as a relevant pair; in a TREC file it is query 2's iteration
        // 13 judging document 0 not relevant.
        let trec = smart_judgments("1 0 13 1\n2 13 0 0\n")?;
        assert_eq!(flat(&trec), vec![("1", vec![("13", 1)])]);
        let pairs = smart_judgments("1 13 0 0\n2 13 0 0\n2 14 0 0\n")?;
        assert_eq!(flat(&pairs), vec![("1", vec![("13", 1)]), ("2", vec![("13", 1), ("14", 1)])]);
        // TREC's constant iteration 0 with a document 0 is still TREC when a grade is not 0.
        let trec_with_document_zero = smart_judgments("1 0 0 0\n1 0 7 1\n")?;
        assert_eq!(flat(&trec_with_document_zero), vec![("1", vec![("7", 1)])]);
        Ok(())
    }

    #[test]
    fn decimal_grades_count_by_their_integer_part_and_a_positive_fraction_as_one() -> anyhow::Result<()> {
        let trec = smart_judgments("1 0 a 1.0\n1 0 b 2.000\n1 0 c 0.5\n1 0 d 0.0\n1 0 e -0.5\n")?;
        assert_eq!(flat(&trec), vec![("1", vec![("a", 1), ("b", 2), ("c", 1)])]);
        assert_eq!(gain_of(3.9), Some(3));
        assert!(smart_judgments("1 0 a high\n").is_err());
        assert!(smart_judgments("1 0 a NaN\n").is_err());
        Ok(())
    }

    #[test]
    fn judgments_files_of_another_shape_are_refused_with_the_line() {
        let error = smart_judgments("1 2\n").expect_err("two columns");
        assert!(format!("{error:#}").contains("line 1"), "{error:#}");
        let mixed = smart_judgments("1 0 13 1\n1 14 2\n").expect_err("a line of three columns in a file of four");
        assert!(format!("{mixed:#}").contains("line 2"), "{mixed:#}");
    }

    #[test]
    fn numeric_ids_match_whatever_their_zero_padding() -> anyhow::Result<()> {
        assert_eq!((normalized_id("0042"), normalized_id("42"), normalized_id("000")), ("42".into(), "42".into(), "0".into()));
        assert_eq!((normalized_id("A0042"), normalized_id("0x1"), normalized_id("")), ("A0042".into(), "0x1".into(), String::new()));
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("TINY.ALL"), ".I 0001\n.T\nwing flutter\n.W\nflutter of a wing\n.I 0042\n.W\nlens proteins\n")?;
        std::fs::write(dir.path().join("TINY.QRY"), ".I 01\n.W\nflutter\n.I 02\n.W\nlens\n")?;
        std::fs::write(dir.path().join("TINY.REL"), "01 0001 0 0\n02 042 0 0\n")?;
        let collection = Collection::load(dir.path(), Some(Format::Smart))?;
        let documents: Vec<&str> = collection.documents.iter().map(|document| document.id.as_str()).collect();
        assert_eq!(documents, ["1", "42"]);
        assert_eq!(flat(&collection.judgments), vec![("1", vec![("1", 1)]), ("2", vec![("42", 1)])]);
        Ok(())
    }

    #[test]
    fn beir_scores_may_be_decimals_and_errors_name_the_file_read() -> anyhow::Result<()> {
        let judgments = beir_judgments("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2.000\nq2\td3\t1.0\nq2\td4\t0\n")?;
        let not_relevant = beir_not_relevant("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1.0\nq2\td4\t0\n");
        assert_eq!(not_relevant.into_iter().collect::<Vec<_>>(), vec![("q2".to_owned(), BTreeSet::from(["d4".to_owned()]))]);
        assert_eq!(flat(&judgments), vec![("q1", vec![("d1", 1), ("d2", 2)]), ("q2", vec![("d3", 1)])]);

        let dir = tempfile::tempdir()?;
        std::fs::create_dir(dir.path().join("qrels"))?;
        std::fs::write(dir.path().join("corpus.jsonl"), "{\"_id\": \"d1\", \"title\": \"Lens\", \"text\": \"lens proteins\"}\n")?;
        std::fs::write(dir.path().join("queries.jsonl"), "{\"_id\": \"q1\", \"text\": \"lens\"}\n")?;
        std::fs::write(dir.path().join("qrels/train.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\tyes\n")?;
        let error = Collection::load(dir.path(), None).expect_err("a score that is not a number");
        let message = format!("{error:#}");
        assert!(message.contains("train.tsv") && message.contains("line 2"), "{message}");
        Ok(())
    }

    #[test]
    fn a_named_beir_split_is_read_and_a_missing_one_lists_the_splits_there_are() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir(dir.path().join("qrels"))?;
        std::fs::write(dir.path().join("corpus.jsonl"), "{\"_id\": \"d1\", \"text\": \"a\"}\n{\"_id\": \"d2\", \"text\": \"b\"}\n")?;
        std::fs::write(dir.path().join("queries.jsonl"), "{\"_id\": \"q1\", \"text\": \"a\"}\n")?;
        std::fs::write(dir.path().join("qrels/test.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t1\n")?;
        std::fs::write(dir.path().join("qrels/train.tsv"), "query-id\tcorpus-id\tscore\nq1\td2\t1\n")?;

        let default = Collection::load(dir.path(), None)?;
        assert_eq!(flat(&default.judgments), vec![("q1", vec![("d1", 1)])], "test is read first");
        let train = Collection::load_with_qrels(dir.path(), None, Some("train"))?;
        assert_eq!(flat(&train.judgments), vec![("q1", vec![("d2", 1)])]);

        let missing = Collection::load_with_qrels(dir.path(), None, Some("dev")).expect_err("no dev split");
        let message = format!("{missing:#}");
        assert!(message.contains("\"dev\"") && message.contains("dev.tsv") && message.contains("test, train"), "{message}");
        assert!(Collection::load_with_qrels(dir.path(), None, Some("../train")).is_err(), "a split is a name, not a path");

        std::fs::remove_file(dir.path().join("qrels/test.tsv"))?;
        std::fs::remove_file(dir.path().join("qrels/train.tsv"))?;
        let none = Collection::load(dir.path(), None).expect_err("no split at all");
        assert!(format!("{none:#}").contains("holds no SPLIT.tsv"), "{none:#}");
        Ok(())
    }
}
