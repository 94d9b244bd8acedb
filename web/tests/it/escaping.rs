//! User and source text is shown, never run: a digest whose papers carry hostile titles,
//! authors, journals, abstracts and identifiers is mailed (HTML and plain text) and listed by the
//! API, and the mail is checked tag by tag; the pages the server writes itself are checked for
//! markup built from data.

use std::collections::BTreeSet;

use engine::paper::{AbstractSection, Author, Paper, Source};
use serde_json::json;

use crate::common::TestServer;

const EMAIL: &str = "ada@example.org";
const TERM: &str = "zebrafish fin regeneration";

/// Markup a source (or whoever wrote the record) could slip into a paper.
const PAYLOADS: &[&str] = &[
    "<script>alert('title')</script>",
    "\"><img src=x onerror=alert(1)>",
    "' onmouseover='alert(2)",
    "<a href=\"javascript:alert(3)\">click</a>",
    "</p></div><iframe src=//evil.example></iframe>",
    "<!-- <style>body{display:none}</style>",
];

fn hostile_paper(index: usize) -> Paper {
    let payload = PAYLOADS[index % PAYLOADS.len()];
    let mut paper = Paper::new(Source::Pubmed, format!("Zebrafish fin regeneration {payload} study {index}\r\nBcc: victim@example.org"));
    paper.ids.pmid = Some(format!("9{index:07}"));
    paper.ids.doi = Some(format!("10.5555/x{index}\"onmouseover=\"alert({index})\"><b>"));
    paper.abstract_sections = vec![AbstractSection {
        label: Some(format!("RESULTS{payload}")),
        text: format!(
            "Zebrafish fin regeneration after amputation {payload} restores the fin.\u{0}\u{1b}[31m Fin regeneration in zebrafish needs blastema cells {payload}."
        ),
    }];
    paper.authors = vec![Author::person(Some("Ada"), &format!("Lovelace{payload}")), Author::person(Some("\u{202e}Bob"), "Smith\r\nX-Injected: yes")];
    paper.journal = Some(format!("Journal of {payload} Regeneration"));
    paper.entered = Some(chrono::Utc::now().date_naive());
    paper.published = paper.entered;
    paper
}

/// The tag names and attribute names of `html`, and the values of its `href`s; panics on text
/// that is not well formed as our mail writes it (an attribute value holding a quote, a tag left
/// open).
fn markup_of(html: &str) -> (BTreeSet<String>, BTreeSet<String>, Vec<String>) {
    let (mut tags, mut attributes, mut hrefs) = (BTreeSet::new(), BTreeSet::new(), Vec::new());
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let after = &rest[start + 1..];
        let end = after.find('>').unwrap_or_else(|| panic!("a tag left open: {}", &after[..after.len().min(80)]));
        let tag = &after[..end];
        rest = &after[end + 1..];
        if tag.starts_with('!') {
            assert!(tag.eq_ignore_ascii_case("!doctype html"), "a comment or declaration in the mail: <{tag}>");
            continue;
        }
        let tag = tag.trim_start_matches('/').trim_end_matches('/');
        let (name, mut attribute_text) = tag.split_once(' ').unwrap_or((tag, ""));
        tags.insert(name.to_ascii_lowercase());
        while !attribute_text.trim().is_empty() {
            let trimmed = attribute_text.trim_start();
            let (attribute, after_name) = trimmed.split_once("=\"").unwrap_or_else(|| panic!("an attribute without a quoted value: <{tag}>"));
            let value_end = after_name.find('"').unwrap_or_else(|| panic!("an unterminated attribute: <{tag}>"));
            attributes.insert(attribute.to_ascii_lowercase());
            if attribute.eq_ignore_ascii_case("href") {
                hrefs.push(after_name[..value_end].to_owned());
            }
            attribute_text = &after_name[value_end + 1..];
        }
    }
    (tags, attributes, hrefs)
}

/// The tags and attributes a digest mail of ordinary papers has: the only ones allowed.
fn markup_of_a_plain_digest() -> (BTreeSet<String>, BTreeSet<String>) {
    let context = engine::mail::MailContext { public_url: "http://127.0.0.1:1".into(), support_email: "help@example.org".into() };
    let paper = engine::mail::DigestPaper {
        title: "A plain paper".into(),
        links: vec![("DOI".into(), "https://doi.org/10.1/x".into())],
        authors: "Ada Lovelace".into(),
        venue: "Nature".into(),
        sources: "PubMed".into(),
        relevance_percent: 80,
        summary: "It finds things.".into(),
        reason: "Matched".into(),
        retracted: true,
    };
    let mail = engine::mail::digest_mail(
        &context,
        EMAIL,
        &engine::mail::DigestMail {
            term: "plain",
            weekly: true,
            searched_as: Some("plain"),
            widened: Some(engine::digest::Widened { days: 30, new_this_week: 0 }),
            ai_summary: &["A point.".to_owned()],
            papers: &[paper],
            empty_reason: None,
            unsubscribe_url: "http://127.0.0.1:1/unsubscribe?token=x",
            rating_links: &[],
            citations_url: Some("http://127.0.0.1:1/api/citations/link?token=x"),
        },
    );
    let (tags, attributes, _) = markup_of(&mail.html);
    (tags, attributes)
}

#[actix_web::test]
async fn a_digest_of_hostile_papers_is_escaped_in_html_and_plain_text_and_links_only_to_the_web() {
    let server = TestServer::start().await;
    let client = server.client();
    server.verified_user(&client, EMAIL).await;
    let papers: Vec<Paper> = (0..PAYLOADS.len()).map(hostile_paper).collect();
    server.state.indexer.send(actors::Ingest(papers)).await.expect("indexer alive").expect("indexed");
    let search = client.post("/api/immediate-search", json!({ "email": EMAIL, "searchTerm": TERM })).await;
    assert_eq!(search.status, 200, "{}", search.body);
    assert!(search.body["papersFound"].as_u64().unwrap_or_default() >= 3, "the hostile papers match: {}", search.body);

    let user = server.state.store.accounts().user_by_email(EMAIL).expect("db").expect("user");
    let digest = server.latest_digest_of(EMAIL);
    let mail = server.state.digester.render(&user, EMAIL, &digest).expect("rendered");

    // HTML: only the tags and attributes of an ordinary digest, and links only to the web.
    let (allowed_tags, allowed_attributes) = markup_of_a_plain_digest();
    let (tags, attributes, hrefs) = markup_of(&mail.html);
    assert!(tags.is_subset(&allowed_tags), "tags beyond the layout's: {:?}", tags.difference(&allowed_tags).collect::<Vec<_>>());
    assert!(
        attributes.is_subset(&allowed_attributes),
        "attributes beyond the layout's: {:?}",
        attributes.difference(&allowed_attributes).collect::<Vec<_>>()
    );
    for href in &hrefs {
        let is_web = href.starts_with("https://") || href.starts_with("http://") || href.starts_with("mailto:");
        assert!(is_web && !href.contains(char::is_whitespace), "a link that is not a web address: {href}");
    }
    assert!(hrefs.iter().any(|href| href.starts_with("https://doi.org/10.5555/x")), "the papers are linked: {hrefs:?}");
    for payload in PAYLOADS {
        assert!(!mail.html.contains(payload), "{payload} is in the HTML as it came");
    }
    assert!(mail.html.contains("&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt;"), "the title is shown, escaped");
    assert!(mail.html.contains("Lovelace&lt;script&gt;"), "the author is shown, escaped");

    // Plain text and subject: no control character but the line ends, so no fake line.
    for (part, text) in [("text", mail.text.as_str()), ("html", mail.html.as_str()), ("subject", mail.subject.as_str())] {
        let control = text.chars().find(|character| character.is_control() && *character != '\n');
        assert_eq!(control, None, "a control character in the {part}");
        for line in text.lines() {
            assert!(!line.starts_with("Bcc:") && !line.starts_with("X-Injected:"), "a line from a paper's text in the {part}: {line}");
        }
    }
    assert!(mail.text.contains("<script>alert('title')</script>"), "the plain part shows the title as text");

    // The mail as sent: one Subject, no header from a paper.
    let sent = server.wait_for_mail_to(EMAIL, "Papertide:").await;
    let (headers, _) = sent.split_once("\r\n\r\n").expect("headers and body");
    assert!(!headers.lines().any(|line| line.starts_with("Bcc:") || line.starts_with("X-Injected:")), "{headers}");

    // The API's digests: every address a page links to is a web address.
    let listed = client.get(&format!("/api/users/{}/digests", user.id)).await;
    assert_eq!(listed.status, 200);
    for paper in listed.body[0]["papersData"].as_array().expect("papers") {
        let mut addresses: Vec<&str> = paper["url"].as_str().into_iter().collect();
        addresses.extend(paper["links"].as_array().into_iter().flatten().filter_map(|link| link[1].as_str().or(link["url"].as_str())));
        assert!(!addresses.is_empty(), "{paper}");
        for address in addresses {
            assert!(engine::mail::is_web_address(address), "the page would link to {address:?}");
        }
    }
}

/// A digest stored with a subject holding a line break (as a term from before terms were
/// refused for one would make) is sent with that subject on one line and no extra header.
#[actix_web::test]
async fn a_stored_subject_with_a_line_break_adds_no_mail_header() {
    let server = TestServer::start().await;
    let client = server.client();
    server.verified_user(&client, EMAIL).await;
    server.index_recorded_papers().await;
    let search = client.post("/api/immediate-search", json!({ "email": EMAIL, "searchTerm": "phthalate liver" })).await;
    assert_eq!(search.status, 200, "{}", search.body);
    server.wait_for_empty_queue().await;
    let template = server.latest_digest_of(EMAIL);
    let user = server.state.store.accounts().user_by_email(EMAIL).expect("db").expect("user");
    let digest = engine::digest::Digest {
        id: uuid::Uuid::new_v4(),
        subject: "Papertide: news\r\nX-Injected: yes\r\nBcc: victim@example.org".into(),
        ..template
    };
    let mail = store::DigestMail { to: user.email.clone(), subject: digest.subject.clone(), list_unsubscribe: None };
    let sent_before = server.outbox();
    server.state.store.record_digest(&digest, &mail, chrono::Utc::now()).expect("recorded");
    server.state.store.flush().expect("flushed");
    server.state.poke_mailer();
    let mails = server.wait_for_outbox(sent_before.len() + 1).await;
    let sent = mails.iter().find(|mail| !sent_before.contains(mail)).expect("the digest was sent");
    let (headers, _) = sent.split_once("\r\n\r\n").expect("headers and body");
    for line in headers.lines() {
        assert!(!line.starts_with("X-Injected") && !line.starts_with("Bcc"), "a header from the subject: {line}\n{headers}");
    }
}

/// The pages the server writes itself put data into markup only through their escaping helper,
/// and the React client never sets HTML from data.
#[test]
fn pages_build_no_markup_from_data() {
    let fallback = include_str!("../../src/fallback.html");
    for line in fallback.lines().filter(|line| line.contains("show(\"") && line.contains("\" + ")) {
        for joined in line.split("\" + ").skip(1) {
            assert!(joined.starts_with("text("), "the fallback page puts data into HTML unescaped: {}", line.trim());
        }
    }
    let client_source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("client/src");
    let mut offenders = Vec::new();
    let mut folders = vec![client_source];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("client sources").flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
            let is_code = name.ends_with(".ts") || name.ends_with(".tsx");
            if !is_code || name.contains(".test.") {
                continue;
            }
            let code = std::fs::read_to_string(&path).expect("readable source");
            for sink in ["dangerouslySetInnerHTML", "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"] {
                if code.contains(sink) {
                    offenders.push(format!("{} uses {sink}", path.display()));
                }
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:?}");
}

/// The password reset and verification pages read their token from the address: a hostile one
/// is sent to the API percent-encoded and the answer's message is shown as text.
#[actix_web::test]
async fn hostile_tokens_in_page_addresses_are_answered_as_data() {
    let server = TestServer::start().await;
    let client = server.client();
    for path in ["/verify-email?token=%3Cscript%3Ealert(1)%3C/script%3E", "/reset-password?token=%22%3E%3Cimg%20src=x%3E"] {
        let page = client.get(path).await;
        assert_eq!(page.status, 200);
        let html = page.body.as_str().expect("a page");
        assert!(!html.contains("<script>alert(1)") && !html.contains("<img src=x>"), "{path}: the token is in the page");
    }
    let answer = client.get("/api/verify-email?token=%3Cscript%3Ealert(1)%3C/script%3E").await;
    assert_eq!(answer.status, 400);
    assert!(!answer.body.to_string().contains("<script>"), "the answer repeats the token: {}", answer.body);
}
