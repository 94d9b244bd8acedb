//! A realistic week of new records, built from the shapes of the recorded responses: every
//! record of the recorded PubMed, arXiv and bioRxiv/medRxiv pages, copied with fresh ids and
//! titles until the week holds the requested number of records (about 75% PubMed, as in a real
//! week). Bodies are the sources' own formats, so the benchmark parses what a harvest parses.

const PUBMED_BATCH: &str = include_str!("../../engine/fixtures/pubmed/efetch_batch_20_articles.xml");
const ARXIV_PAGE: &str = include_str!("../../engine/fixtures/arxiv/api_query_testing_start0_max100.xml");
const BIORXIV_PAGE: &str = include_str!("../../engine/fixtures/biorxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json");

/// Records per generated response body, like a harvester's page.
const PUBMED_RECORDS_PER_BODY: usize = 500;

/// The week: response bodies and how many records they hold.
pub struct Week {
    pub bodies: Vec<String>,
    pub records: usize,
    pub bytes: usize,
}

/// Builds a week of about `records` records: 75% PubMed, 15% arXiv, 10% bioRxiv/medRxiv.
pub fn build_week(records: usize) -> Week {
    build_week_part(0, records)
}

/// Part of a larger week: about `records` records whose serial numbers (and so ids and titles)
/// start after `first`, so that parts built one after another are distinct works. Large
/// indexes are built part by part instead of holding the whole week in memory.
pub fn build_week_part(first: usize, records: usize) -> Week {
    let pubmed_target = records * 75 / 100;
    let arxiv_target = records * 15 / 100;
    let preprint_target = records - pubmed_target - arxiv_target;
    let mut bodies = Vec::new();
    let mut counted = 0;
    counted += push_pubmed(&mut bodies, first * 75 / 100, pubmed_target);
    counted += push_arxiv(&mut bodies, first * 15 / 100, arxiv_target);
    counted += push_preprints(&mut bodies, first - first * 75 / 100 - first * 15 / 100, preprint_target);
    let bytes = bodies.iter().map(String::len).sum();
    Week { bodies, records: counted, bytes }
}

/// Splits a body into (head, records, tail) around every `<tag>...</tag>` record.
fn split_records<'a>(body: &'a str, open: &str, close: &str) -> (&'a str, Vec<&'a str>, &'a str) {
    let first = body.find(open).unwrap_or(body.len());
    let mut records = Vec::new();
    let mut rest = &body[first..];
    let mut consumed = first;
    while let Some(start) = rest.find(open) {
        let Some(end) = rest[start..].find(close) else { break };
        let stop = start + end + close.len();
        records.push(&rest[start..stop]);
        rest = &rest[stop..];
        consumed += stop;
    }
    (&body[..first], records, &body[consumed..])
}

fn push_pubmed(bodies: &mut Vec<String>, first: usize, target: usize) -> usize {
    let (head, records, tail) = split_records(PUBMED_BATCH, "<PubmedArticle>", "</PubmedArticle>");
    let mut made = 0;
    while made < target {
        let mut body = String::from(head);
        for _ in 0..PUBMED_RECORDS_PER_BODY.min(target - made) {
            let template = records[made % records.len()];
            let serial = first + made + 1;
            let record = template
                .replacen("<PMID Version=\"1\">", &format!("<PMID Version=\"1\">9{serial:08}"), 1)
                .replace("IdType=\"pubmed\">", &format!("IdType=\"pubmed\">9{serial:08}"))
                .replace("IdType=\"doi\">", &format!("IdType=\"doi\">10.99999/week.{serial}."))
                .replace("<ArticleTitle>", &format!("<ArticleTitle>Week study {serial}: "));
            body.push_str(&record);
            made += 1;
        }
        body.push_str(tail);
        bodies.push(body);
    }
    made
}

fn push_arxiv(bodies: &mut Vec<String>, first: usize, target: usize) -> usize {
    let (head, entries, tail) = split_records(ARXIV_PAGE, "<entry>", "</entry>");
    let mut made = 0;
    while made < target {
        let mut body = String::from(head);
        for _ in 0..entries.len().min(target - made) {
            let template = entries[made % entries.len()];
            let serial = first + made + 1;
            let with_id = template.replacen(
                "<id>http://arxiv.org/abs/",
                &format!("<id>http://arxiv.org/abs/{}.{:05}", 2600 + serial / 99_999, serial % 99_999),
                1,
            );
            let record = strip_original_id(&with_id)
                .replacen("<title>", &format!("<title>Week preprint {serial}: "), 1)
                .replace("<arxiv:doi>", &format!("<arxiv:doi>10.99998/week.{serial}."))
                .replace(
                    "<arxiv:doi xmlns:arxiv=\"http://arxiv.org/schemas/atom\">",
                    &format!("<arxiv:doi xmlns:arxiv=\"http://arxiv.org/schemas/atom\">10.99998/week.{serial}."),
                );
            body.push_str(&record);
            made += 1;
        }
        body.push_str(tail);
        bodies.push(body);
    }
    made
}

/// After a fresh id was written in front of the original one, drops the original (keeping its
/// version suffix) so the id stays well-formed: `2600.00001` + `1605.08386v2` → `2600.00001v2`.
fn strip_original_id(entry: &str) -> String {
    let marker = "<id>http://arxiv.org/abs/";
    let Some(start) = entry.find(marker) else { return entry.to_owned() };
    let id_start = start + marker.len();
    let Some(id_len) = entry[id_start..].find("</id>") else { return entry.to_owned() };
    let full = &entry[id_start..id_start + id_len];
    let fresh: String = full.chars().take(10).collect();
    let version =
        full.rfind('v').map(|at| &full[at..]).filter(|suffix| suffix[1..].chars().all(|c| c.is_ascii_digit()) && suffix.len() > 1).unwrap_or("v1");
    format!("{}{fresh}{version}{}", &entry[..id_start], &entry[id_start + id_len..])
}

fn push_preprints(bodies: &mut Vec<String>, first: usize, target: usize) -> usize {
    let Ok(page) = serde_json::from_str::<serde_json::Value>(BIORXIV_PAGE) else { return 0 };
    let Some(items) = page["collection"].as_array().filter(|items| !items.is_empty()) else { return 0 };
    let mut made = 0;
    while made < target {
        let mut collection = Vec::new();
        for _ in 0..items.len().min(target - made) {
            let mut item = items[made % items.len()].clone();
            let serial = first + made + 1;
            let doi = item["doi"].as_str().unwrap_or("10.1101/x").to_owned();
            let title = item["title"].as_str().unwrap_or_default().to_owned();
            item["doi"] = serde_json::Value::String(format!("{doi}.week{serial}"));
            item["title"] = serde_json::Value::String(format!("Week preprint {serial}: {title}"));
            collection.push(item);
            made += 1;
        }
        let mut body = page.clone();
        body["collection"] = serde_json::Value::Array(collection);
        bodies.push(body.to_string());
    }
    made
}
