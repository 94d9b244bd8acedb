//! A digest as a lab-chat message, for an incoming webhook that Slack and Mattermost both take.
//!
//! One JSON body serves both: Slack shows its `blocks` (a header, a section per paper, a link to
//! the dashboard) and uses `text` only for notifications; Mattermost ignores `blocks` and shows
//! `text`, written in Markdown for it. Every text from a source or a user is escaped for what
//! reads it: Slack's mrkdwn (`&`, `<`, `>`) in blocks, Markdown (`[`, `]`, `*`, `_`, …) in `text`,
//! and links are made only of `http(s)` addresses. Slack's limits are kept by construction: at
//! most [`MAX_BLOCKS`] blocks, a section's text at most [`MAX_SECTION_CHARS`] characters, the
//! header at most [`MAX_HEADER_CHARS`]; long texts are cut on character boundaries with "…".
//!
//! [`validate_webhook_url`] checks an address a researcher gives before anything is posted to
//! it: `https`, no credentials, not too long, and (unless the installation allows private
//! addresses) not a local name or a loopback, private, link-local, unique-local or unspecified IP
//! literal. A public name can still resolve to a private address: resolving it, and checking the
//! address connected to, is the caller's (engine does no I/O).

use core::net::{Ipv4Addr, Ipv6Addr};

use serde_json::{json, Value};
use url::{Host, Url};

use crate::digest::{percent, source_label, Digest, DigestEntry, Widened};
use crate::mail::is_web_address;

/// Blocks in one Slack message at most.
pub const MAX_BLOCKS: usize = 50;
/// Characters of a Slack section's text at most.
pub const MAX_SECTION_CHARS: usize = 3000;
/// Characters of a Slack header's text at most.
pub const MAX_HEADER_CHARS: usize = 150;
/// Characters of the Markdown `text` at most: what every Mattermost server shows whole (older
/// servers cut posts at 4000).
pub const MAX_TEXT_CHARS: usize = 4000;
/// Characters of a webhook URL at most.
pub const MAX_WEBHOOK_URL_CHARS: usize = 500;

/// A paper's title in a message, in characters at most.
const TITLE_CHARS: usize = 300;
/// A paper's venue, in characters at most.
const VENUE_CHARS: usize = 200;
/// A paper's reason line, in characters at most.
const REASON_CHARS: usize = 1000;
/// A link longer than this is left out (the title is shown without it).
const LINK_CHARS: usize = 1000;

pub const MSG_NO_NEW_PAPERS: &str = "No new papers this week";
pub const MSG_WEBHOOK_URL_EMPTY: &str = "Enter the webhook URL";
pub const MSG_WEBHOOK_URL_TOO_LONG: &str = "The webhook URL must be at most 500 characters";
pub const MSG_WEBHOOK_URL_INVALID: &str = "The webhook URL is not a valid URL";
pub const MSG_WEBHOOK_URL_NOT_HTTPS: &str = "The webhook URL must start with https://";
pub const MSG_WEBHOOK_URL_CREDENTIALS: &str = "The webhook URL must not contain a user name or password";
pub const MSG_WEBHOOK_URL_NO_HOST: &str = "The webhook URL must name a host";
pub const MSG_WEBHOOK_URL_PRIVATE: &str = "The webhook URL must point to a public address, not a local or private one";

/// The webhook body for `digest` (see the module docs): `text` in Markdown, `blocks` for Slack,
/// link previews off. `dashboard_url` is where its papers are rated (linked only when it is an
/// `http(s)` address).
pub fn webhook_message(digest: &Digest, dashboard_url: &str) -> Value {
    let term = one_line(&digest.search_term);
    let count = digest.papers_data.len();
    let summary = count_phrase(count, digest.widened);
    let dashboard = is_web_address(dashboard_url).then_some(dashboard_url);
    json!({
        "text": markdown_text(digest, &term, &summary, dashboard),
        "blocks": blocks(digest, &term, &summary, dashboard),
        "unfurl_links": false,
        "unfurl_media": false,
    })
}

/// "3 new papers", "1 new paper", or for a digest that looked back: "5 papers from the last 30
/// days"; [`MSG_NO_NEW_PAPERS`] (or "No papers in the last 30 days") when empty.
fn count_phrase(count: usize, widened: Option<Widened>) -> String {
    let papers = if count == 1 { "1 paper".to_owned() } else { format!("{count} papers") };
    match (count, widened) {
        (0, None) => MSG_NO_NEW_PAPERS.to_owned(),
        (0, Some(Widened { days, .. })) => format!("No papers in the last {days} days"),
        (1, None) => "1 new paper".to_owned(),
        (_, None) => format!("{count} new papers"),
        (_, Some(Widened { days, .. })) => format!("{papers} from the last {days} days"),
    }
}

/// Where a paper is read, encoded by `encode` for the message: its `url`, else its first link,
/// whichever is first an `http(s)` address; none when that is too long.
fn paper_link(entry: &DigestEntry, encode: fn(&str) -> String) -> Option<String> {
    let mut candidates = entry.url.iter().map(String::as_str).chain(entry.links.iter().map(|(_, url)| url.as_str()));
    let url = candidates.find(|url| is_web_address(url))?;
    Some(encode(url)).filter(|encoded| encoded.chars().count() <= LINK_CHARS)
}

fn venue(entry: &DigestEntry) -> String {
    entry.journal.as_deref().map(one_line).filter(|journal| !journal.is_empty()).unwrap_or_else(|| source_label(entry.source).to_owned())
}

// Mattermost: Markdown ------------------------------------------------------------------------

fn markdown_text(digest: &Digest, term: &str, summary: &str, dashboard: Option<&str>) -> String {
    let mut text = format!("**{}** — {summary}", cut_escaped(term, MAX_HEADER_CHARS, escape_markdown_char));
    let papers = &digest.papers_data;
    let footer = match (dashboard, papers.is_empty()) {
        (Some(url), false) => format!("\n[Rate them on your dashboard]({})", markdown_url(url)),
        (Some(url), true) => format!("\n[Open your dashboard]({})", markdown_url(url)),
        (None, _) => String::new(),
    };
    for (shown, entry) in papers.iter().enumerate() {
        let line = markdown_line(entry);
        let more = format!("\n…and {} more", papers.len() - shown);
        let room = MAX_TEXT_CHARS.saturating_sub(footer.chars().count() + more.chars().count());
        if text.chars().count() + line.chars().count() > room {
            text.push_str(&more);
            break;
        }
        text.push_str(&line);
    }
    text.push_str(&footer);
    text
}

/// `\n• [Title](url) — 87% · reason`.
fn markdown_line(entry: &DigestEntry) -> String {
    let title = cut_escaped(&one_line(&entry.title), TITLE_CHARS, escape_markdown_char);
    let title = match paper_link(entry, markdown_url) {
        Some(url) => format!("[{title}]({url})"),
        None => title,
    };
    let retracted = if entry.retracted { "⚠ Retracted · " } else { "" };
    let reason = one_line(&entry.reason);
    let reason = if reason.is_empty() { String::new() } else { format!(" · {}", cut_escaped(&reason, 300, escape_markdown_char)) };
    format!("\n• {title} — {retracted}{}%{reason}", percent(entry.relevance_score))
}

/// A character as Markdown shows it as written: its markup characters backslash-escaped.
fn escape_markdown_char(character: char, escaped: &mut String) {
    if matches!(character, '\\' | '*' | '_' | '[' | ']' | '`' | '~' | '<' | '>' | '|' | '#') {
        escaped.push('\\');
    }
    escaped.push(character);
}

/// A link target that cannot end a Markdown link early: spaces, parentheses and angle brackets
/// percent-encoded (DOIs hold parentheses).
fn markdown_url(url: &str) -> String {
    url.replace(' ', "%20").replace('(', "%28").replace(')', "%29").replace('<', "%3C").replace('>', "%3E")
}

// Slack: blocks -------------------------------------------------------------------------------

fn blocks(digest: &Digest, term: &str, summary: &str, dashboard: Option<&str>) -> Vec<Value> {
    let suffix = format!(" — {summary}");
    let header = format!("{}{suffix}", cut(term, MAX_HEADER_CHARS.saturating_sub(suffix.chars().count())));
    let mut blocks = vec![json!({"type": "header", "text": {"type": "plain_text", "text": cut(&header, MAX_HEADER_CHARS), "emoji": true}})];
    let papers = &digest.papers_data;
    if papers.is_empty() {
        blocks.push(json!({"type": "section", "text": {"type": "mrkdwn", "text": format!("{}.", cut_escaped(summary, MAX_HEADER_CHARS, escape_mrkdwn_char))}}));
    }
    // The header, the footer and a "more" note leave room for this many papers (a section and a
    // divider each).
    let room = (MAX_BLOCKS - 3) / 2;
    for entry in papers.iter().take(room) {
        blocks.push(json!({"type": "section", "text": {"type": "mrkdwn", "text": section_text(entry)}}));
        blocks.push(json!({"type": "divider"}));
    }
    if papers.len() > room {
        let more = format!("…and {} more on your dashboard", papers.len() - room);
        blocks.push(json!({"type": "context", "elements": [{"type": "mrkdwn", "text": more}]}));
    }
    let words = if papers.is_empty() { "Open your Papertide dashboard" } else { "Rate them on your Papertide dashboard" };
    let footer = match dashboard {
        Some(url) => format!("<{}|{words}>", slack_url(url)),
        None => words.to_owned(),
    };
    blocks.push(json!({"type": "context", "elements": [{"type": "mrkdwn", "text": footer}]}));
    blocks
}

/// `*<url|Title>*\n87% relevant · venue · reason`, within [`MAX_SECTION_CHARS`] by construction.
fn section_text(entry: &DigestEntry) -> String {
    let title = cut_escaped(&one_line(&entry.title), TITLE_CHARS, escape_mrkdwn_char);
    let title = match paper_link(entry, slack_url) {
        Some(url) => format!("*<{url}|{title}>*"),
        None => format!("*{title}*"),
    };
    let mut details = Vec::new();
    if entry.retracted {
        details.push("⚠ Retracted".to_owned());
    }
    details.push(format!("{}% relevant", percent(entry.relevance_score)));
    details.push(cut_escaped(&venue(entry), VENUE_CHARS, escape_mrkdwn_char));
    let reason = one_line(&entry.reason);
    if !reason.is_empty() {
        details.push(cut_escaped(&reason, REASON_CHARS, escape_mrkdwn_char));
    }
    format!("{title}\n{}", details.join(" · "))
}

/// A character as Slack's mrkdwn shows it as written: its three control characters as entities.
fn escape_mrkdwn_char(character: char, escaped: &mut String) {
    match character {
        '&' => escaped.push_str("&amp;"),
        '<' => escaped.push_str("&lt;"),
        '>' => escaped.push_str("&gt;"),
        _ => escaped.push(character),
    }
}

/// A link target for `<url|text>`: the characters that would end it percent-encoded.
fn slack_url(url: &str) -> String {
    url.replace('|', "%7C").replace('<', "%3C").replace('>', "%3E").replace(' ', "%20")
}

/// `text` on one line with its spaces collapsed.
fn one_line(text: &str) -> String {
    crate::paper::collapse_whitespace(&crate::mail::one_line(text))
}

/// `text` escaped by `escape`, cut so that what is written is at most `max` characters (the last
/// of them "…" when cut), never inside a character or an escape.
fn cut_escaped(text: &str, max: usize, escape: fn(char, &mut String)) -> String {
    let mut escaped = String::with_capacity(text.len());
    let mut piece = String::new();
    let mut written = 0;
    let total: usize = text
        .chars()
        .map(|character| {
            piece.clear();
            escape(character, &mut piece);
            piece.chars().count()
        })
        .sum();
    let budget = if total <= max { max } else { max.saturating_sub(1) };
    for character in text.chars() {
        piece.clear();
        escape(character, &mut piece);
        let length = piece.chars().count();
        if written + length > budget {
            break;
        }
        escaped.push_str(&piece);
        written += length;
    }
    if total > max {
        let kept = escaped.trim_end().len();
        escaped.truncate(kept);
        escaped.push('…');
    }
    escaped
}

/// `text` cut to at most `max` characters, the last of them "…" when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

// Webhook URLs --------------------------------------------------------------------------------

/// The webhook URL a researcher gave, if it may be posted to (see the module docs); the message
/// of the first rule it breaks otherwise. `allow_private` (an installation on a private network)
/// also allows plain `http` and local or private hosts.
pub fn validate_webhook_url(text: &str, allow_private: bool) -> Result<Url, &'static str> {
    let text = text.trim();
    if text.is_empty() {
        return Err(MSG_WEBHOOK_URL_EMPTY);
    }
    if text.chars().count() > MAX_WEBHOOK_URL_CHARS {
        return Err(MSG_WEBHOOK_URL_TOO_LONG);
    }
    // The URL parser would drop tabs and line breaks silently; an address with them is a paste
    // gone wrong.
    if text.chars().any(|character| character.is_whitespace() || character.is_control()) {
        return Err(MSG_WEBHOOK_URL_INVALID);
    }
    let lower = text.to_ascii_lowercase();
    if !(lower.starts_with("https://") || lower.starts_with("http://")) {
        return Err(MSG_WEBHOOK_URL_NOT_HTTPS);
    }
    let url = Url::parse(text).map_err(|_| MSG_WEBHOOK_URL_INVALID)?;
    match url.scheme() {
        "https" => {}
        "http" if allow_private => {}
        _ => return Err(MSG_WEBHOOK_URL_NOT_HTTPS),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(MSG_WEBHOOK_URL_CREDENTIALS);
    }
    let host = url.host().ok_or(MSG_WEBHOOK_URL_NO_HOST)?;
    if !allow_private && !is_public_host(&host) {
        return Err(MSG_WEBHOOK_URL_PRIVATE);
    }
    Ok(url)
}

/// Names that only mean something on a local network.
const LOCAL_SUFFIXES: [&str; 6] = [".localhost", ".local", ".internal", ".home.arpa", ".localdomain", ".lan"];

/// Whether `host` may be a public host: a name with a dot that is not a local one, or an IP
/// literal outside the special-purpose ranges.
fn is_public_host(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name.contains('.') && name != "localhost" && !LOCAL_SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
        }
        Host::Ipv4(address) => is_public_ipv4(*address),
        Host::Ipv6(address) => is_public_ipv6(*address),
    }
}

/// Outside "this network", loopback, private, shared (CGNAT), link-local, IETF protocol
/// assignments, documentation, benchmarking, multicast, reserved and broadcast ranges.
pub fn is_public_ipv4(address: Ipv4Addr) -> bool {
    let [a, b, c, _] = address.octets();
    let special = a == 0
        || address.is_loopback()
        || address.is_private()
        || address.is_link_local()
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || address.is_documentation()
        || (a == 198 && (18..20).contains(&b))
        || address.is_multicast()
        || a >= 240;
    !special
}

/// Outside the unspecified and loopback addresses, unique-local (`fc00::/7`), link-local
/// (`fe80::/10`), site-local (`fec0::/10`), multicast, documentation (`2001:db8::/32`),
/// discard-only (`100::/64`) and Teredo (`2001::/32`); an address that carries an IPv4 one
/// (mapped, compatible, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is as public as that one.
pub fn is_public_ipv6(address: Ipv6Addr) -> bool {
    let segments = address.segments();
    if address.is_unspecified() || address.is_loopback() || address.is_multicast() {
        return false;
    }
    let embedded_v4 = |high: u16, low: u16| Ipv4Addr::new((high >> 8) as u8, high as u8, (low >> 8) as u8, low as u8);
    if let Some(v4) = address.to_ipv4_mapped() {
        return is_public_ipv4(v4);
    }
    if segments[..6] == [0, 0, 0, 0, 0, 0] || segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_public_ipv4(embedded_v4(segments[6], segments[7]));
    }
    if segments[0] == 0x2002 {
        return is_public_ipv4(embedded_v4(segments[1], segments[2]));
    }
    let special = (segments[0] & 0xfe00) == 0xfc00
        || (segments[0] & 0xffc0) == 0xfe80
        || (segments[0] & 0xffc0) == 0xfec0
        || (segments[0] == 0x2001 && segments[1] == 0x0db8)
        || (segments[0] == 0x2001 && segments[1] == 0)
        || segments[..4] == [0x100, 0, 0, 0];
    !special
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::account::UserId;
    use crate::digest::{DigestKind, DigestStatus};
    use crate::paper::Source;
    use uuid::Uuid;

    fn entry(title: &str, relevance: f64, source: Source) -> DigestEntry {
        DigestEntry {
            title: title.into(),
            url: Some("https://doi.org/10.1038/nature12373".into()),
            authors: "A. Author0, A. Author1".into(),
            journal: Some("Nature".into()),
            abstract_text: "An abstract.".into(),
            source,
            sources: vec![source],
            relevance_score: relevance,
            impact: 0.2,
            summary: "A summary.".into(),
            reason: "Matched \"base editing\"; words: base, edit".into(),
            retracted: false,
            keys: vec!["doi:10.1038/nature12373".into()],
            links: vec![("DOI".into(), "https://doi.org/10.1038/nature12373".into())],
        }
    }

    fn digest(papers: Vec<DigestEntry>) -> Digest {
        Digest {
            id: Uuid::from_u128(5),
            user_id: UserId(Uuid::from_u128(7)),
            digest_type: DigestKind::Weekly,
            search_term: "CRISPR base editing".into(),
            term_id: None,
            searched_as: None,
            papers_data: papers,
            ai_summary: String::new(),
            subject: "Papertide: 3 new papers on \"CRISPR base editing\"".into(),
            status: DigestStatus::Sent,
            sent_at: "2026-11-23T08:00:00Z".parse().expect("a time"),
            sent_before: 0,
            widened: None,
        }
    }

    fn realistic() -> Digest {
        let mut preprint = entry("Prime editing <in vivo> & [ex vivo]: a *review*", 0.6249, Source::Biorxiv);
        preprint.journal = None;
        preprint.url = None;
        preprint.links = vec![("Preprint".into(), "https://doi.org/10.1101/2020.09.09.20191205".into())];
        let mut retracted = entry("Base editing of HBB | retracted", 0.71, Source::Pubmed);
        retracted.retracted = true;
        retracted.url = Some("https://doi.org/10.1016/S0140-6736(20)30183-5".into());
        let mut unlinked = entry("An entry without an address", 0.456, Source::Arxiv);
        unlinked.url = Some("javascript:alert(1)".into());
        unlinked.links = vec![("DOI".into(), "data:text/html,<script>".into())];
        unlinked.reason = String::new();
        digest(vec![entry("Base editing in mice", 0.874, Source::Pubmed), preprint, retracted, unlinked])
    }

    const DASHBOARD: &str = "https://papers.example.org/dashboard";

    fn texts(value: &Value) -> (String, Vec<Value>) {
        let text = value["text"].as_str().expect("text").to_owned();
        let blocks = value["blocks"].as_array().expect("blocks").clone();
        (text, blocks)
    }

    #[test]
    fn mattermost_reads_markdown_text() {
        let (text, _) = texts(&webhook_message(&realistic(), DASHBOARD));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "**CRISPR base editing** — 4 new papers",
                "• [Base editing in mice](https://doi.org/10.1038/nature12373) — 87% · Matched \"base editing\"; words: base, edit",
                "• [Prime editing \\<in vivo\\> & \\[ex vivo\\]: a \\*review\\*](https://doi.org/10.1101/2020.09.09.20191205) — 62% · Matched \"base editing\"; words: base, edit",
                "• [Base editing of HBB \\| retracted](https://doi.org/10.1016/S0140-6736%2820%2930183-5) — ⚠ Retracted · 71% · Matched \"base editing\"; words: base, edit",
                "• An entry without an address — 46%",
                "[Rate them on your dashboard](https://papers.example.org/dashboard)",
            ]
        );
    }

    #[test]
    fn slack_reads_blocks() {
        let message = webhook_message(&realistic(), DASHBOARD);
        assert_eq!((message["unfurl_links"].as_bool(), message["unfurl_media"].as_bool()), (Some(false), Some(false)));
        let (_, blocks) = texts(&message);
        let kinds: Vec<&str> = blocks.iter().map(|block| block["type"].as_str().expect("type")).collect();
        assert_eq!(kinds, ["header", "section", "divider", "section", "divider", "section", "divider", "section", "divider", "context"]);
        assert_eq!(blocks[0]["text"]["type"], "plain_text");
        assert_eq!(blocks[0]["text"]["text"], "CRISPR base editing — 4 new papers");
        let sections: Vec<&str> =
            blocks.iter().filter(|block| block["type"] == "section").map(|block| block["text"]["text"].as_str().expect("text")).collect();
        assert_eq!(
            sections[0],
            "*<https://doi.org/10.1038/nature12373|Base editing in mice>*\n87% relevant · Nature · Matched \"base editing\"; words: base, edit"
        );
        assert_eq!(
            sections[1],
            "*<https://doi.org/10.1101/2020.09.09.20191205|Prime editing &lt;in vivo&gt; &amp; [ex vivo]: a *review*>*\n62% relevant · bioRxiv · Matched \"base editing\"; words: base, edit"
        );
        assert!(
            sections[2].starts_with(
                "*<https://doi.org/10.1016/S0140-6736(20)30183-5|Base editing of HBB | retracted>*\n⚠ Retracted · 71% relevant · Nature"
            ),
            "{}",
            sections[2]
        );
        assert_eq!(sections[3], "*An entry without an address*\n46% relevant · Nature", "no link but an http(s) one");
        for block in blocks.iter().filter(|block| block["type"] == "section") {
            assert_eq!(block["text"]["type"], "mrkdwn");
        }
        assert_eq!(blocks[9]["elements"][0]["text"], "<https://papers.example.org/dashboard|Rate them on your Papertide dashboard>");
    }

    #[test]
    fn an_empty_digest_says_there_is_nothing_new() {
        let message = webhook_message(&digest(Vec::new()), DASHBOARD);
        let (text, blocks) = texts(&message);
        assert_eq!(text, "**CRISPR base editing** — No new papers this week\n[Open your dashboard](https://papers.example.org/dashboard)");
        let kinds: Vec<&str> = blocks.iter().map(|block| block["type"].as_str().expect("type")).collect();
        assert_eq!(kinds, ["header", "section", "context"]);
        assert_eq!(blocks[0]["text"]["text"], "CRISPR base editing — No new papers this week");
        assert_eq!(blocks[1]["text"]["text"], "No new papers this week.");
        assert_eq!(blocks[2]["elements"][0]["text"], "<https://papers.example.org/dashboard|Open your Papertide dashboard>");

        let widened = Digest {
            widened: Some(Widened { days: 30, new_this_week: 0 }),
            ..digest(vec![entry("A", 0.5, Source::Pubmed), entry("B", 0.5, Source::Pubmed)])
        };
        assert_eq!(webhook_message(&widened, DASHBOARD)["blocks"][0]["text"]["text"], "CRISPR base editing — 2 papers from the last 30 days");
        let one = digest(vec![entry("A", 0.5, Source::Pubmed)]);
        assert!(webhook_message(&one, DASHBOARD)["text"].as_str().expect("text").starts_with("**CRISPR base editing** — 1 new paper\n"));
    }

    #[test]
    fn slack_limits_hold_whatever_the_digest_holds() {
        let huge = "é🧬&<>".repeat(2000);
        let papers: Vec<DigestEntry> = (0..40)
            .map(|index| {
                let mut paper = entry(&format!("{index} {huge}"), 0.5, Source::Pubmed);
                paper.reason = huge.clone();
                paper.journal = Some(huge.clone());
                paper.url = Some(format!("https://example.org/{}", "x".repeat(2000)));
                paper
            })
            .collect();
        let mut big = digest(papers);
        big.search_term = format!("a term {huge}");
        let message = webhook_message(&big, "not a web address");
        let (text, blocks) = texts(&message);
        assert!(blocks.len() <= MAX_BLOCKS, "{} blocks", blocks.len());
        let header = blocks[0]["text"]["text"].as_str().expect("header");
        assert!(header.chars().count() <= MAX_HEADER_CHARS && header.ends_with("— 40 new papers"), "{header}");
        for block in blocks.iter().filter(|block| block["type"] == "section") {
            let section = block["text"]["text"].as_str().expect("text");
            assert!(section.chars().count() <= MAX_SECTION_CHARS, "{}", section.chars().count());
            assert!(!section.contains("example.org"), "a link too long is left out");
        }
        assert_eq!(blocks[blocks.len() - 2]["elements"][0]["text"], "…and 17 more on your dashboard");
        assert_eq!(blocks[blocks.len() - 1]["elements"][0]["text"], "Rate them on your Papertide dashboard", "no link to what is not a web address");
        assert!(text.chars().count() <= MAX_TEXT_CHARS, "{}", text.chars().count());
        assert!(text.contains("\n…and ") && text.ends_with(" more"), "{text}");
    }

    #[test]
    fn texts_are_cut_on_character_boundaries() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("ééééé", 3), "éé…");
        assert_eq!(cut("🧬🧬🧬🧬", 4), "🧬🧬🧬🧬");
        assert_eq!(cut("word word word", 7), "word w…");
        assert_eq!(cut("ab   cd", 4), "ab…", "no space before the ellipsis");
        assert_eq!(cut_escaped("a & <b> c", 100, escape_mrkdwn_char), "a &amp; &lt;b&gt; c");
        assert_eq!(cut_escaped("[x](javascript:y) *b* _i_", 100, escape_markdown_char), "\\[x\\](javascript:y) \\*b\\* \\_i\\_");
        assert_eq!(cut_escaped("ab&cd", 5, escape_mrkdwn_char), "ab…", "never inside an escape");
        assert_eq!(cut_escaped("ab&", 7, escape_mrkdwn_char), "ab&amp;", "what fits is not cut");
        assert_eq!(cut_escaped("é🧬&<>é🧬&<>", 9, escape_mrkdwn_char), "é🧬&amp;…");
    }

    #[test]
    fn a_webhook_url_is_https_public_and_without_credentials() {
        for good in [
            "https://hooks.slack.com/services/T000/B000/XXXXXXXX",
            "  https://mattermost.example.org/hooks/xyz123  ",
            "https://chat.example.org:8443/hooks/abc?x=1",
            "https://8.8.8.8/hook",
            "https://[2606:4700:4700::1111]/hook",
        ] {
            assert!(validate_webhook_url(good, false).is_ok(), "{good}");
        }
        assert_eq!(
            validate_webhook_url(" https://hooks.slack.com/services/T/B/X ", false).map(|url| url.host_str().map(str::to_owned)),
            Ok(Some("hooks.slack.com".into()))
        );
        let cases: [(&str, &str); 31] = [
            ("", MSG_WEBHOOK_URL_EMPTY),
            ("   ", MSG_WEBHOOK_URL_EMPTY),
            ("http://hooks.slack.com/services/T/B/X", MSG_WEBHOOK_URL_NOT_HTTPS),
            ("ftp://hooks.example.org/x", MSG_WEBHOOK_URL_NOT_HTTPS),
            ("javascript:alert(1)", MSG_WEBHOOK_URL_NOT_HTTPS),
            ("hooks.slack.com/services/T/B/X", MSG_WEBHOOK_URL_NOT_HTTPS),
            ("https://", MSG_WEBHOOK_URL_INVALID),
            ("https://exa mple.org/x", MSG_WEBHOOK_URL_INVALID),
            ("https://hooks.slack.com/\nservices", MSG_WEBHOOK_URL_INVALID),
            ("https://user:secret@hooks.slack.com/x", MSG_WEBHOOK_URL_CREDENTIALS),
            ("https://user@hooks.slack.com/x", MSG_WEBHOOK_URL_CREDENTIALS),
            ("https://localhost/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://LOCALHOST./hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://api.localhost/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://printer.local/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://metadata.google.internal/computeMetadata", MSG_WEBHOOK_URL_PRIVATE),
            ("https://intranet/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://127.0.0.1/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://2130706433/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://0x7f.1/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://10.1.2.3/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://172.16.0.1/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://192.168.1.1/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://169.254.169.254/latest/meta-data", MSG_WEBHOOK_URL_PRIVATE),
            ("https://0.0.0.0/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://100.64.0.1/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://[::1]/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://[::]/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://[fd00::1]/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://[fe80::1]/hook", MSG_WEBHOOK_URL_PRIVATE),
            ("https://[::ffff:192.168.0.1]/hook", MSG_WEBHOOK_URL_PRIVATE),
        ];
        for (bad, message) in cases {
            assert_eq!(validate_webhook_url(bad, false).map(|_| ()), Err(message), "{bad:?}");
        }
        let long = format!("https://hooks.example.org/{}", "x".repeat(MAX_WEBHOOK_URL_CHARS));
        assert_eq!(validate_webhook_url(&long, false).map(|_| ()), Err(MSG_WEBHOOK_URL_TOO_LONG));
        for private in ["http://localhost:8065/hooks/abc", "https://192.168.1.10/hooks/abc", "http://mattermost/hooks/abc", "https://[fd00::1]/x"] {
            assert!(validate_webhook_url(private, true).is_ok(), "{private} on a private network");
        }
        assert_eq!(validate_webhook_url("https://user:pw@localhost/x", true).map(|_| ()), Err(MSG_WEBHOOK_URL_CREDENTIALS), "credentials never");
        assert_eq!(validate_webhook_url("ftp://localhost/x", true).map(|_| ()), Err(MSG_WEBHOOK_URL_NOT_HTTPS));
    }

    #[test]
    fn special_purpose_addresses_are_not_public() {
        for private in [
            "0.1.2.3",
            "127.8.8.8",
            "10.0.0.1",
            "172.31.255.255",
            "192.168.0.1",
            "169.254.1.1",
            "100.127.0.1",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(!is_public_ipv4(private.parse().expect("v4")), "{private}");
        }
        for public in ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "192.169.0.1", "52.0.0.1"] {
            assert!(is_public_ipv4(public.parse().expect("v4")), "{public}");
        }
        for private in [
            "::",
            "::1",
            "fc00::1",
            "fdff::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "2001::1",
            "100::1",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:c0a8:0101::1",
        ] {
            assert!(!is_public_ipv6(private.parse().expect("v6")), "{private}");
        }
        for public in ["2606:4700:4700::1111", "2a00:1450:4001::1", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:0808:0808::1"] {
            assert!(is_public_ipv6(public.parse().expect("v6")), "{public}");
        }
    }
}
