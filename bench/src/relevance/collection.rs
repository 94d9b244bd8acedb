//! Test collections: documents, queries and relevance judgments, read from the two common
//! layouts.
//!
//! **SMART** (a directory): a documents file (`*.ALL`, `*.all.*`), a queries file (`*.QRY`) and a
//! judgments file (`*.REL`, `*qrel*`; never `*.OLD` or `*readme*`). Records open with `.I id`
//! and hold fields `.T` (title), `.A`, `.B`, `.W` (text). A document is its title and text.
//! **A query's id is its position in the queries file (1, 2, …)**: Cranfield's `.I` numbers skip
//! values while its judgments count queries by position; MED's agree with their positions.
//! Judgments come as `query iteration doc grade` (TREC style: relevant when the grade is above 0,
//! the grade is the gain) or as `query doc code` (Cranfield: Cleverdon's codes 1 to 4 are
//! relevant, 1 the most, so the gain is 5 − code; `-1` and other codes are not judged relevant).
//!
//! **BEIR** (a directory): `corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl` (`_id`,
//! `text`) and `qrels/test.tsv` (or, for a development collection, `qrels/train.tsv` or
//! `qrels/dev.tsv`; header, then `query-id corpus-id score`; relevant when the score is above 0,
//! the score is the gain).

use std::collections::BTreeMap;
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Smart,
    Beir,
}

impl Collection {
    /// Reads the collection in `dir`; the format is guessed from its files when not given.
    pub fn load(dir: &Path, format: Option<Format>) -> anyhow::Result<Collection> {
        let format = match format {
            Some(format) => format,
            None if dir.join("corpus.jsonl").exists() => Format::Beir,
            None => Format::Smart,
        };
        let name = dir.file_name().map_or_else(|| dir.display().to_string(), |name| name.to_string_lossy().into_owned());
        let collection = match format {
            Format::Smart => load_smart(dir, name)?,
            Format::Beir => load_beir(dir, name)?,
        };
        if collection.documents.is_empty() || collection.queries.is_empty() || collection.judgments.is_empty() {
            bail!("{}: no documents, queries or judgments found", dir.display());
        }
        Ok(collection)
    }
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
        .map(|record| Document { title: record.field("T"), text: record.field("W"), id: record.id })
        .collect();
    let queries = smart_records(&read(&queries_file)?)
        .into_iter()
        .enumerate()
        .map(|(position, record)| Query { id: (position + 1).to_string(), text: record.field("W") })
        .collect();
    let judgments = smart_judgments(&read(&judgments_file)?).with_context(|| format!("reading {}", judgments_file.display()))?;
    Ok(Collection { name, documents, queries, judgments })
}

fn load_beir(dir: &Path, name: String) -> anyhow::Result<Collection> {
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
    let mut judgments = Judgments::new();
    // The test split's judgments, or a development collection's (SciFact's training split).
    let qrels = ["test.tsv", "train.tsv", "dev.tsv"].iter().map(|name| dir.join("qrels").join(name)).find(|path| path.exists());
    let qrels = qrels.unwrap_or_else(|| dir.join("qrels").join("test.tsv"));
    for (number, line) in read(&qrels)?.lines().enumerate() {
        let columns: Vec<&str> = line.split('\t').map(str::trim).collect();
        if number == 0 && columns.first().is_some_and(|first| first.parse::<f64>().is_err() && first.contains("id")) {
            continue;
        }
        let [query, document, score] = columns.as_slice() else {
            bail!("qrels/test.tsv line {}: expected query-id, corpus-id and score", number + 1);
        };
        let score: i64 = score.parse().with_context(|| format!("qrels/test.tsv line {}: score {score:?}", number + 1))?;
        if score > 0 {
            judgments.entry((*query).to_owned()).or_default().insert((*document).to_owned(), score as u32);
        }
    }
    Ok(Collection { name, documents, queries, judgments })
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

fn smart_judgments(text: &str) -> anyhow::Result<Judgments> {
    let mut judgments = Judgments::new();
    for (number, line) in text.lines().enumerate() {
        let columns: Vec<&str> = line.split_whitespace().collect();
        let (query, document, gain) = match columns.as_slice() {
            [] => continue,
            [query, _iteration, document, grade] => {
                let grade: i64 = grade.parse().with_context(|| format!("line {}: grade {grade:?}", number + 1))?;
                (*query, *document, u32::try_from(grade).unwrap_or(0))
            }
            [query, document, code] => {
                let code: i64 = code.parse().with_context(|| format!("line {}: code {code:?}", number + 1))?;
                (*query, *document, if (1..=4).contains(&code) { (5 - code) as u32 } else { 0 })
            }
            _ => bail!("line {}: expected `query iteration doc grade` or `query doc code`", number + 1),
        };
        if gain > 0 {
            judgments.entry(query.to_owned()).or_default().insert(document.to_owned(), gain);
        }
    }
    Ok(judgments)
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

    #[test]
    fn judgments_in_both_layouts() -> anyhow::Result<()> {
        let trec = smart_judgments("1 0 13 1\n1 0 14 1\n2 0 5 0\n")?;
        assert_eq!(trec.get("1").map(BTreeMap::len), Some(2));
        assert!(!trec.contains_key("2"), "grade 0 is not relevant");
        let cranfield = smart_judgments("1 184 2 \n1 29 -1\n1 12 4\n2 5 5\n")?;
        let first = cranfield.get("1").expect("query 1");
        assert_eq!((first.get("184"), first.get("12"), first.get("29")), (Some(&3), Some(&1), None));
        assert!(!cranfield.contains_key("2"), "code 5 is of no interest");
        assert!(smart_judgments("1 2\n").is_err());
        Ok(())
    }
}
