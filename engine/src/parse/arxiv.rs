//! Parsers for what arXiv answers: export-API Atom feeds ([`parse_atom`], both the current
//! serialization and the pre-2025 one) and OAI-PMH `ListRecords` in the `arXiv` metadata format
//! ([`parse_oai_pmh`], [`resumption_token`]). Pure functions over the response body; a bad entry
//! becomes a [`ParseWarning`](crate::paper::ParseWarning) and the rest of the page survives.
//!
//! How a record becomes a [`Paper`]:
//! - `ids.arxiv` is the identifier without version (`1605.08386`, `cond-mat/0412498`) and
//!   `ids.preprint_version` the `vN` of the Atom `<id>`. OAI-PMH `arXiv` records carry no version,
//!   so there it stays `None`.
//! - `arxiv:doi` / OAI `<doi>` is the journal version's DOI as the authors supplied it. It goes to
//!   both `ids.doi` (the record has no other DOI) and `ids.published_doi`. When the field holds
//!   several DOIs, the first one is kept.
//! - `arxiv:journal_ref` / `<journal-ref>` → `journal`; `arxiv:comment` has no place in `Paper`
//!   and is dropped.
//! - Categories: the primary category first, then the others in feed order (OAI: the
//!   space-separated `<categories>`, whose first entry is the primary one).
//! - `published` is the first version's date (`<published>`, OAI `<created>`); `entered` is this
//!   version's date (`<updated>`, OAI `<updated>`, or `<created>` for a record without one). Atom
//!   timestamps are read as instants and dated in UTC, the time zone of arXiv's
//!   `submittedDate` queries, so `2016-10-09T00:00:00-04:00` is dated 2016-10-09 and a late
//!   evening `-04:00` time the next day.
//! - Title, abstract, names, journal and affiliations have whitespace collapsed (the old API
//!   hard-wrapped them); LaTeX and arXiv's own mojibake (`Dirk WÃ¼bben`) are kept as received.
//! - Links: Atom `rel="alternate"` → abstract, `title="pdf"` → PDF, `title="doi"` → DOI, with
//!   hrefs as written (the old API wrote `http://dx.doi.org/...`). OAI records carry no links;
//!   the abstract and PDF links are built from the id (`https://arxiv.org/abs/<id>`).
//!
//! Author names: the Atom feed gives one display name ("Peter H. N. de With"), which is kept as
//! `name`. It is split into given and family names by rule, which is a guess: the family name is
//! the last word, or starts at the first lower-case particle (`van`, `de`, `der`, ...) after the
//! first word, and keeps a trailing `Jr.`/`III`-style suffix. Capitalised particles ("Adrian Del
//! Maestro") cannot be told from given names and are left in `given`. A name containing
//! "Collaboration" or "Consortium" is a collective. OAI-PMH gives `keyname`/`forenames`, which
//! need no guessing.

mod atom;
mod oai_pmh;
mod xml_walk;

use serde::Serialize;

use crate::paper::{normalize_arxiv_id, normalize_doi, Author, Paper, Parsed};

pub use atom::parse_atom;
pub use oai_pmh::{parse_oai_pmh, resumption_token};

/// One page of an export-API search: OpenSearch paging numbers and the entries on the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArxivPage {
    /// `opensearch:totalResults`: matches of the whole query, not of this page.
    pub total_results: u64,
    /// `opensearch:startIndex`: 0-based position of the page's first entry.
    pub start_index: u64,
    /// `opensearch:itemsPerPage`: the `max_results` asked for, not the entries on this page.
    pub items_per_page: u64,
    pub papers: Parsed<Paper>,
}

/// Why an export-API body could not be read as a page of results.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArxivError {
    /// arXiv answered with its error feed (HTTP 400, one entry titled "Error"); the message is
    /// that entry's summary, e.g. "incorrect id format for abc". Retrying the same request will
    /// not help.
    #[error("arXiv API error: {0}")]
    Api(String),
    /// The body is not an arXiv Atom feed: not XML, cut off, another format, or missing the
    /// OpenSearch paging numbers.
    #[error("malformed arXiv response: {0}")]
    Malformed(String),
}

/// Lower-case particles that start a family name when they follow the first word of a name.
const FAMILY_NAME_PARTICLES: &[&str] = &["van", "von", "der", "den", "de", "del", "della", "di", "da", "dos", "das", "du", "le", "la", "ter", "ten"];

/// Generational suffixes that stay with the family name.
const NAME_SUFFIXES: &[&str] = &["Jr.", "Jr", "Sr.", "Sr", "II", "III", "IV"];

/// An author from a display name such as "Peter H. N. de With" (see the module documentation for
/// the rule); `None` for an empty name.
fn author_from_display_name(display_name: &str) -> Option<Author> {
    let words: Vec<&str> = display_name.split_whitespace().collect();
    if words.is_empty() {
        return None;
    }
    let name = words.join(" ");
    if is_collective_name(&name) {
        return Some(Author::collective(&name));
    }
    let first_particle = words
        .iter()
        .enumerate()
        .skip(1)
        .find(|(position, word)| FAMILY_NAME_PARTICLES.contains(word) && position + 1 < words.len())
        .map(|(position, _)| position);
    let ends_with_suffix = words.len() >= 3 && words.last().is_some_and(|word| NAME_SUFFIXES.contains(word));
    let family_length = if ends_with_suffix { 2 } else { 1 };
    let family_start = first_particle.unwrap_or(words.len().saturating_sub(family_length));
    let (given, family) = words.split_at(family_start);
    let given = given.join(" ");
    Some(Author::person(Some(&given), &family.join(" ")))
}

/// An arXiv identifier without version, as [`normalize_arxiv_id`] leaves it, when it has the shape
/// of one: `YYMM.NNNN` / `YYMM.NNNNN` (2007 on) or `archive[.SUBJECT]/YYMMNNN` (before). The
/// normalizer alone accepts anything with a digit and a dot, such as `tag:example.org,2024:x`.
fn arxiv_identifier(text: &str) -> Option<(String, Option<u32>)> {
    let (id, version) = normalize_arxiv_id(text)?;
    let is_digits_of_length = |part: &str, lengths: &[usize]| lengths.contains(&part.len()) && part.bytes().all(|byte| byte.is_ascii_digit());
    let is_name = |part: &str, allowed: fn(&u8) -> bool| !part.is_empty() && part.bytes().all(|byte| allowed(&byte) || byte == b'-');
    let is_archive = |part: &str| match part.split_once('.') {
        Some((archive, subject)) => is_name(archive, u8::is_ascii_lowercase) && is_name(subject, u8::is_ascii_alphabetic),
        None => is_name(part, u8::is_ascii_lowercase),
    };
    let well_formed = match (id.split_once('.'), id.split_once('/')) {
        (_, Some((archive, number))) => is_archive(archive) && is_digits_of_length(number, &[7]),
        (Some((month, number)), None) => is_digits_of_length(month, &[4]) && is_digits_of_length(number, &[4, 5]),
        (None, None) => false,
    };
    well_formed.then_some((id, version))
}

/// Whether a name is a collaboration rather than a person ("ATLAS Collaboration").
fn is_collective_name(name: &str) -> bool {
    let lowered = name.to_lowercase();
    lowered.contains("collaboration") || lowered.contains("consortium")
}

/// The first DOI in a field that may hold several, separated by spaces, commas or semicolons.
fn first_doi(text: &str) -> Option<String> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == ';').find_map(normalize_doi)
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;
    use proptest::prelude::*;

    use super::*;
    use crate::paper::{Link, LinkKind, Source};

    const TWO_CATEGORIES: &str = include_str!("../../fixtures/arxiv/api_idlist_1605.08386_two_categories.xml");
    const MANY_AUTHORS: &str = include_str!("../../fixtures/arxiv/api_idlist_1707.08567_many_authors.xml");
    const ZERO_RESULTS: &str = include_str!("../../fixtures/arxiv/api_idlist_nonexistent_0000.0000_zero_results.xml");
    const ERROR_FEED: &str = include_str!("../../fixtures/arxiv/api_error_incorrect_id_format_http400.xml");
    const LEGACY_2016: &str = include_str!("../../fixtures/arxiv/api_legacy_2016_query_au_del_maestro.xml");
    const CODON_MODEL: &str = include_str!("../../fixtures/arxiv/api_query_abs_codon_model_sortby_submittedDate_desc.xml");
    const TESTING_10: &str = include_str!("../../fixtures/arxiv/api_query_testing_start0_max10.xml");
    const TESTING_100: &str = include_str!("../../fixtures/arxiv/api_query_testing_start0_max100.xml");
    const OAI_PMH_3: &str = include_str!("../../fixtures/arxiv/oaipmh_listrecords_arxiv_metadataprefix_3_records.xml");

    fn date(year: i32, month: u32, day: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(year, month, day)
    }

    fn no_papers() -> Parsed<Paper> {
        Parsed { items: Vec::new(), warnings: Vec::new() }
    }

    fn page(xml: &str) -> ArxivPage {
        parse_atom(xml).expect("the fixture parses")
    }

    fn paper<'a>(papers: &'a [Paper], arxiv_id: &str) -> &'a Paper {
        papers.iter().find(|paper| paper.ids.arxiv.as_deref() == Some(arxiv_id)).expect("paper in the page")
    }

    fn author_names(paper: &Paper) -> Vec<&str> {
        paper.authors.iter().map(|author| author.name.as_str()).collect()
    }

    fn link(paper: &Paper, kind: LinkKind) -> Option<&str> {
        paper.links.iter().find(|link| link.kind == kind).map(|link| link.url.as_str())
    }

    /// An entry one of whose tags carries 40,000 attributes reads exactly as the entry without
    /// them, for a tag that feed-rs reads (the PDF link) and one that the namespace-aware pass reads
    /// (the primary category, its `term` after all of them). The input of RUSTSEC-2026-0194:
    /// quick-xml before 0.41 compared each attribute name of a tag with every earlier one, so such a
    /// tag cost seconds of CPU (1.6 s in a release build).
    #[test]
    fn a_tag_with_forty_thousand_attributes_reads_as_without_them() {
        // The primary category made the second one, so that a lost `term` would change the order.
        let plain = TWO_CATEGORIES.replacen(r#"<arxiv:primary_category term="math.CO"/>"#, r#"<arxiv:primary_category term="math.ST"/>"#, 1);
        let expected = page(&plain);
        let paper = &expected.papers.items[0];
        assert_eq!(paper.categories, ["math.ST", "math.CO"]);
        assert_eq!(link(paper, LinkKind::Pdf), Some("https://arxiv.org/pdf/1605.08386v1"));

        let many: String = (0..40_000).map(|n| format!(" a{n}=\"{n}\"")).collect();
        let heavy_tags = [
            (r#"<arxiv:primary_category term="math.ST"/>"#, format!(r#"<arxiv:primary_category{many} term="math.ST"/>"#)),
            (r#"<link href="https://arxiv.org/pdf/1605.08386v1""#, format!(r#"<link{many} href="https://arxiv.org/pdf/1605.08386v1""#)),
        ];
        for (tag, heavy_tag) in heavy_tags {
            let heavy = plain.replacen(tag, &heavy_tag, 1);
            assert!(heavy.len() > plain.len() + 40_000 * 8, "{tag} is in the fixture");
            assert_eq!(page(&heavy), expected, "{tag}");
        }
    }

    /// What every paper from a healthy export-API page has, whichever serialization it came in.
    fn assert_complete_atom_paper(paper: &Paper) {
        let label = format!("{:?}", paper.ids.arxiv);
        let arxiv_id = paper.ids.arxiv.as_deref().expect("an arXiv id");
        assert_eq!(crate::paper::normalize_arxiv_id(arxiv_id), Some((arxiv_id.to_owned(), None)), "{label}");
        assert!(paper.ids.preprint_version.is_some_and(|version| version >= 1), "{label}");
        assert!(!paper.title.is_empty() && !paper.title.contains('\n') && paper.title == paper.title.trim(), "{label}");
        assert_eq!(paper.abstract_sections.len(), 1, "{label}");
        let summary = &paper.abstract_sections[0].text;
        assert!(!summary.contains('\n') && !summary.starts_with(' ') && !summary.contains("  "), "{label}");
        assert!(!paper.authors.is_empty() && paper.authors.iter().all(|author| author.family.is_some()), "{label}");
        assert!(!paper.categories.is_empty(), "{label}");
        assert!(paper.published.is_some() && paper.entered.is_some() && paper.published <= paper.entered, "{label}");
        assert!(link(paper, LinkKind::Abstract).is_some() && link(paper, LinkKind::Pdf).is_some(), "{label}");
        assert_eq!(paper.ids.doi.is_some(), link(paper, LinkKind::Doi).is_some(), "{label}");
        assert_eq!(paper.ids.doi, paper.ids.published_doi, "{label}");
        assert_eq!(paper.sources, vec![Source::Arxiv], "{label}");
    }

    // --- one test per fixture -------------------------------------------------------------

    #[test]
    fn idlist_with_two_categories_puts_the_primary_first() {
        let page = page(TWO_CATEGORIES);
        assert_eq!((page.total_results, page.start_index, page.items_per_page), (1, 0, 100));
        assert!(page.papers.warnings.is_empty());
        let [paper] = page.papers.items.as_slice() else { panic!("one paper expected") };
        assert_complete_atom_paper(paper);
        assert_eq!(paper.ids.arxiv.as_deref(), Some("1605.08386"));
        assert_eq!(paper.ids.preprint_version, Some(1));
        assert_eq!(paper.title, "Heat-bath random walks with Markov bases");
        assert_eq!(paper.categories, ["math.CO", "math.ST"]);
        assert_eq!(author_names(paper), ["Caprice Stanley", "Tobias Windisch"]);
        assert_eq!(paper.authors[1].family.as_deref(), Some("Windisch"));
        assert_eq!(paper.authors[1].given.as_deref(), Some("Tobias"));
        assert_eq!((paper.published, paper.entered), (date(2016, 5, 26), date(2016, 5, 26)));
        assert_eq!((paper.ids.doi.as_deref(), paper.journal.as_deref()), (None, None));
        assert_eq!(
            paper.links,
            [
                Link { kind: LinkKind::Abstract, url: "https://arxiv.org/abs/1605.08386v1".into() },
                Link { kind: LinkKind::Pdf, url: "https://arxiv.org/pdf/1605.08386v1".into() },
            ]
        );
        assert!(paper.abstract_sections[0].text.starts_with("Graphs on lattice points are studied"));
        insta::assert_json_snapshot!("atom_idlist_two_categories", page);
    }

    #[test]
    fn idlist_with_many_authors_keeps_all_34_and_arxivs_mojibake() {
        let page = page(MANY_AUTHORS);
        assert_eq!((page.total_results, page.start_index, page.items_per_page), (1, 0, 100));
        let [paper] = page.papers.items.as_slice() else { panic!("one paper expected") };
        assert_complete_atom_paper(paper);
        assert_eq!(paper.ids.arxiv.as_deref(), Some("1707.08567"));
        assert_eq!(paper.authors.len(), 34);
        assert_eq!(paper.authors[0].name, "Kees A. Schouhamer Immink");
        assert_eq!(paper.authors[33].name, "Hirosuke Yamamoto");
        let wubben = paper.authors.iter().find(|author| author.name.starts_with("Dirk")).expect("Dirk");
        assert_eq!(wubben.name, "Dirk WÃ¼bben");
        assert_eq!(wubben.family.as_deref(), Some("WÃ¼bben"));
        let de_with = paper.authors.iter().find(|author| author.name == "Peter H. N. de With").expect("de With");
        assert_eq!((de_with.given.as_deref(), de_with.family.as_deref()), (Some("Peter H. N."), Some("de With")));
        let van_der_putten = paper.authors.iter().find(|author| author.name == "Joost van der Putten").expect("van der Putten");
        assert_eq!(van_der_putten.family.as_deref(), Some("van der Putten"));
        assert_eq!(paper.categories, ["cs.IT"]);
        insta::assert_json_snapshot!("atom_idlist_many_authors", page);
    }

    #[test]
    fn nonexistent_id_gives_an_empty_page() {
        let page = page(ZERO_RESULTS);
        assert_eq!((page.total_results, page.start_index, page.items_per_page), (0, 0, 100));
        assert_eq!(page.papers, no_papers());
    }

    #[test]
    fn error_feed_is_an_api_error_with_its_message() {
        assert_eq!(parse_atom(ERROR_FEED), Err(ArxivError::Api("incorrect id format for abc".into())));
    }

    #[test]
    fn legacy_2016_serialization_reads_like_the_current_one() {
        let page = page(LEGACY_2016);
        assert_eq!((page.total_results, page.start_index, page.items_per_page), (31, 0, 10));
        assert!(page.papers.warnings.is_empty());
        let papers = &page.papers.items;
        assert_eq!(papers.len(), 10);
        papers.iter().for_each(assert_complete_atom_paper);
        assert!(papers.iter().all(|paper| paper.ids.doi.is_some() && paper.journal.is_some()));
        assert_eq!(papers.iter().filter(|paper| paper.ids.preprint_version == Some(2)).count(), 4);

        let helium = paper(papers, "1201.4869");
        assert_eq!(helium.ids.doi.as_deref(), Some("10.1142/s021797921244002x"));
        assert_eq!(helium.ids.published_doi.as_deref(), Some("10.1142/s021797921244002x"));
        assert_eq!(helium.journal.as_deref(), Some("Int. J. Mod. Phys. B, 26, 1244002 (2012)"));
        assert_eq!(helium.categories, ["cond-mat.mes-hall", "cond-mat.other"]);
        assert_eq!(link(helium, LinkKind::Doi), Some("http://dx.doi.org/10.1142/S021797921244002X"));
        assert_eq!(link(helium, LinkKind::Pdf), Some("http://arxiv.org/pdf/1201.4869v1"));
        assert!(helium.abstract_sections[0]
            .text
            .starts_with("As helium-4 is cooled below 2.17 K it undergoes a phase transition to a fundamentally new state"));

        let old_style = paper(papers, "cond-mat/0412498");
        assert_eq!(old_style.ids.preprint_version, Some(1));
        assert!(old_style.abstract_sections[0].text.contains("on the square lattice (p >= 3, integer)"));
        let wrapped = paper(papers, "cond-mat/0603029");
        assert_eq!(wrapped.title, "From stripe to checkerboard order on the square lattice in the presence of quenched disorder");
        let revised = paper(papers, "1303.6954");
        assert_eq!(revised.ids.preprint_version, Some(2));
        assert_eq!((revised.published, revised.entered), (date(2013, 3, 27), date(2013, 9, 3)));
        insta::assert_json_snapshot!("atom_legacy_2016", page);
    }

    #[test]
    fn submitted_date_search_keeps_versions_journal_refs_and_latex() {
        let page = page(CODON_MODEL);
        assert_eq!((page.total_results, page.start_index, page.items_per_page), (4, 0, 15));
        let papers = &page.papers.items;
        let ids: Vec<_> = papers.iter().map(|paper| paper.ids.arxiv.as_deref().unwrap_or_default()).collect();
        assert_eq!(ids, ["2606.27607", "2303.04390", "1804.11249", "1709.05079"]);
        papers.iter().for_each(assert_complete_atom_paper);
        assert_eq!(paper(papers, "2303.04390").categories, ["stat.CO", "q-bio.PE"]);
        let lie = paper(papers, "1804.11249");
        assert_eq!(lie.ids.preprint_version, Some(3));
        assert_eq!((lie.published, lie.entered), (date(2018, 4, 26), date(2020, 8, 6)));
        assert_eq!(lie.journal.as_deref(), Some("Journal of Mathematical Biology, 1-25 (2020)"));
        assert_eq!(lie.ids.doi, None);
        assert_eq!(lie.categories, ["q-bio.PE", "math.RA", "math.ST"]);
        assert_eq!(papers.iter().filter(|paper| paper.journal.is_some()).count(), 1);
        assert!(paper(papers, "2303.04390").abstract_sections[0].text.contains("$\\mathcal{O}(N^2)$ operations"));
        assert!(paper(papers, "1709.05079").abstract_sections[0].text.contains("the parameter $ω$ to modify"));
        assert_eq!(paper(papers, "2606.27607").authors.len(), 7);
    }

    #[test]
    fn current_serialization_page_of_ten() {
        let page = page(TESTING_10);
        assert_eq!((page.total_results, page.start_index, page.items_per_page), (214_881, 0, 10));
        assert!(page.papers.warnings.is_empty());
        let papers = &page.papers.items;
        assert_eq!(papers.len(), 10);
        papers.iter().for_each(assert_complete_atom_paper);
        assert_eq!(papers.iter().filter(|paper| paper.ids.preprint_version > Some(1)).count(), 5);
        assert_eq!(papers.iter().filter(|paper| paper.ids.doi.is_some()).count(), 6);
        assert_eq!(papers.iter().filter(|paper| paper.journal.is_some()).count(), 6);
        assert_eq!(papers.iter().filter(|paper| paper.categories.len() > 1).count(), 4);

        let first = &papers[0];
        assert_eq!(first.ids.arxiv.as_deref(), Some("2202.12139"));
        assert_eq!(first.ids.doi.as_deref(), Some("10.1109/icstw55395.2022.00035"));
        assert_eq!(link(first, LinkKind::Doi), Some("https://doi.org/10.1109/ICSTW55395.2022.00035"));
        assert_eq!(first.categories, ["cs.SE", "cs.LG"]);
        let third_version = paper(papers, "2204.08348");
        assert_eq!(third_version.ids.preprint_version, Some(3));
        assert_eq!((third_version.published, third_version.entered), (date(2022, 4, 18), date(2022, 7, 6)));
        assert_eq!(paper(papers, "2005.14124").categories, ["cs.SE", "cs.CR", "cs.LG"]);
    }

    #[test]
    fn current_serialization_page_of_a_hundred() {
        let page = page(TESTING_100);
        assert_eq!((page.total_results, page.start_index, page.items_per_page), (214_881, 0, 100));
        assert!(page.papers.warnings.is_empty());
        let papers = &page.papers.items;
        assert_eq!(papers.len(), 100);
        papers.iter().for_each(assert_complete_atom_paper);
        assert_eq!(papers.iter().filter(|paper| paper.ids.preprint_version > Some(1)).count(), 36);
        assert_eq!(papers.iter().filter(|paper| paper.ids.doi.is_some()).count(), 32);
        assert_eq!(papers.iter().filter(|paper| paper.journal.is_some()).count(), 18);
        assert_eq!(papers.iter().filter(|paper| paper.categories.len() > 1).count(), 46);

        let old_style: Vec<_> = papers.iter().filter_map(|paper| paper.ids.arxiv.as_deref()).filter(|id| id.contains('/')).collect();
        assert_eq!(old_style, ["cs/0503050", "hep-ph/0301050", "gr-qc/0103067"]);
        assert_eq!(paper(papers, "hep-ph/0301050").ids.preprint_version, Some(2));

        let with_affiliations: Vec<(&str, &[String])> = papers
            .iter()
            .flat_map(|paper| &paper.authors)
            .filter(|author| !author.affiliations.is_empty())
            .map(|author| (author.name.as_str(), author.affiliations.as_slice()))
            .collect();
        assert_eq!(with_affiliations, [("Marie-Claude Gaudel", &["LRI".to_owned()][..]), ("Pascale Le Gall", &["IBISC".to_owned()][..])]);

        let equivalence = paper(papers, "gr-qc/0103067");
        assert_eq!(author_names(equivalence), ["Mark P. Haugan", "C. LÃ¤mmerzahl"]);
        assert_eq!(equivalence.ids.doi.as_deref(), Some("10.1007/3-540-40988-2_10"));
        assert_eq!(equivalence.journal.as_deref(), Some("Lect.Notes Phys.562:195-212,2001"));
    }

    #[test]
    fn oai_pmh_list_of_three_records() {
        let parsed = parse_oai_pmh(OAI_PMH_3);
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        let ids: Vec<_> = parsed.items.iter().map(|paper| paper.ids.arxiv.as_deref().unwrap_or_default()).collect();
        assert_eq!(ids, ["2504.11237", "2508.21012", "2510.07502"]);
        assert_eq!(resumption_token(OAI_PMH_3), None);

        let periodic = &parsed.items[0];
        assert_eq!(periodic.title, "Periodic table for highly charged ions");
        assert_eq!(periodic.ids.preprint_version, None);
        assert_eq!((periodic.published, periodic.entered), (date(2025, 4, 15), date(2026, 1, 5)));
        assert_eq!(author_names(periodic), ["Chunhai Lyu", "Christoph H. Keitel", "Zoltán Harman"]);
        assert_eq!(periodic.authors[1].given.as_deref(), Some("Christoph H."));
        assert_eq!(periodic.authors[1].family.as_deref(), Some("Keitel"));
        assert_eq!(periodic.categories, ["physics.atom-ph", "physics.optics", "physics.plasm-ph", "quant-ph"]);
        assert_eq!(periodic.journal.as_deref(), Some("Phys. Rev. Research 7, L042071 (2025)"));
        assert_eq!(periodic.ids.doi.as_deref(), Some("10.1103/bppp-53g1"));
        assert_eq!(periodic.ids.published_doi.as_deref(), Some("10.1103/bppp-53g1"));
        assert!(periodic.abstract_sections[0].text.starts_with("Mendeleev's periodic table successfully groups"));
        assert!(periodic.abstract_sections[0].text.contains("``Coulomb splittings'' between"));
        assert_eq!(link(periodic, LinkKind::Abstract), Some("https://arxiv.org/abs/2504.11237"));
        assert_eq!(periodic.sources, [Source::Arxiv]);

        let turbulence = &parsed.items[1];
        assert_eq!((turbulence.ids.doi.as_deref(), turbulence.journal.as_deref()), (None, None));
        assert_eq!(turbulence.categories.len(), 5);
        assert_eq!(turbulence.categories[0], "physics.comp-ph");
        assert_eq!(author_names(turbulence), ["Magnus F Ivarsen"]);

        let reconnection = &parsed.items[2];
        assert_eq!(reconnection.authors.len(), 12);
        assert_eq!(reconnection.authors[8].name, "D. O'Donnell");
        assert_eq!(reconnection.ids.doi.as_deref(), Some("10.1103/yjh7-hy2s"));
        assert_eq!(reconnection.journal, None);
        assert_eq!((reconnection.published, reconnection.entered), (date(2025, 12, 31), date(2026, 1, 5)));
    }

    // --- failures and edges ---------------------------------------------------------------

    #[test]
    fn a_body_that_is_not_an_atom_feed_is_malformed() {
        let rss = r#"<?xml version="1.0"?><rss version="2.0"><channel><title>t</title></channel></rss>"#;
        let bodies = ["", "garbage", "<html><body>502 Bad Gateway</body></html>", r#"{"error":"rate limited"}"#, rss, OAI_PMH_3];
        for body in bodies {
            assert!(matches!(parse_atom(body), Err(ArxivError::Malformed(_))), "{body:.40}");
        }
    }

    #[test]
    fn a_feed_without_paging_numbers_is_malformed() {
        let without_total = TWO_CATEGORIES.replace("<opensearch:totalResults>1</opensearch:totalResults>", "");
        let error = parse_atom(&without_total).expect_err("no totalResults");
        assert_eq!(error, ArxivError::Malformed("the feed has no opensearch:totalResults".into()));
    }

    #[test]
    fn an_entry_without_id_is_a_warning_and_the_others_survive() {
        let without_id = TESTING_10.replacen("<id>http://arxiv.org/abs/2405.13786v1</id>", "", 1);
        let page = page(&without_id);
        assert_eq!(page.papers.items.len(), 9);
        assert!(page.papers.items.iter().all(|paper| paper.ids.arxiv.as_deref() != Some("2405.13786")));
        let [warning] = page.papers.warnings.as_slice() else { panic!("one warning expected") };
        assert_eq!(warning.record.as_deref(), Some("entry 2 of the feed"));
        assert_eq!(warning.message, "entry has no <id>");
    }

    #[test]
    fn an_entry_without_title_or_with_a_foreign_id_is_a_warning() {
        let broken = TESTING_10.replacen("<title>Towards Explainable Test Case Prioritisation with Learning-to-Rank Models</title>", "", 1).replacen(
            "<id>http://arxiv.org/abs/2202.12139v1</id>",
            "<id>tag:example.org,2024:entry</id>",
            1,
        );
        let page = page(&broken);
        assert_eq!(page.papers.items.len(), 8);
        let records: Vec<_> = page.papers.warnings.iter().map(|warning| warning.record.as_deref().unwrap_or_default()).collect();
        assert_eq!(records, ["tag:example.org,2024:entry", "http://arxiv.org/abs/2405.13786v1"]);
        assert_eq!(page.papers.warnings[1].message, "entry has no title");
    }

    #[test]
    fn primary_category_comes_first_even_when_listed_later() {
        let reordered = TWO_CATEGORIES.replace(r#"<arxiv:primary_category term="math.CO"/>"#, r#"<arxiv:primary_category term="math.ST"/>"#);
        assert_eq!(page(&reordered).papers.items[0].categories, ["math.ST", "math.CO"]);
    }

    #[test]
    fn a_truncated_feed_is_malformed_not_a_panic() {
        let cut_after_first_entry = TESTING_10.find("</entry>").map(|end| end + "</entry>".len() + 20).unwrap_or(0);
        for cut in [cut_after_first_entry, TESTING_10.len() / 2, TESTING_10.len() - "</feed>\n".len()] {
            let truncated = &TESTING_10[..cut];
            assert!(matches!(parse_atom(truncated), Err(ArxivError::Malformed(_))), "cut at {cut}");
        }
    }

    #[test]
    fn a_truncated_oai_pmh_list_keeps_the_records_before_the_cut() {
        let cut = OAI_PMH_3.find("<identifier>oai:arXiv.org:2508.21012").expect("second record") + 200;
        let parsed = parse_oai_pmh(&OAI_PMH_3[..cut]);
        assert_eq!(parsed.items.len(), 1);
        assert_eq!(parsed.items[0].ids.arxiv.as_deref(), Some("2504.11237"));
        let [warning] = parsed.warnings.as_slice() else { panic!("one warning expected") };
        assert_eq!(warning.record.as_deref(), Some("oai:arXiv.org:2508.21012"));
        assert!(warning.message.starts_with("the response is not well-formed XML"), "{}", warning.message);
    }

    #[test]
    fn oai_pmh_record_without_id_is_a_warning() {
        let without_id = OAI_PMH_3.replacen("<identifier>oai:arXiv.org:2508.21012</identifier>", "", 1).replacen("<id>2508.21012</id>", "", 1);
        let parsed = parse_oai_pmh(&without_id);
        assert_eq!(parsed.items.len(), 2);
        let [warning] = parsed.warnings.as_slice() else { panic!("one warning expected") };
        assert_eq!(warning.record.as_deref(), Some("record 2 of the list"));
    }

    #[test]
    fn oai_pmh_tokens_errors_and_deleted_records() {
        let oai = |body: &str| format!(r#"<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">{body}</OAI-PMH>"#);
        let continued = oai(r#"<ListRecords><resumptionToken cursor="0">6789|1001</resumptionToken></ListRecords>"#);
        assert_eq!(resumption_token(&continued).as_deref(), Some("6789|1001"));
        let cut_after_token = &continued[..continued.len() - "</OAI-PMH>".len()];
        assert_eq!(resumption_token(cut_after_token).as_deref(), Some("6789|1001"));
        assert_eq!(resumption_token(&oai("<ListRecords><resumptionToken/></ListRecords>")), None);
        assert_eq!(resumption_token("not xml <"), None);

        let no_match = oai(r#"<error code="noRecordsMatch">no records</error>"#);
        assert_eq!(parse_oai_pmh(&no_match), no_papers());
        let bad_token = parse_oai_pmh(&oai(r#"<error code="badResumptionToken">expired</error>"#));
        assert_eq!(bad_token.warnings[0].message, "OAI-PMH error badResumptionToken: expired");

        let deleted =
            oai(r#"<ListRecords><record><header status="deleted"><identifier>oai:arXiv.org:2101.00001</identifier></header></record></ListRecords>"#);
        assert_eq!(parse_oai_pmh(&deleted), no_papers());
        for body in ["", "garbage", "<html><body>502 Bad Gateway</body></html>", TWO_CATEGORIES] {
            let parsed = parse_oai_pmh(body);
            assert!(parsed.items.is_empty(), "{body:.40}");
            assert_eq!(parsed.warnings[0].message, "the body is not an OAI-PMH response", "{body:.40}");
        }
        let cut_off = parse_oai_pmh(r#"<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>"#);
        assert!(cut_off.warnings[0].message.starts_with("the response is not well-formed XML"));
    }

    #[test]
    fn display_names_split_into_given_and_family() {
        let check = |name: &str, given: Option<&str>, family: Option<&str>, collective: bool| {
            let author = author_from_display_name(name).expect("a name");
            assert_eq!((author.given.as_deref(), author.family.as_deref(), author.is_collective), (given, family, collective), "{name}");
            assert_eq!(author.name, name.split_whitespace().collect::<Vec<_>>().join(" "));
        };
        check("Tobias Windisch", Some("Tobias"), Some("Windisch"), false);
        check("Plato", None, Some("Plato"), false);
        check("  Marc A.\n   Suchard ", Some("Marc A."), Some("Suchard"), false);
        check("Maria de la Cruz", Some("Maria"), Some("de la Cruz"), false);
        check("Adrian Del Maestro", Some("Adrian Del"), Some("Maestro"), false);
        check("Martin Luther King Jr.", Some("Martin Luther"), Some("King Jr."), false);
        check("Jan de", Some("Jan"), Some("de"), false);
        check("The ATLAS Collaboration", None, None, true);
        assert_eq!(author_from_display_name(" \n "), None);
    }

    #[test]
    fn arxiv_identifiers_have_a_known_shape() {
        assert_eq!(arxiv_identifier("http://arxiv.org/abs/2405.13786v1"), Some(("2405.13786".into(), Some(1))));
        assert_eq!(arxiv_identifier("0704.0001"), Some(("0704.0001".into(), None)));
        assert_eq!(arxiv_identifier("oai:arXiv.org:hep-ph/0301050"), Some(("hep-ph/0301050".into(), None)));
        assert_eq!(arxiv_identifier("math.GT/0309136v2"), Some(("math.GT/0309136".into(), Some(2))));
        for not_arxiv in ["tag:example.org,2024:entry", "https://arxiv.org/api/errors#incorrect_id_format_for_abc", "1234.5", "HEP/0301050", ""] {
            assert_eq!(arxiv_identifier(not_arxiv), None, "{not_arxiv}");
        }
    }

    #[test]
    fn first_doi_of_a_field_with_several() {
        assert_eq!(first_doi("10.1103/PhysRevB.71.184511").as_deref(), Some("10.1103/physrevb.71.184511"));
        assert_eq!(first_doi(" 10.1000/a, 10.1000/b").as_deref(), Some("10.1000/a"));
        assert_eq!(first_doi("see journal"), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        /// Cutting a real body anywhere never panics: Atom gives a page or Malformed, OAI-PMH
        /// keeps whole records and warns about the rest.
        #[test]
        fn cutting_a_body_anywhere_never_panics(fraction in 0.0_f64..1.0) {
            for body in [TESTING_10, LEGACY_2016, OAI_PMH_3] {
                let mut cut = (body.len() as f64 * fraction) as usize;
                while !body.is_char_boundary(cut) {
                    cut -= 1;
                }
                let truncated = &body[..cut];
                if let Ok(page) = parse_atom(truncated) {
                    prop_assert!(page.papers.items.len() <= 10);
                }
                let parsed = parse_oai_pmh(truncated);
                prop_assert!(parsed.items.len() <= 3);
                if body == OAI_PMH_3 && cut < body.len() - "</OAI-PMH>".len() {
                    prop_assert!(parsed.items.len() < 3 || !parsed.warnings.is_empty());
                }
            }
        }
    }
}
