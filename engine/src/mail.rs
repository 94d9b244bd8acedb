//! The mails Papertide sends, rendered as HTML and plain text from one layout. Links are built
//! from the public URL the caller passes; nothing here knows how mail is delivered.

use crate::rating::Verdict;
use crate::window::Widened;

/// What every mail needs to know about the installation it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailContext {
    /// The service's public URL without a trailing slash, e.g. `https://papers.example.org`.
    pub public_url: String,
    /// The address users write to for help.
    pub support_email: String,
}

/// A mail ready to be queued: recipient, subject and both bodies.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RenderedMail {
    pub to: String,
    pub subject: String,
    pub html: String,
    pub text: String,
    /// The one link the mail asks the reader to follow, if any; logged when mail goes to the
    /// outbox so a fresh install can be used without a mail server.
    pub action_url: Option<String>,
    /// One-click unsubscribe address (RFC 8058): sent as `List-Unsubscribe` with
    /// `List-Unsubscribe-Post`.
    #[serde(default)]
    pub list_unsubscribe: Option<String>,
}

/// A paper as a digest mail shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestPaper {
    pub title: String,
    /// The paper's links, best first: (label, address).
    pub links: Vec<(String, String)>,
    pub authors: String,
    /// The journal, or the preprint server.
    pub venue: String,
    /// The sources that reported it, e.g. "PubMed, medRxiv".
    pub sources: String,
    /// 0 to 100.
    pub relevance_percent: u8,
    pub summary: String,
    /// Why it matched, e.g. `Matched "gene editing"; words: gene, edit`.
    pub reason: String,
    pub retracted: bool,
}

/// The addresses of a paper's three rating links ("Relevant", "Not relevant", "More like this"),
/// each a `/rate?token=…` page that asks before it records anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatingLinks {
    pub relevant: String,
    pub not_relevant: String,
    pub more_like_this: String,
}

impl RatingLinks {
    /// Each link with its words, in the order the mail shows them.
    pub fn labelled(&self) -> [(&'static str, &str); 3] {
        [
            (Verdict::Relevant.label(), self.relevant.as_str()),
            (Verdict::NotRelevant.label(), self.not_relevant.as_str()),
            (Verdict::MoreLikeThis.label(), self.more_like_this.as_str()),
        ]
    }
}

/// The subject of a digest mail of `term` with `count` papers. A widened digest (an immediate
/// one that looked back 30 or 90 days) counts its papers as papers of that window and says how
/// many are the week's: it never calls "new this week" a paper that is not.
pub fn digest_subject(term: &str, count: usize, widened: Option<Widened>) -> String {
    let term = one_line(term);
    let papers = |count: usize| if count == 1 { "1 paper".to_owned() } else { format!("{count} papers") };
    match (count, widened) {
        (0, None) => format!("Papertide: no new papers on \"{term}\" this week"),
        (1, None) => format!("Papertide: 1 new paper on \"{term}\""),
        (_, None) => format!("Papertide: {count} new papers on \"{term}\""),
        (0, Some(Widened { days, .. })) => format!("Papertide: no new papers on \"{term}\" in the last {days} days"),
        (_, Some(Widened { days, new_this_week: 0 })) => format!("Papertide: {} on \"{term}\" from the last {days} days", papers(count)),
        (_, Some(Widened { new_this_week, .. })) => format!("Papertide: {} on \"{term}\" ({new_this_week} new this week)", papers(count)),
    }
}

/// What a digest mail says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestMail<'a> {
    pub term: &'a str,
    /// A weekly digest (else the one mailed when the term was added).
    pub weekly: bool,
    /// The expanded query, shown as "searched as …".
    pub searched_as: Option<&'a str>,
    /// When an immediate digest looked past the week for papers: how far, and how many of its
    /// papers are the week's (its subject and first line say so, [`Widened::note`]).
    pub widened: Option<Widened>,
    /// The "AI Research Summary", one line per point.
    pub ai_summary: &'a [String],
    pub papers: &'a [DigestPaper],
    /// When there are no papers: why (no matches, or which source failed).
    pub empty_reason: Option<&'a str>,
    /// The tokenized unsubscribe address.
    pub unsubscribe_url: &'a str,
    /// Each paper's rating links, in the papers' order (a paper without any shows none).
    pub rating_links: &'a [RatingLinks],
    /// The signed link to the digest's citations as RIS (`&format=bibtex`: BibTeX), for a
    /// reference manager; none for a digest without papers.
    pub citations_url: Option<&'a str>,
}

/// The digest of one search term: the AI summary, then each paper with its relevance, summary,
/// why it matched and its rating links; an unsubscribe link in the footer and in the headers.
///
/// Every text from a user or a source is put on one line (control characters become spaces) in
/// both parts and escaped in the HTML one, and only `http(s)` addresses become links.
pub fn digest_mail(context: &MailContext, to: &str, digest: &DigestMail<'_>) -> RenderedMail {
    let count = digest.papers.len();
    let term = one_line(digest.term);
    let searched_as = digest.searched_as.map(one_line);
    let subject = digest_subject(digest.term, count, digest.widened);
    let dashboard = format!("{}/dashboard", context.public_url);
    let heading = if digest.weekly { "Your weekly digest for" } else { "Your digest for" };
    let mut text = format!("{heading} \"{term}\"\n");
    if let Some(expanded) = &searched_as {
        text.push_str(&format!("Searched as: {expanded}\n"));
    }
    let mut html = format!(r#"<h1 style="font-size:20px;margin:0 0 8px">{heading} “{}”</h1>"#, escape_html(&term));
    if let Some(expanded) = &searched_as {
        html.push_str(&format!(r#"<p style="margin:0 0 16px;font-size:13px;color:#475569">Searched as: {}</p>"#, escape_html(expanded)));
    }
    if let Some(note) = digest.widened.filter(|_| count > 0).map(|widened| widened.note()) {
        text.push_str(&format!("\n{note}\n"));
        html.push_str(&format!(r#"<p style="margin:0 0 16px;line-height:1.5;font-weight:600">{}</p>"#, escape_html(&note)));
    }
    if let Some(reason) = digest.empty_reason.filter(|_| count == 0) {
        text.push_str(&format!("\n{reason}\n"));
        html.push_str(&format!(r#"<p style="margin:0 0 16px;line-height:1.5">{}</p>"#, escape_html(reason)));
    }
    if !digest.ai_summary.is_empty() {
        text.push_str("\nAI Research Summary\n");
        html.push_str(
            r#"<h2 style="font-size:16px;margin:16px 0 8px">AI Research Summary</h2><ul style="margin:0 0 16px;padding-left:20px;line-height:1.5">"#,
        );
        for line in digest.ai_summary.iter().map(|line| one_line(line)) {
            text.push_str(&format!("- {line}\n"));
            html.push_str(&format!("<li>{}</li>", escape_html(&line)));
        }
        html.push_str("</ul>");
    }
    for (index, paper) in digest.papers.iter().map(DigestPaper::on_one_line).enumerate() {
        let rating_links: Vec<(&str, &str)> = digest
            .rating_links
            .get(index)
            .map(|links| links.labelled().into_iter().filter(|(_, url)| is_web_address(url)).collect())
            .unwrap_or_default();
        let (paper_text, paper_html) = paper_parts(index + 1, &paper, &rating_links);
        text.push_str(&paper_text);
        html.push_str(&paper_html);
    }
    if let Some(url) = digest.citations_url.filter(|url| count > 0 && is_web_address(url)) {
        text.push_str(&format!("\nCitations for your reference manager: {url} (RIS) · {url}&format=bibtex (BibTeX)\n"));
        html.push_str(&format!(
            r#"<p style="margin:16px 0 0;font-size:13px">Save these papers to Zotero, Mendeley or EndNote: <a href="{ris}" style="color:#1d4ed8">RIS</a> · <a href="{bibtex}" style="color:#1d4ed8">BibTeX</a></p>"#,
            ris = escape_html(url),
            bibtex = escape_html(&format!("{url}&format=bibtex")),
        ));
    }
    text.push_str(&format!(
        "\nManage your topics: {dashboard}\nStop weekly digests: {unsubscribe}\n\n-- \nPapertide · {public_url}\nHelp: {support}\n",
        unsubscribe = digest.unsubscribe_url,
        public_url = context.public_url,
        support = context.support_email,
    ));
    html.push_str(&format!(
        r#"<p style="margin:16px 0 0;font-size:12px;color:#64748b"><a href="{dashboard}" style="color:#64748b">Manage your topics</a> · <a href="{unsubscribe}" style="color:#64748b">Unsubscribe from weekly digests</a></p>"#,
        dashboard = escape_html(&dashboard),
        unsubscribe = escape_html(digest.unsubscribe_url),
    ));
    RenderedMail {
        to: to.to_owned(),
        html: html_layout(context, &subject, &html),
        subject,
        text,
        action_url: Some(dashboard),
        list_unsubscribe: Some(digest.unsubscribe_url.to_owned()),
    }
}

/// One paper of a digest mail, as text and as HTML: its title (linked), authors, venue, sources
/// and relevance, its links, summary and reason, and its rating links.
fn paper_parts(number: usize, paper: &DigestPaper, rating_links: &[(&str, &str)]) -> (String, String) {
    let mut text = String::new();
    let mut html = String::new();
    let flag = if paper.retracted { " [RETRACTED]" } else { "" };
    text.push_str(&format!(
        "\n{number}. {title}{flag}\n   {authors}\n   {venue} · {sources} · {percent}% relevant\n",
        title = paper.title,
        authors = paper.authors,
        venue = paper.venue,
        sources = paper.sources,
        percent = paper.relevance_percent,
    ));
    for (label, url) in &paper.links {
        text.push_str(&format!("   {label}: {url}\n"));
    }
    text.push_str(&format!("   Summary: {}\n   Why: {}\n", paper.summary, paper.reason));
    for (label, url) in rating_links {
        text.push_str(&format!("   {label}: {url}\n"));
    }
    let rating_html = if rating_links.is_empty() {
        String::new()
    } else {
        let links: Vec<String> =
            rating_links.iter().map(|(label, url)| format!(r#"<a href="{}" style="color:#1d4ed8">{label}</a>"#, escape_html(url))).collect();
        format!(r#"<p style="margin:6px 0 0;font-size:12px;color:#64748b">Teach this topic: {}</p>"#, links.join(" · "))
    };

    let title = match paper.links.first() {
        Some((_, url)) => {
            format!(r#"<a href="{}" style="color:#1d4ed8;text-decoration:none">{}</a>"#, escape_html(url), escape_html(&paper.title))
        }
        None => escape_html(&paper.title),
    };
    let links: Vec<String> = paper
        .links
        .iter()
        .map(|(label, url)| format!(r#"<a href="{}" style="color:#1d4ed8">{}</a>"#, escape_html(url), escape_html(label)))
        .collect();
    let retracted = if paper.retracted { r#" <strong style="color:#b91c1c">Retracted</strong>"# } else { "" };
    html.push_str(&format!(
        r#"<div style="border-top:1px solid #e2e8f0;padding:12px 0"><p style="margin:0 0 4px;font-weight:600">{title}{retracted}</p><p style="margin:0 0 4px;font-size:13px;color:#475569">{authors}<br>{venue} · {sources} · <strong>{percent}% relevant</strong></p><p style="margin:0 0 4px;line-height:1.5">{summary}</p><p style="margin:0;font-size:12px;color:#64748b">Why: {reason} · {links}</p>{rating_html}</div>"#,
        authors = escape_html(&paper.authors),
        venue = escape_html(&paper.venue),
        sources = escape_html(&paper.sources),
        percent = paper.relevance_percent,
        summary = escape_html(&paper.summary),
        reason = escape_html(&paper.reason),
        links = links.join(" · "),
    ));
    (text, html)
}

impl DigestPaper {
    /// The paper as a mail may show it: each text on one line, and only its `http(s)` links.
    fn on_one_line(&self) -> DigestPaper {
        DigestPaper {
            title: one_line(&self.title),
            links: self.links.iter().filter(|(_, url)| is_web_address(url)).map(|(label, url)| (one_line(label), url.clone())).collect(),
            authors: one_line(&self.authors),
            venue: one_line(&self.venue),
            sources: one_line(&self.sources),
            summary: one_line(&self.summary),
            reason: one_line(&self.reason),
            ..self.clone()
        }
    }
}

/// Whether `url` is an `http(s)` address with nothing that could end it early (no whitespace or
/// control character): the only kind a mail links to (never `javascript:` or `data:`).
pub fn is_web_address(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://"))
        && !url.chars().any(|character| character.is_whitespace() || character.is_control())
}

/// `text` on one line: control characters (CR, LF, tab, NUL, escape…) and the Unicode line and
/// paragraph separators become spaces, so no text can add a line to a mail's header or fake
/// one in its plain part.
pub fn one_line(text: &str) -> String {
    text.chars().map(|character| if character.is_control() || matches!(character, '\u{2028}' | '\u{2029}') { ' ' } else { character }).collect()
}

/// Asks a new user to confirm their address; the link is valid for 48 hours.
pub fn verification_mail(context: &MailContext, to: &str, token: &str) -> RenderedMail {
    let link = format!("{}/verify-email?token={}", context.public_url, token);
    render_action_mail(
        context,
        to,
        ActionMail {
            subject: "Verify your email for Papertide",
            heading: "Confirm your email address",
            intro: "Thanks for signing up for Papertide. Confirm your address to start receiving \
                    weekly digests of the newest papers on your research topics.",
            button: "Verify email",
            link: &link,
            outro: "This link expires in 48 hours. If you did not create an account, ignore this \
                    mail and no account will be activated.",
        },
    )
}

/// Lets a user choose a new password; the link is valid for one hour and works once.
pub fn password_reset_mail(context: &MailContext, to: &str, token: &str) -> RenderedMail {
    let link = format!("{}/reset-password?token={}", context.public_url, token);
    render_action_mail(
        context,
        to,
        ActionMail {
            subject: "Reset your Papertide password",
            heading: "Reset your password",
            intro: "Someone asked to reset the password of your Papertide account. Choose a new \
                    password with the link below.",
            button: "Choose a new password",
            link: &link,
            outro: "This link expires in 1 hour and works once. Setting a new password signs you \
                    out everywhere. If you did not ask for this, ignore this mail: your password \
                    stays as it is.",
        },
    )
}

/// Tells the owner of an address that someone tried to sign up with it again. The sign-up form
/// answers an existing address exactly as a new one (so it cannot tell who has an account); this
/// mail is how the real owner learns what happened.
pub fn account_exists_mail(context: &MailContext, to: &str) -> RenderedMail {
    let link = format!("{}/login", context.public_url);
    render_action_mail(
        context,
        to,
        ActionMail {
            subject: "You already have a Papertide account",
            heading: "You already have an account",
            intro: "Someone, maybe you, tried to create a Papertide account with this address. It \
                    already has one, so nothing was created and nothing changed.",
            button: "Sign in",
            link: &link,
            outro: "Forgot your password? Choose \"Forgot password\" on the sign-in page. If you \
                    did not try to sign up, ignore this mail: your account is as it was.",
        },
    )
}

/// Greets a user whose address is confirmed and says what happens next.
pub fn welcome_mail(context: &MailContext, to: &str) -> RenderedMail {
    let link = format!("{}/dashboard", context.public_url);
    render_action_mail(
        context,
        to,
        ActionMail {
            subject: "Welcome to Papertide",
            heading: "Welcome to Papertide",
            intro: "Your account is ready. Add a research topic on your dashboard: every week \
                    Papertide searches PubMed, arXiv, bioRxiv and medRxiv for new papers on it, \
                    ranks them for relevance and impact, summarizes them and mails you a digest. \
                    Your first digest is emailed as soon as you add a search term; after that, a new one \
                    arrives every week on your delivery day.",
            button: "Open your dashboard",
            link: &link,
            outro: "The free plan includes one search term and two free digests from PubMed. \
                    Upgrade any time for more terms, every source and a delivery day of your choice.",
        },
    )
}

/// The subject of [`account_deleted_mail`].
pub const ACCOUNT_DELETED_SUBJECT: &str = "Your Papertide account has been deleted";

/// Confirms that an account and everything kept of it were deleted: plain words, no link (there
/// is no account left to open).
pub fn account_deleted_mail(context: &MailContext, to: &str) -> RenderedMail {
    let intro = "Your Papertide account and everything kept of it (your search terms, digests, \
                 ratings, preferences and plan history) have been deleted, and any paid \
                 subscription was canceled. No more mail will come to this address from \
                 Papertide unless you sign up again.";
    let outro = "If you did not ask for this, write to the service's support address.";
    let text = format!(
        "{subject}\n\n{intro}\n\n{outro}\n\n-- \nPapertide\nHelp: {support}\n",
        subject = ACCOUNT_DELETED_SUBJECT,
        intro = collapse_spaces(intro),
        outro = collapse_spaces(outro),
        support = context.support_email,
    );
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{subject}</title></head>\n<body style=\"font-family:sans-serif;color:#0f172a\">\n<h1 style=\"font-size:20px\">{subject}</h1>\n<p>{intro}</p>\n<p>{outro}</p>\n<p style=\"font-size:12px;color:#64748b\">Papertide · Help: {support}</p>\n</body></html>\n",
        subject = escape_html(ACCOUNT_DELETED_SUBJECT),
        intro = escape_html(&collapse_spaces(intro)),
        outro = escape_html(&collapse_spaces(outro)),
        support = escape_html(&context.support_email),
    );
    RenderedMail { to: to.to_owned(), subject: ACCOUNT_DELETED_SUBJECT.to_owned(), html, text, action_url: None, list_unsubscribe: None }
}

/// Tells a free user their two free digests are used and invites an upgrade.
pub fn upgrade_invite_mail(context: &MailContext, to: &str) -> RenderedMail {
    let link = format!("{}/subscribe?tier=pro", context.public_url);
    render_action_mail(
        context,
        to,
        ActionMail {
            subject: "Your free Papertide digests are used up",
            heading: "Keep your weekly digest coming",
            intro: "You have received the two digests of the free plan. Upgrade to Pro to keep \
                    getting the newest papers on your topics every week, from PubMed, arXiv, \
                    bioRxiv and medRxiv, on the day you choose.",
            button: "See the plans",
            link: &link,
            outro: "Your topics stay saved on your dashboard; nothing more is sent until you upgrade.",
        },
    )
}

pub(crate) struct ActionMail<'a> {
    pub subject: &'a str,
    pub heading: &'a str,
    pub intro: &'a str,
    pub button: &'a str,
    pub link: &'a str,
    pub outro: &'a str,
}

pub(crate) fn render_action_mail(context: &MailContext, to: &str, mail: ActionMail<'_>) -> RenderedMail {
    let text = format!(
        "{heading}\n\n{intro}\n\n{button}: {link}\n\n{outro}\n\n-- \nPapertide · {public_url}\nHelp: {support}\n",
        heading = mail.heading,
        intro = collapse_spaces(mail.intro),
        button = mail.button,
        link = mail.link,
        outro = collapse_spaces(mail.outro),
        public_url = context.public_url,
        support = context.support_email,
    );
    let body = format!(
        r#"<h1 style="font-size:20px;margin:0 0 16px">{heading}</h1>
<p style="margin:0 0 24px;line-height:1.5">{intro}</p>
<p style="margin:0 0 24px"><a href="{link}" style="background:#1d4ed8;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">{button}</a></p>
<p style="margin:0 0 8px;font-size:13px;color:#475569">If the button does not work, open this address:<br><a href="{link}" style="color:#1d4ed8;word-break:break-all">{link}</a></p>
<p style="margin:16px 0 0;font-size:13px;color:#475569;line-height:1.5">{outro}</p>"#,
        heading = escape_html(mail.heading),
        intro = escape_html(&collapse_spaces(mail.intro)),
        link = escape_html(mail.link),
        button = escape_html(mail.button),
        outro = escape_html(&collapse_spaces(mail.outro)),
    );
    RenderedMail {
        to: to.to_owned(),
        subject: mail.subject.to_owned(),
        html: html_layout(context, mail.subject, &body),
        text,
        action_url: Some(mail.link.to_owned()),
        list_unsubscribe: None,
    }
}

/// The frame every HTML mail shares: a centered card with the brand and a support footer.
fn html_layout(context: &MailContext, title: &str, body: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>{title}</title></head>
<body style="margin:0;padding:24px;background:#f1f5f9;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#0f172a">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0"><tr><td align="center">
<table role="presentation" width="100%" style="max-width:560px;background:#ffffff;border-radius:8px;padding:32px" cellspacing="0" cellpadding="0"><tr><td>
<p style="margin:0 0 24px;font-weight:600;color:#1d4ed8">Papertide</p>
{body}
</td></tr></table>
<p style="font-size:12px;color:#64748b;margin:16px 0 0">Papertide · <a href="{public_url}" style="color:#64748b">{public_url}</a> · Help: <a href="mailto:{support}" style="color:#64748b">{support}</a></p>
</td></tr></table>
</body></html>
"#,
        title = escape_html(title),
        body = body,
        public_url = escape_html(&context.public_url),
        support = escape_html(&context.support_email),
    )
}

/// Escapes text for HTML element content and double-quoted attributes.
pub fn escape_html(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// Decodes `<marker>XX` hex escapes: `%` for URL parts such as SMTP credentials, `=` for
/// quoted-printable mail bodies (whose soft line breaks the caller removes first). A marker not
/// followed by two hex digits stays as it is.
pub fn decode_hex_escapes(text: &str, marker: u8) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = (bytes[index] == marker).then(|| text.get(index + 1..index + 3)).flatten().and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                index += 3;
            }
            None => {
                decoded.push(bytes[index]);
                index += 1;
            }
        }
    }
    decoded
}

/// Source strings wrap with runs of spaces; mail reads better with single spaces.
fn collapse_spaces(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {

    fn digest_paper(title: &str, retracted: bool) -> DigestPaper {
        DigestPaper {
            title: title.into(),
            links: vec![("DOI".into(), "https://doi.org/10.1038/x".into()), ("PubMed".into(), "https://pubmed.ncbi.nlm.nih.gov/1/".into())],
            authors: "Ada Lovelace, Alan Turing".into(),
            venue: "Nature Communications".into(),
            sources: "PubMed, medRxiv".into(),
            relevance_percent: 87,
            summary: "Immunity lasts <longer> than expected.".into(),
            reason: "Matched \"sars cov\"; words: immun".into(),
            retracted,
        }
    }

    #[test]
    fn a_paper_link_that_is_not_a_web_address_became_a_live_link() {
        let context = MailContext { public_url: "https://papers.example.org".into(), support_email: "help@papers.example.org".into() };
        let mut paper = digest_paper("Links", false);
        paper.links = vec![
            ("Code".into(), "javascript:alert(1)".into()),
            ("Data".into(), " JAVASCRIPT:alert(2)".into()),
            ("Page".into(), "https://example.org/a b".into()),
            ("DOI".into(), "HTTPS://doi.org/10.1/x".into()),
        ];
        let digest = DigestMail {
            term: "links",
            weekly: true,
            searched_as: None,
            widened: None,
            ai_summary: &[],
            papers: std::slice::from_ref(&paper),
            empty_reason: None,
            unsubscribe_url: "https://papers.example.org/api/unsubscribe/tok",
            rating_links: &[],
            citations_url: None,
        };
        let mail = digest_mail(&context, "ada@example.org", &digest);
        assert!(!mail.html.to_lowercase().contains("javascript:") && !mail.text.to_lowercase().contains("javascript:"));
        assert!(!mail.html.contains("example.org/a b") && !mail.text.contains("Page:"));
        assert!(mail.html.contains(r#"<a href="HTTPS://doi.org/10.1/x""#) && mail.text.contains("DOI: HTTPS://doi.org/10.1/x"));
    }

    #[test]
    fn source_text_with_line_breaks_stays_on_its_line() {
        let context = MailContext { public_url: "https://papers.example.org".into(), support_email: "help@papers.example.org".into() };
        let mut paper = digest_paper("Title\r\nBcc: victim@example.org", false);
        paper.authors = "Ada\u{0}Lovelace\u{2028}X-Injected: yes".into();
        let digest = DigestMail {
            term: "gene\r\nBcc: all",
            weekly: false,
            searched_as: Some("gene\nediting"),
            widened: None,
            ai_summary: &["point\rone".to_owned()],
            papers: std::slice::from_ref(&paper),
            empty_reason: None,
            unsubscribe_url: "https://papers.example.org/api/unsubscribe/tok",
            rating_links: &[],
            citations_url: None,
        };
        let mail = digest_mail(&context, "ada@example.org", &digest);
        assert_eq!(mail.subject, "Papertide: 1 new paper on \"gene  Bcc: all\"");
        for part in [&mail.text, &mail.html] {
            assert!(!part.chars().any(|character| character.is_control() && character != '\n' || character == '\u{2028}'));
            assert!(part.lines().all(|line| !line.trim_start().starts_with("Bcc:") && !line.trim_start().starts_with("X-Injected:")));
        }
        assert!(mail.text.contains("1. Title  Bcc: victim@example.org\n   Ada Lovelace X-Injected: yes\n"));
    }

    #[test]
    fn each_paper_has_its_three_rating_links_in_both_parts() {
        let context = MailContext { public_url: "https://papers.example.org".into(), support_email: "help@papers.example.org".into() };
        let papers = vec![digest_paper("First", false), digest_paper("Second", false)];
        let links = |paper: &str| RatingLinks {
            relevant: format!("https://papers.example.org/rate?token={paper}r"),
            not_relevant: format!("https://papers.example.org/rate?token={paper}n"),
            more_like_this: format!("https://papers.example.org/rate?token={paper}m"),
        };
        let rating_links = [links("a"), RatingLinks { relevant: "javascript:alert(1)".into(), ..links("b") }];
        let digest = DigestMail {
            term: "topic",
            weekly: true,
            searched_as: None,
            widened: None,
            ai_summary: &[],
            papers: &papers,
            empty_reason: None,
            unsubscribe_url: "https://papers.example.org/api/unsubscribe/tok",
            rating_links: &rating_links,
            citations_url: None,
        };
        let mail = digest_mail(&context, "ada@example.org", &digest);
        assert!(mail.text.contains(
            "   Relevant: https://papers.example.org/rate?token=ar\n   Not relevant: https://papers.example.org/rate?token=an\n   More like this: https://papers.example.org/rate?token=am\n"
        ));
        assert!(mail.html.contains(r#"<a href="https://papers.example.org/rate?token=an" style="color:#1d4ed8">Not relevant</a>"#));
        assert!(mail.html.contains(r#"<a href="https://papers.example.org/rate?token=bm" style="color:#1d4ed8">More like this</a>"#));
        assert!(!mail.html.contains("javascript:") && !mail.text.contains("javascript:"), "only web addresses become links");
        let first = mail.text.find("2. Second").expect("the second paper");
        assert!(mail.text[..first].contains("token=am") && !mail.text[..first].contains("token=bn"), "each paper its own links");
        let without = digest_mail(&context, "ada@example.org", &DigestMail { rating_links: &[], ..digest });
        assert!(!without.text.contains("Relevant:") && !without.html.contains("Teach this topic"));
    }

    #[test]
    fn a_digest_mail_shows_each_paper_and_offers_one_click_unsubscribe() {
        let context = MailContext { public_url: "https://papers.example.org".into(), support_email: "help@papers.example.org".into() };
        let papers = vec![digest_paper("Evolution of immunity to SARS-CoV-2", false), digest_paper("A retracted claim", true)];
        let summary = vec!["2 new papers matched \"SARS-CoV-2 immunity\" this week.".to_owned()];
        let unsubscribe = "https://papers.example.org/api/unsubscribe/tok123";
        let digest = DigestMail {
            term: "SARS-CoV-2 immunity",
            weekly: true,
            searched_as: Some("sar, cov, immun, antibodi"),
            widened: None,
            ai_summary: &summary,
            papers: &papers,
            empty_reason: None,
            unsubscribe_url: unsubscribe,
            rating_links: &[],
            citations_url: None,
        };
        let mail = digest_mail(&context, "ada@example.org", &digest);
        assert_eq!(mail.subject, "Papertide: 2 new papers on \"SARS-CoV-2 immunity\"");
        assert_eq!(mail.list_unsubscribe.as_deref(), Some(unsubscribe));
        assert!(mail.text.contains(
            "1. Evolution of immunity to SARS-CoV-2\n   Ada Lovelace, Alan Turing\n   Nature Communications · PubMed, medRxiv · 87% relevant"
        ));
        assert!(mail.text.contains("2. A retracted claim [RETRACTED]"));
        assert!(mail.text.contains("Searched as: sar, cov, immun, antibodi") && mail.text.contains("AI Research Summary\n- 2 new papers"));
        assert!(mail.text.contains(&format!("Stop weekly digests: {unsubscribe}")));
        assert!(mail.html.contains("Immunity lasts &lt;longer&gt; than expected.") && !mail.html.contains("<longer>"));
        assert!(mail.html.contains(r#"<a href="https://doi.org/10.1038/x" style="color:#1d4ed8;text-decoration:none">Evolution of immunity"#));
        assert!(mail.html.contains("Retracted</strong>") && mail.html.contains("87% relevant"));

        let empty = DigestMail { papers: &[], ai_summary: &[], empty_reason: Some("No new papers matched this week."), ..digest };
        let quiet = digest_mail(&context, "ada@example.org", &empty);
        assert_eq!(quiet.subject, "Papertide: no new papers on \"SARS-CoV-2 immunity\" this week");
        assert!(quiet.text.contains("No new papers matched this week.") && quiet.html.contains("No new papers matched this week."));
        assert!(mail.text.starts_with("Your weekly digest for \"SARS-CoV-2 immunity\""));
        let immediate = digest_mail(&context, "ada@example.org", &DigestMail { weekly: false, ..digest });
        assert!(immediate.text.starts_with("Your digest for \"SARS-CoV-2 immunity\"") && !immediate.text.contains("weekly digest for"));
        assert!(immediate.html.contains("Your digest for “SARS-CoV-2 immunity”"));
    }

    #[test]
    fn a_widened_digest_never_calls_papers_of_the_month_new_this_week() {
        let week = |count| digest_subject("gut flora", count, None);
        assert_eq!(
            (week(0), week(1), week(3)),
            (
                "Papertide: no new papers on \"gut flora\" this week".to_owned(),
                "Papertide: 1 new paper on \"gut flora\"".to_owned(),
                "Papertide: 3 new papers on \"gut flora\"".to_owned(),
            )
        );
        let widened = |count, days, new_this_week| digest_subject("gut flora", count, Some(Widened { days, new_this_week }));
        assert_eq!(widened(3, 90, 2), "Papertide: 3 papers on \"gut flora\" (2 new this week)");
        assert_eq!(widened(3, 30, 1), "Papertide: 3 papers on \"gut flora\" (1 new this week)");
        assert_eq!(widened(4, 30, 0), "Papertide: 4 papers on \"gut flora\" from the last 30 days");
        assert_eq!(widened(1, 90, 0), "Papertide: 1 paper on \"gut flora\" from the last 90 days");
        assert_eq!(widened(0, 90, 0), "Papertide: no new papers on \"gut flora\" in the last 90 days");
    }

    #[test]
    fn a_widened_digest_mail_counts_alike_in_its_subject_note_and_summary() {
        let context = MailContext { public_url: "https://papers.example.org".into(), support_email: "help@papers.example.org".into() };
        let papers = vec![digest_paper("One", false), digest_paper("Two", false), digest_paper("Three", false)];
        let summary = vec!["3 papers matched \"gut flora\" in the last 90 days.".to_owned()];
        let digest = DigestMail {
            term: "gut flora",
            weekly: false,
            searched_as: None,
            widened: Some(Widened { days: 90, new_this_week: 2 }),
            ai_summary: &summary,
            papers: &papers,
            empty_reason: None,
            unsubscribe_url: "https://papers.example.org/api/unsubscribe/tok",
            rating_links: &[],
            citations_url: None,
        };
        let mail = digest_mail(&context, "ada@example.org", &digest);
        assert_eq!(mail.subject, "Papertide: 3 papers on \"gut flora\" (2 new this week)");
        let note = "Only 2 new papers this week; with them, the most relevant from the last 90 days.";
        assert!(mail.text.contains(note) && mail.html.contains(note), "{}", mail.text);
        assert!(!mail.text.contains("3 new papers") && !mail.html.contains("3 new papers"), "{}", mail.text);
    }

    use super::*;

    fn context() -> MailContext {
        MailContext { public_url: "https://papers.example.org".into(), support_email: "help@example.org".into() }
    }

    #[test]
    fn verification_mail_links_to_the_public_url_in_both_bodies() {
        let mail = verification_mail(&context(), "ada@example.org", "tok_123");
        let link = "https://papers.example.org/verify-email?token=tok_123";
        assert_eq!(mail.action_url.as_deref(), Some(link));
        assert!(mail.text.contains(link));
        assert!(mail.html.contains(link));
        assert!(mail.text.contains("48 hours"));
        assert_eq!(mail.to, "ada@example.org");
    }

    #[test]
    fn reset_mail_says_it_expires_in_an_hour() {
        let mail = password_reset_mail(&context(), "ada@example.org", "abc");
        assert!(mail.text.contains("https://papers.example.org/reset-password?token=abc"));
        assert!(mail.text.contains("1 hour"));
        assert!(!mail.text.contains("  "), "source indentation must not leak into mail");
    }

    #[test]
    fn hex_escapes_decode() {
        assert_eq!(decode_hex_escapes("p%40ss%2Fw%3Ard", b'%'), b"p@ss/w:rd");
        assert_eq!(decode_hex_escapes("a=3Db=C2=B7", b'='), "a=b·".as_bytes());
        assert_eq!(decode_hex_escapes("100%", b'%'), b"100%");
        assert_eq!(decode_hex_escapes("=ZZ", b'='), b"=ZZ");
    }

    #[test]
    fn the_welcome_mail_tells_when_digests_come_as_the_pages_do() {
        // The same words as the landing page and the dashboard: at once for a new term, then weekly.
        let mail = welcome_mail(&context(), "ada@example.org");
        let text = mail.text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            text.contains(
                "Your first digest is emailed as soon as you add a search term; after that, a new one arrives every week on your delivery day."
            ),
            "{text}"
        );
        assert!(!text.contains("within a week"), "{text}");
    }

    #[test]
    fn html_is_escaped() {
        assert_eq!(escape_html(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
        let hostile = MailContext { public_url: "https://x.org/\"><script>".into(), ..context() };
        let mail = welcome_mail(&hostile, "ada@example.org");
        assert!(!mail.html.contains("<script>"));
    }

    #[test]
    fn the_deletion_confirmation_has_no_link() {
        let context = MailContext { public_url: "https://papers.example.org".into(), support_email: "help@papers.example.org".into() };
        let mail = account_deleted_mail(&context, "ada@example.org");
        assert_eq!(mail.subject, "Your Papertide account has been deleted");
        assert_eq!(mail.action_url, None);
        for body in [&mail.text, &mail.html] {
            assert!(!body.contains("http"), "no link: {body}");
            assert!(!body.contains("<a "), "no link: {body}");
            assert!(body.contains("deleted"));
        }
    }
}
