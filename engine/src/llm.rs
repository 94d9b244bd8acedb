//! The three tasks Papertide may hand to an OpenAI-compatible chat-completions model, as plain
//! request builders and answer parsers: query expansion, a paper's summary, and a digest's
//! "AI Research Summary". The HTTP exchange lives in `actors`; this module decides what is asked
//! and what of the answer is kept.
//!
//! A model's answer is untrusted text. Every parser keeps only what fits the shape asked for
//! (short phrases, plain sentences, a few lines) and returns an [`AnswerError`] when nothing
//! usable is left, so that the caller falls back to the local expansion and extractive summaries.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::paper::{collapse_whitespace, Paper};

/// Sampling temperature of every request: low, for factual, repeatable answers.
pub const TEMPERATURE: f32 = 0.2;
/// The most expansion phrases kept from one answer.
pub const MAX_EXPANSIONS: usize = 8;
/// The longest expansion phrase kept, in characters; longer ones are sentences, not phrases.
pub const MAX_EXPANSION_CHARS: usize = 60;
/// The longest paper summary kept, in characters (cut at a word).
pub const MAX_PAPER_SUMMARY_CHARS: usize = 400;
/// The most lines of a digest summary kept.
pub const MAX_DIGEST_LINES: usize = 5;
/// The longest digest summary line kept, in characters (cut at a word).
pub const MAX_DIGEST_LINE_CHARS: usize = 300;
/// The longest search term put in a prompt; search terms are short, and this bounds the prompt.
const MAX_TERM_CHARS: usize = 200;
/// The longest title put in a prompt.
const MAX_TITLE_CHARS: usize = 300;
/// The longest abstract put in a paper-summary prompt.
const MAX_ABSTRACT_CHARS: usize = 4_000;
/// The most papers described in a digest-summary prompt.
const MAX_DIGEST_PAPERS: usize = 10;
/// The longest abstract excerpt per paper in a digest-summary prompt, so that ten papers stay
/// well inside any model's context.
const MAX_DIGEST_ABSTRACT_CHARS: usize = 600;

/// Who says a message in a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

/// One message of a chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> ChatMessage {
        ChatMessage { role: Role::System, content: content.into() }
    }

    pub fn user(content: impl Into<String>) -> ChatMessage {
        ChatMessage { role: Role::User, content: content.into() }
    }
}

/// The body POSTed to `{base}/chat/completions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<ChatMessage>,
    pub temperature: f32,
}

impl ChatRequest {
    /// A request of a system instruction and one user message, at [`TEMPERATURE`].
    pub fn new(model: &str, system: &str, user: String) -> ChatRequest {
        ChatRequest { model: model.to_owned(), messages: vec![ChatMessage::system(system), ChatMessage::user(user)], temperature: TEMPERATURE }
    }
}

/// The parts of a chat-completions response Papertide reads; everything else is ignored.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ChatResponse {
    #[serde(default)]
    pub choices: Vec<ChatChoice>,
    /// Some servers answer HTTP 200 with an error object instead of choices.
    #[serde(default)]
    pub error: Option<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ChatChoice {
    #[serde(default)]
    pub message: Option<ChatChoiceMessage>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ChatChoiceMessage {
    #[serde(default)]
    pub content: Option<String>,
}

/// Why an answer could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// The body is not a chat-completions response.
    #[error("not a chat-completions response: {0}")]
    NotChatCompletion(String),
    /// The server reported an error in the body.
    #[error("the server reported an error: {0}")]
    Reported(String),
    /// No choice, or a choice without text.
    #[error("the answer has no content")]
    Empty,
    /// The model answered, but not in the shape asked for.
    #[error("the answer is unusable: {0}")]
    Unusable(String),
}

/// The text of the first choice of a chat-completions `body`. A body with an `error` object, no
/// choices, or blank content is an error even when the HTTP status said success.
pub fn parse_chat_response(body: &str) -> Result<String, AnswerError> {
    let response: ChatResponse =
        serde_json::from_str(body).map_err(|error| AnswerError::NotChatCompletion(format!("{error} in {}", excerpt(body))))?;
    if let Some(error) = response.error.as_ref().filter(|error| !error.is_null()) {
        return Err(AnswerError::Reported(error_text(error)));
    }
    let content = response.choices.into_iter().next().and_then(|choice| choice.message).and_then(|message| message.content);
    content.filter(|content| !content.trim().is_empty()).ok_or(AnswerError::Empty)
}

/// The server's own explanation in an error body (`{"error": {"message": ...}}` or
/// `{"error": "..."}`), for the error message of a failed request.
pub fn reported_error(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    value.get("error").filter(|error| !error.is_null()).map(error_text)
}

fn error_text(error: &Value) -> String {
    let text = match error {
        Value::String(text) => text.clone(),
        Value::Object(fields) => fields.get("message").and_then(Value::as_str).map_or_else(|| error.to_string(), str::to_owned),
        other => other.to_string(),
    };
    excerpt(&text)
}

/// The first 200 characters of `text` on one line, for error messages.
fn excerpt(text: &str) -> String {
    cut_at_word(&collapse_whitespace(text), 200)
}

const EXPANSION_INSTRUCTIONS: &str = "You help search the research literature. Given a search term, list up to 8 related search \
phrases that would find papers on the same topic: synonyms, the long form of acronyms (and the acronym of long forms), and closely \
related technical terms. Each phrase is at most a few words. Answer with a JSON array of strings only, for example \
[\"phrase one\", \"phrase two\"], without any other text.";

/// Asks for search phrases related to `term`.
pub fn expansion_request(model: &str, term: &str) -> ChatRequest {
    ChatRequest::new(model, EXPANSION_INSTRUCTIONS, format!("Search term: {}", cut_at_word(&collapse_whitespace(term), MAX_TERM_CHARS)))
}

/// The phrases of an expansion answer, sanitized: the JSON array is read alone, inside a
/// Markdown code fence, or as the first list of strings in an object (models wrap it as
/// `{"phrases": [...]}` despite being told not to). Phrases are trimmed and whitespace-collapsed;
/// empty ones, ones with control characters, ones over [`MAX_EXPANSION_CHARS`], repeats and the
/// term itself (ignoring case) are dropped, and at most [`MAX_EXPANSIONS`] kept. No usable phrase
/// at all is an error, so that the caller uses the local expansion instead.
pub fn parse_expansion(term: &str, content: &str) -> Result<Vec<String>, AnswerError> {
    let value = find_json(content).ok_or_else(|| AnswerError::Unusable(format!("no JSON list in {}", excerpt(content))))?;
    let list = string_list(&value).ok_or_else(|| AnswerError::Unusable(format!("no list of phrases in {}", excerpt(content))))?;
    let own = collapse_whitespace(term).to_lowercase();
    let mut phrases: Vec<String> = Vec::new();
    for raw in list {
        let phrase = collapse_whitespace(raw.trim());
        let usable = !phrase.is_empty()
            && !raw.trim().chars().any(char::is_control)
            && phrase.chars().count() <= MAX_EXPANSION_CHARS
            && phrase.to_lowercase() != own;
        if usable && !phrases.iter().any(|kept| kept.to_lowercase() == phrase.to_lowercase()) {
            phrases.push(phrase);
        }
    }
    phrases.truncate(MAX_EXPANSIONS);
    if phrases.is_empty() {
        return Err(AnswerError::Unusable("no usable phrase in the answer".into()));
    }
    Ok(phrases)
}

/// The JSON value in `content`: the whole text, the inside of its first code fence, or the
/// outermost bracketed span (for an array or object with prose around it).
fn find_json(content: &str) -> Option<Value> {
    let fenced = strip_fence(content);
    let candidates = [Some(fenced), span(fenced, '[', ']'), span(fenced, '{', '}')];
    candidates
        .into_iter()
        .flatten()
        .find_map(|text| serde_json::from_str::<Value>(text.trim()).ok())
        .filter(|value| value.is_array() || value.is_object())
}

/// The inside of the first Markdown code fence (```json ... ```), or `content` when there is none.
fn strip_fence(content: &str) -> &str {
    let Some(start) = content.find("```") else {
        return content;
    };
    let after = &content[start + 3..];
    let body = after.find('\n').map_or(after, |newline| &after[newline + 1..]);
    body.find("```").map_or(body, |end| &body[..end])
}

/// From the first `open` to the last `close`, inclusive.
fn span(text: &str, open: char, close: char) -> Option<&str> {
    let start = text.find(open)?;
    let end = text.rfind(close)?;
    (end > start).then(|| &text[start..=end])
}

/// The strings of an array of strings, or of the first such array among an object's fields.
/// An array holding anything but strings is not a list of phrases.
fn string_list(value: &Value) -> Option<Vec<&str>> {
    match value {
        Value::Array(items) => items.iter().map(Value::as_str).collect(),
        Value::Object(fields) => fields.values().filter(|field| field.is_array()).find_map(string_list),
        _ => None,
    }
}

const PAPER_SUMMARY_INSTRUCTIONS: &str = "You summarize research papers for busy researchers. Given a paper's title and abstract, \
write a plain-text summary of one or two sentences (at most 60 words) saying what was done and the main finding. No Markdown, no \
lists, no preamble.";

/// Asks for a one- or two-sentence summary of `paper`.
pub fn paper_summary_request(model: &str, paper: &Paper) -> ChatRequest {
    let title = cut_at_word(&collapse_whitespace(&paper.title), MAX_TITLE_CHARS);
    let abstract_text = cut_at_word(&collapse_whitespace(&paper.abstract_text()), MAX_ABSTRACT_CHARS);
    let abstract_text = if abstract_text.is_empty() { "(no abstract)".to_owned() } else { abstract_text };
    ChatRequest::new(model, PAPER_SUMMARY_INSTRUCTIONS, format!("Title: {title}\n\nAbstract: {abstract_text}"))
}

/// A paper summary answer as one plain line: Markdown markup and a leading "Summary:" label
/// removed, whitespace collapsed, cut at a word to [`MAX_PAPER_SUMMARY_CHARS`]. Nothing left is
/// an error.
pub fn parse_paper_summary(content: &str) -> Result<String, AnswerError> {
    let lines: Vec<String> = strip_fence(content).lines().map(plain_line).filter(|line| !line.is_empty()).collect();
    let text = collapse_whitespace(&lines.join(" "));
    let text = strip_label(&text, "summary");
    if text.is_empty() {
        return Err(AnswerError::Empty);
    }
    Ok(cut_at_word(text, MAX_PAPER_SUMMARY_CHARS))
}

const DIGEST_SUMMARY_INSTRUCTIONS: &str = "You write the \"AI Research Summary\" at the top of a weekly email digest of new research \
papers. Given the reader's search term and this week's papers, write 3 to 5 short lines, one point per line: the main themes and the \
most notable findings across the papers. Plain text, one point per line, no Markdown, no heading, no preamble.";

/// Asks for the digest summary of `papers` found for `term` in the last `window_days` (a widened
/// digest's papers are not all the week's, and the prompt says so). At most ten papers are
/// described, each by its title and the start of its abstract, so that the prompt stays small.
pub fn digest_summary_request(model: &str, term: &str, papers: &[&Paper], window_days: i64) -> ChatRequest {
    let mut prompt = format!("Search term: {}\n", cut_at_word(&collapse_whitespace(term), MAX_TERM_CHARS));
    if window_days != crate::digest::WINDOW_DAYS {
        prompt.push_str(&format!(
            "These are the most relevant papers of the last {window_days} days, not only this week's: do not call them this week's.\n"
        ));
    }
    prompt.push_str("\nPapers:\n");
    for (number, paper) in papers.iter().take(MAX_DIGEST_PAPERS).enumerate() {
        let title = cut_at_word(&collapse_whitespace(&paper.title), MAX_TITLE_CHARS);
        prompt.push_str(&format!("{}. {title}\n", number + 1));
        let abstract_text = cut_at_word(&collapse_whitespace(&paper.abstract_text()), MAX_DIGEST_ABSTRACT_CHARS);
        if !abstract_text.is_empty() {
            prompt.push_str(&format!("   {abstract_text}\n"));
        }
    }
    ChatRequest::new(model, DIGEST_SUMMARY_INSTRUCTIONS, prompt)
}

/// A digest summary answer as at most [`MAX_DIGEST_LINES`] plain lines: bullets, numbering,
/// Markdown markup and headings removed, blank lines dropped, each line cut at a word to
/// [`MAX_DIGEST_LINE_CHARS`]. No line left is an error.
pub fn parse_digest_summary(content: &str) -> Result<Vec<String>, AnswerError> {
    let lines: Vec<String> = strip_fence(content)
        .lines()
        .filter(|line| !is_heading(line))
        .map(plain_line)
        .filter(|line| !line.is_empty())
        .map(|line| cut_at_word(&line, MAX_DIGEST_LINE_CHARS))
        .take(MAX_DIGEST_LINES)
        .collect();
    if lines.is_empty() {
        return Err(AnswerError::Empty);
    }
    Ok(lines)
}

/// A Markdown heading, or a line that only names the summary ("**AI Research Summary**:"),
/// which the digest already shows above the lines.
fn is_heading(line: &str) -> bool {
    let trimmed = line.trim();
    let bare = trimmed.trim_matches(|character: char| matches!(character, '*' | '_' | ':' | ' '));
    trimmed.starts_with('#') || (!bare.is_empty() && bare.to_lowercase().ends_with("summary") && bare.split_whitespace().count() <= 4)
}

/// One line of Markdown as plain text: a bullet or list number, heading marks, emphasis (every
/// `*`: scientific prose has no use for it) and code marks removed, links reduced to their text, whitespace collapsed.
fn plain_line(line: &str) -> String {
    let mut text = line.trim().trim_start_matches('#').trim_start();
    text = strip_list_marker(text);
    let text = unlink(text).replace(['*', '`'], "").replace("__", "");
    let text = text.trim_matches(|character: char| character == '*' || character == '_' || character.is_whitespace());
    collapse_whitespace(text)
}

/// `text` without a leading `-`, `*`, `+` or `•` bullet (followed by a space, or alone) or
/// `1.`/`1)` number.
fn strip_list_marker(text: &str) -> &str {
    if let Some(rest) = text.strip_prefix(['-', '*', '+', '•']) {
        if rest.is_empty() || rest.starts_with(char::is_whitespace) {
            return rest.trim_start();
        }
    }
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    if (1..=2).contains(&digits) {
        let rest = &text[digits..];
        if let Some(rest) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return rest.trim_start();
        }
    }
    text
}

/// Markdown links `[text](url)` as their text.
fn unlink(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|at| open + at) else { break };
        let Some(end) = rest[close..].find(')').map(|at| close + at) else { break };
        out.push_str(&rest[..open]);
        out.push_str(&rest[open + 1..close]);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// `text` without a leading `label:` (any case).
fn strip_label<'a>(text: &'a str, label: &str) -> &'a str {
    match text.split_once(':') {
        Some((head, rest)) if head.trim().eq_ignore_ascii_case(label) => rest.trim(),
        _ => text.trim(),
    }
}

/// `text` cut to at most `max_chars` characters at a word, with an ellipsis when cut.
fn cut_at_word(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    let end = cut.rfind(' ').filter(|&at| at > 0).unwrap_or(cut.len());
    format!("{}…", cut[..end].trim_end_matches([',', ';', ':', ' ']))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::{AbstractSection, Source};

    fn paper(title: &str, abstract_text: &str) -> Paper {
        let mut paper = Paper::new(Source::Arxiv, title);
        paper.abstract_sections = vec![AbstractSection { label: None, text: abstract_text.into() }];
        paper
    }

    fn chat(content: &str) -> String {
        let choice = serde_json::json!({"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"});
        serde_json::json!({"id": "x", "object": "chat.completion", "choices": [choice]}).to_string()
    }

    #[test]
    fn a_request_serializes_as_the_chat_completions_body() {
        let request = expansion_request("gpt-4o-mini", "CRISPR");
        let body = serde_json::to_value(&request).expect("serializes");
        assert_eq!(body["model"], "gpt-4o-mini");
        assert_eq!(body["temperature"].as_f64().map(|t| (t * 10.0).round()), Some(2.0));
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(body["messages"][1]["role"], "user");
        assert!(body["messages"][1]["content"].as_str().is_some_and(|content| content.contains("CRISPR")));
        assert!(body["messages"][0]["content"].as_str().is_some_and(|content| content.contains("JSON array")));
    }

    #[test]
    fn the_content_of_the_first_choice_is_read() {
        assert_eq!(parse_chat_response(&chat("hello")), Ok("hello".to_owned()));
        let two = r#"{"choices":[{"message":{"content":"first"}},{"message":{"content":"second"}}]}"#;
        assert_eq!(parse_chat_response(two), Ok("first".to_owned()));
    }

    #[test]
    fn error_bodies_missing_choices_and_blank_content_are_errors() {
        let reported = parse_chat_response(r#"{"error":{"message":"model overloaded","type":"server_error"}}"#);
        assert_eq!(reported, Err(AnswerError::Reported("model overloaded".into())));
        assert_eq!(parse_chat_response(r#"{"choices":[]}"#), Err(AnswerError::Empty));
        assert_eq!(parse_chat_response(r#"{"choices":[{"message":{"content":null}}]}"#), Err(AnswerError::Empty));
        assert_eq!(parse_chat_response(&chat("  \n ")), Err(AnswerError::Empty));
        assert!(matches!(parse_chat_response("<html>502 Bad Gateway</html>"), Err(AnswerError::NotChatCompletion(_))));
        assert!(matches!(parse_chat_response("[1, 2]"), Err(AnswerError::NotChatCompletion(_))));
    }

    #[test]
    fn reported_errors_are_read_from_either_shape() {
        assert_eq!(reported_error(r#"{"error":{"message":"Incorrect API key provided"}}"#).as_deref(), Some("Incorrect API key provided"));
        assert_eq!(reported_error(r#"{"error":"rate limited"}"#).as_deref(), Some("rate limited"));
        assert_eq!(reported_error("Internal Server Error"), None);
    }

    #[test]
    fn an_expansion_array_is_read_as_is() {
        let phrases = parse_expansion("CRISPR", r#"["clustered regularly interspaced short palindromic repeats", "Cas9", "gene editing"]"#);
        assert_eq!(phrases, Ok(vec!["clustered regularly interspaced short palindromic repeats".into(), "Cas9".into(), "gene editing".into()]));
    }

    #[test]
    fn an_expansion_in_a_fence_or_with_prose_around_it_is_found() {
        let fenced = "Here you go:\n```json\n[\"large language model\", \"LLM\"]\n```\nHope this helps.";
        assert_eq!(parse_expansion("LLMs", fenced), Ok(vec!["large language model".into(), "LLM".into()]));
        let bare_fence = "```\n[\"a b\"]\n```";
        assert_eq!(parse_expansion("x", bare_fence), Ok(vec!["a b".into()]));
        let prose = "Related phrases: [\"myocardial infarction\", \"heart attack\"].";
        assert_eq!(parse_expansion("MI", prose), Ok(vec!["myocardial infarction".into(), "heart attack".into()]));
    }

    #[test]
    fn an_expansion_wrapped_in_an_object_is_unwrapped() {
        let object = r#"{"term": "MI", "phrases": ["myocardial infarction", "heart attack"]}"#;
        assert_eq!(parse_expansion("MI", object), Ok(vec!["myocardial infarction".into(), "heart attack".into()]));
        let fenced = "```json\n{\"related\": [\"transformer\"]}\n```";
        assert_eq!(parse_expansion("attention", fenced), Ok(vec!["transformer".into()]));
    }

    #[test]
    fn expansion_phrases_are_sanitized() {
        let long = "a".repeat(MAX_EXPANSION_CHARS + 1);
        let answer =
            serde_json::json!(["  gene   editing ", "", "   ", "Gene Editing", "crispr", "CRISPR", "bad\u{0007}bell", "two\nlines", long, "Cas9",])
                .to_string();
        assert_eq!(parse_expansion("CRISPR", &answer), Ok(vec!["gene editing".into(), "Cas9".into()]));
    }

    #[test]
    fn at_most_eight_phrases_are_kept() {
        let answer = serde_json::to_string(&(1..=12).map(|n| format!("phrase {n}")).collect::<Vec<_>>()).expect("json");
        let phrases = parse_expansion("term", &answer).expect("phrases");
        assert_eq!(phrases.len(), MAX_EXPANSIONS);
        assert_eq!(phrases[0], "phrase 1");
        assert_eq!(phrases[7], "phrase 8");
    }

    #[test]
    fn garbage_expansions_are_errors() {
        for garbage in [
            "I cannot help with that.",
            "",
            "[1, 2, 3]",
            r#"{"count": 3}"#,
            "[\"unterminated",
            r#"["CRISPR", " crispr "]"#,
            "[]",
            "\"just a string\"",
        ] {
            assert!(matches!(parse_expansion("CRISPR", garbage), Err(AnswerError::Unusable(_))), "{garbage:?} was accepted");
        }
    }

    #[test]
    fn a_paper_summary_request_carries_title_and_abstract() {
        let request = paper_summary_request("m", &paper("Attention Is All You Need", "We propose the Transformer."));
        assert_eq!(request.model, "m");
        assert_eq!(request.messages.len(), 2);
        let user = &request.messages[1].content;
        assert!(user.contains("Title: Attention Is All You Need") && user.contains("Abstract: We propose the Transformer."), "{user}");
        let huge = paper("T", &"word ".repeat(5_000));
        assert!(paper_summary_request("m", &huge).messages[1].content.chars().count() < MAX_ABSTRACT_CHARS + 100);
        assert!(paper_summary_request("m", &Paper::new(Source::Pubmed, "Only a title")).messages[1].content.contains("(no abstract)"));
    }

    #[test]
    fn a_paper_summary_is_plain_text() {
        let answer = "**Summary:** The authors propose the *Transformer*, a model built on `attention`.\n\n  It beats [RNNs](https://x.org).";
        assert_eq!(parse_paper_summary(answer), Ok("The authors propose the Transformer, a model built on attention. It beats RNNs.".to_owned()));
        assert_eq!(parse_paper_summary("Plain   answer\nacross lines."), Ok("Plain answer across lines.".to_owned()));
    }

    #[test]
    fn a_long_paper_summary_is_cut_at_a_word() {
        let summary = parse_paper_summary(&"lengthy ".repeat(100)).expect("summary");
        assert!(summary.chars().count() <= MAX_PAPER_SUMMARY_CHARS, "{}", summary.chars().count());
        assert!(summary.ends_with("lengthy…"), "{summary}");
    }

    #[test]
    fn an_empty_paper_summary_is_an_error() {
        assert_eq!(parse_paper_summary(""), Err(AnswerError::Empty));
        assert_eq!(parse_paper_summary(" ** \n - \n"), Err(AnswerError::Empty));
        assert_eq!(parse_paper_summary("Summary:"), Err(AnswerError::Empty));
    }

    #[test]
    fn a_digest_summary_request_is_bounded() {
        let papers: Vec<Paper> = (0..30).map(|n| paper(&format!("Paper number {n}"), &"finding ".repeat(500))).collect();
        let refs: Vec<&Paper> = papers.iter().collect();
        let request = digest_summary_request("m", "protein folding", &refs, crate::digest::WINDOW_DAYS);
        let user = &request.messages[1].content;
        assert!(user.contains("Search term: protein folding"));
        assert!(user.contains("1. Paper number 0") && user.contains("10. Paper number 9"));
        assert!(!user.contains("Paper number 10"), "only the first ten papers are described");
        assert!(!user.contains("days"), "a week's papers are the week's: {user}");
        let widened = digest_summary_request("m", "protein folding", &refs, 90);
        assert!(widened.messages[1].content.contains("the most relevant papers of the last 90 days, not only this week's"));
        assert!(user.chars().count() < MAX_DIGEST_PAPERS * (MAX_DIGEST_ABSTRACT_CHARS + 40) + 100, "{}", user.chars().count());
    }

    #[test]
    fn a_digest_summary_loses_bullets_numbers_and_headings() {
        let answer = "## AI Research Summary\n\n- First theme.\n* **Second** theme.\n\n1. Third point.\n2) Fourth point.\n• Fifth.\n- Sixth.";
        assert_eq!(
            parse_digest_summary(answer),
            Ok(vec!["First theme.".into(), "Second theme.".into(), "Third point.".into(), "Fourth point.".into(), "Fifth.".into()])
        );
        assert_eq!(parse_digest_summary("**AI Research Summary:**\nOnly line."), Ok(vec!["Only line.".into()]));
        assert_eq!(parse_digest_summary("2024 was a year of progress."), Ok(vec!["2024 was a year of progress.".into()]));
    }

    #[test]
    fn digest_summary_lines_are_cut_and_blank_answers_refused() {
        let lines = parse_digest_summary(&"long ".repeat(200)).expect("lines");
        assert_eq!(lines.len(), 1);
        assert!(lines[0].chars().count() <= MAX_DIGEST_LINE_CHARS);
        assert_eq!(parse_digest_summary(""), Err(AnswerError::Empty));
        assert_eq!(parse_digest_summary("\n - \n\n# Summary\n"), Err(AnswerError::Empty));
    }
}
