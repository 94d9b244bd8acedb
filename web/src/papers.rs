//! The operator's paper commands: `papertide import FILE...` fills the index from recorded or
//! exported files; `papertide search QUERY` queries it. Both open the index in the data
//! directory directly.

use std::io::Write;
use std::path::{Path, PathBuf};

use actors::IngestCounts;
use anyhow::Context;
use chrono::NaiveDate;
use engine::paper::Source;
use engine::parse::parse_any;
use index::{PaperIndex, PaperQuery};

const WRITER_HEAP_BYTES: usize = 64 * 1024 * 1024;

/// What one import did: what became of the papers read, and the records that could not be read.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ImportCounts {
    pub indexed: IngestCounts,
    pub rejected: u64,
}

impl ImportCounts {
    fn add(&mut self, other: ImportCounts) {
        self.indexed.add(other.indexed);
        self.rejected += other.rejected;
    }

    fn summary(&self) -> String {
        let IngestCounts { added, merged, unchanged } = self.indexed;
        format!("{added} added, {merged} merged, {unchanged} already present, {} rejected", self.rejected)
    }
}

/// Where the paper index lives under a data directory.
pub use runtime::index_dir;

/// Imports every file, one commit at the end, printing a line per file and the totals. On a full
/// disk the error says so (tantivy's own says only that a writer thread failed).
pub fn import(data_dir: &Path, files: &[PathBuf], out: &mut impl Write) -> anyhow::Result<ImportCounts> {
    import_files(data_dir, files, out).map_err(|error| explain_full_disk(error, data_dir))
}

/// Under this much free space a failed write is taken for a full disk.
const FULL_DISK_BYTES: u64 = 1024 * 1024;

/// `error` with a first line naming the full disk, when the data directory's disk is full.
fn explain_full_disk(error: anyhow::Error, data_dir: &Path) -> anyhow::Error {
    let room = store::DiskRoom::new(data_dir, FULL_DISK_BYTES).status();
    match room.available_bytes {
        Some(free) if !room.writable => error.context(format!(
            "the disk of {} is full ({free} bytes free): nothing of this import was committed; free some space and run it again",
            data_dir.display()
        )),
        _ => error,
    }
}

fn import_files(data_dir: &Path, files: &[PathBuf], out: &mut impl Write) -> anyhow::Result<ImportCounts> {
    std::fs::create_dir_all(data_dir).with_context(|| format!("creating {}", data_dir.display()))?;
    let index = PaperIndex::open_or_create(&index_dir(data_dir)).context("opening the paper index")?;
    let mut writer = index.writer(WRITER_HEAP_BYTES).context("taking the index writer (is papertide serve running?)")?;
    let mut totals = ImportCounts::default();
    for file in files {
        let body = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let (format, parsed) = parse_any(&body);
        let mut counts = ImportCounts { rejected: parsed.warnings.len() as u64, ..ImportCounts::default() };
        for paper in parsed.items {
            counts.indexed.record(writer.upsert(paper)?);
        }
        let format = format.map_or("unknown format", |format| format.describe());
        writeln!(out, "{}: {format}: {}", file.display(), counts.summary())?;
        for warning in parsed.warnings.iter().take(5) {
            writeln!(out, "  rejected {}: {}", warning.record.as_deref().unwrap_or("record"), warning.message)?;
        }
        totals.add(counts);
    }
    writer.commit().context("committing the index")?;
    writeln!(out, "total: {}; {} papers in the index", totals.summary(), index.paper_count()?)?;
    Ok(totals)
}

/// Prints the best matches for `text`, newest window first filters applied.
pub fn search(
    data_dir: &Path,
    text: &str,
    since: Option<NaiveDate>,
    source: Option<Source>,
    limit: usize,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let dir = index_dir(data_dir);
    if !dir.try_exists().with_context(|| format!("looking for the paper index in {}", data_dir.display()))? {
        anyhow::bail!("no paper index in {}: import or harvest papers first", data_dir.display());
    }
    let index = PaperIndex::open_or_create(&dir).context("opening the paper index")?;
    let query = PaperQuery { text: text.to_owned(), since, until: None, sources: source.into_iter().collect(), limit };
    let hits = index.search(&query)?;
    for hit in &hits {
        let paper = &hit.paper;
        let sources: Vec<&str> = paper.sources.iter().map(|source| source.as_str()).collect();
        let date = paper.entered.or(paper.published).map_or_else(|| "----------".to_owned(), |date| date.to_string());
        let ids = [
            paper.ids.doi.as_ref().map(|doi| format!("doi:{doi}")),
            paper.ids.pmid.as_ref().map(|pmid| format!("pmid:{pmid}")),
            paper.ids.arxiv.as_ref().map(|arxiv| format!("arxiv:{arxiv}")),
        ];
        let ids: Vec<String> = ids.into_iter().flatten().collect();
        writeln!(out, "{:>7.3}  {date}  {:<16} {}", hit.score, sources.join(","), paper.title)?;
        writeln!(out, "         {}", ids.join(" "))?;
    }
    writeln!(out, "{} hit(s)", hits.len())?;
    Ok(())
}

/// Parses a source name for `--source`.
pub fn parse_source(text: &str) -> anyhow::Result<Source> {
    text.parse().map_err(anyhow::Error::msg)
}
