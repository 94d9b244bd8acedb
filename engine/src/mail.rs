//! The mails Papertide sends, rendered as HTML and plain text from one layout. Links are built
//! from the public URL the caller passes; nothing here knows how mail is delivered.

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
                    Your first digest arrives within a week.",
            button: "Open your dashboard",
            link: &link,
            outro: "The free plan includes one search term and two free digests from PubMed. \
                    Upgrade any time for more terms, every source and a delivery day of your choice.",
        },
    )
}

struct ActionMail<'a> {
    subject: &'a str,
    heading: &'a str,
    intro: &'a str,
    button: &'a str,
    link: &'a str,
    outro: &'a str,
}

fn render_action_mail(context: &MailContext, to: &str, mail: ActionMail<'_>) -> RenderedMail {
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
        let escaped = (bytes[index] == marker)
            .then(|| text.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
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
    use super::*;

    fn context() -> MailContext {
        MailContext {
            public_url: "https://papers.example.org".into(),
            support_email: "help@example.org".into(),
        }
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
    fn html_is_escaped() {
        assert_eq!(escape_html(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
        let hostile = MailContext { public_url: "https://x.org/\"><script>".into(), ..context() };
        let mail = welcome_mail(&hostile, "ada@example.org");
        assert!(!mail.html.contains("<script>"));
    }
}
