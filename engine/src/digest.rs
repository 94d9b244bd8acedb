//! Building a digest from ranked candidates: keep those relevant enough (`scoring`'s absolute
//! relevance, at least [`MIN_RELEVANCE`]), order them by the relevance the reader sees (the
//! impact prior orders papers of the same percent), drop what the user was already sent, keep
//! the best, and describe each paper for the mail and for the stored digest (spec §3
//! `email_digests`, `papersData`).

use chrono::{DateTime, Datelike, NaiveDate, Utc, Weekday};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::account::{DeliveryDay, Preferences, Tier, UserId};
use crate::dedup::dedup_keys;
use crate::mail::DigestPaper;
use crate::paper::{Paper, Source};
use crate::scoring::{impact_prior, MatchReason};
use crate::summary::summarize_paper;
pub use crate::window::{Widened, ENOUGH_PAPERS, WIDER_WINDOWS_DAYS, WINDOW_DAYS};

/// Papers in one digest at most.
pub const MAX_PAPERS: usize = 10;
/// Candidates below this relevance are never sent, however empty the week. Chosen on MED,
/// Cranfield and SciFact, long and short topics together, each weighing the same, with the curves
/// fitted on them (`bench/README.md`, "Short topics, key concepts and the floor"): at 0.3 the
/// share of sent papers judged relevant rises on every collection over the old floor of 0.25,
/// while a paper on the topic in other words (a cosine near 0.57, a third of the words) is still
/// sent; the floors where the mean share reaches 6 in 10 (0.5 with the model, 0.45 without)
/// would send a topic's paper only when it repeats every word of the topic, and halve recall.
pub const MIN_RELEVANCE: f64 = 0.3;

/// A candidate: a ranked paper with its search score, its absolute relevance
/// (`scoring::relevance`) and why it matched.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub paper: Paper,
    /// The index's score for the searched query (orders equal relevance).
    pub score: f32,
    /// 0 to 1.
    pub relevance: f64,
    pub reason: MatchReason,
    /// Whether it covers the topic's key concepts (`scoring::Evidence::covers_key`) and its
    /// researcher's ratings do not rule it out: a paper that does not is never sent.
    pub covers_key: bool,
}

/// A paper chosen for a digest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DigestEntry {
    pub title: String,
    pub url: Option<String>,
    pub authors: String,
    pub journal: Option<String>,
    #[serde(rename = "abstract")]
    pub abstract_text: String,
    /// The first source that reported it (pubmed, arxiv, biorxiv, medrxiv).
    pub source: Source,
    pub sources: Vec<Source>,
    /// 0 to 1.
    pub relevance_score: f64,
    pub impact: f64,
    pub summary: String,
    pub reason: String,
    pub retracted: bool,
    /// The paper's dedup keys, to know it was sent.
    pub keys: Vec<String>,
    pub links: Vec<(String, String)>,
}

/// A stored digest (spec §3 `email_digests`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Digest {
    pub id: Uuid,
    pub user_id: UserId,
    pub digest_type: DigestKind,
    pub search_term: String,
    /// The term it was made for, when it was made for a stored term: rating links and ratings
    /// bind to this identity, so a term deleted and added again with the same text is a new
    /// term that an old digest's links do not rate. `None` only for a digest whose term was
    /// already deleted when the store's schema 3 gave every older digest its term's id: it
    /// belongs to no term.
    #[serde(default)]
    pub term_id: Option<crate::search_term::TermId>,
    pub searched_as: Option<String>,
    pub papers_data: Vec<DigestEntry>,
    /// Line-separated.
    pub ai_summary: String,
    pub subject: String,
    pub status: DigestStatus,
    pub sent_at: DateTime<Utc>,
    /// For an empty digest: the papers relevant enough for it that were left out because an
    /// earlier digest sent them (so it can say why); 0 for a digest with papers.
    #[serde(default)]
    pub sent_before: usize,
    /// An immediate digest whose week had too few good matches looked further back; `None`
    /// for a digest of the week.
    #[serde(default)]
    pub widened: Option<Widened>,
}

/// Why a digest was made: a search now (a term added, edited or searched again) or the weekly
/// schedule. Stored and shown as `immediate` and `weekly`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DigestKind {
    Immediate,
    Weekly,
}

impl DigestKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DigestKind::Immediate => "immediate",
            DigestKind::Weekly => "weekly",
        }
    }
}

/// Where a digest stands. A digest is stored when its mail is queued, so every stored digest
/// is `sent`; the field is kept for the dashboard (spec §3 `email_digests.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DigestStatus {
    Sent,
}

impl Digest {
    /// How many days back its papers may have entered.
    pub fn window_days(&self) -> i64 {
        self.widened.map_or(WINDOW_DAYS, |widened| widened.days)
    }
}

/// Free plans receive this many digests with papers (a notice that a week had nothing relevant
/// is not one, nor a digest received on a paid plan); then the dashboard and one mail invite an
/// upgrade.
pub const FREE_DIGESTS: usize = 2;
/// A user's first weekly digest comes on the first delivery day at least this many days after
/// signup, and a free plan's weekly digest never this close after its previous digest: the
/// digest mailed at signup and the first weekly one are never the same day or the next.
pub const WEEKLY_GAP_DAYS: i64 = 3;

/// What the free-plan rules need to know of a user's digests so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DigestHistory {
    pub signed_up_at: DateTime<Utc>,
    /// The latest weekly digest (with papers or not).
    pub last_weekly: Option<DateTime<Utc>>,
    /// The latest digest that had papers, of any kind.
    pub last_with_papers: Option<DateTime<Utc>>,
    /// Digests that had papers received on the free plan: what its allowance counts. Those
    /// received on a paid plan do not count, so a plan that ends leaves what was left of it.
    pub free_with_papers: usize,
    /// Whether the free plan's one upgrade invitation went out.
    pub invited: bool,
}

/// How many more digests a user's plan allows: the free plan's allowance, decided once per
/// request or weekly pass by [`allowance`] and passed down as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allowance {
    /// A paid plan: no limit.
    Unlimited,
    /// The free plan: this many digests with papers are left.
    Left(usize),
}

impl Allowance {
    /// Whether one more digest may go out.
    pub fn allows_digest(self) -> bool {
        match self {
            Allowance::Unlimited => true,
            Allowance::Left(left) => left > 0,
        }
    }

    /// What is left after one more digest (`with_papers`: it had papers; only those count).
    pub fn after_digest(self, with_papers: bool) -> Allowance {
        match self {
            Allowance::Left(left) if with_papers => Allowance::Left(left.saturating_sub(1)),
            unchanged => unchanged,
        }
    }
}

/// The allowance of a user on `tier` whose digests so far are `history`: paid plans have no
/// limit; free plans may have digests until [`FREE_DIGESTS`] with papers went out on the free
/// plan. The same rule for every path that makes a digest (an immediate search, a term added or
/// edited, the weekly pass, a triggered digest).
pub fn allowance(tier: Tier, history: &DigestHistory) -> Allowance {
    if has_digest_allowance(tier) {
        Allowance::Left(FREE_DIGESTS.saturating_sub(history.free_with_papers))
    } else {
        Allowance::Unlimited
    }
}

/// Whether a new digest may go to a user on `tier` now ([`allowance`] allows one).
pub fn may_send_digest(tier: Tier, history: &DigestHistory) -> bool {
    allowance(tier, history).allows_digest()
}

/// Whether `tier` has an allowance of digests (the free plan): for the others, a caller need
/// not read the history [`may_send_digest`] would look at.
pub fn has_digest_allowance(tier: Tier) -> bool {
    !tier.is_paid()
}

/// A free plan's digests: how many are used, of how many. `None` for paid plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FreeDigests {
    pub used: usize,
    pub total: usize,
}

pub fn free_digests(tier: Tier, history: &DigestHistory) -> Option<FreeDigests> {
    has_digest_allowance(tier).then(|| FreeDigests { used: history.free_with_papers.min(FREE_DIGESTS), total: FREE_DIGESTS })
}

impl DigestHistory {
    /// The history once a digest of `kind` made at `at` for a user on `tier` is added to it
    /// (`with_papers`: it had papers; a notice of an empty week is a digest received but not one
    /// with papers). Only the free plan's digests count against its allowance.
    pub fn record(&mut self, kind: DigestKind, tier: Tier, with_papers: bool, at: DateTime<Utc>) {
        if kind == DigestKind::Weekly {
            self.last_weekly = Some(self.last_weekly.map_or(at, |last| last.max(at)));
        }
        if with_papers {
            if has_digest_allowance(tier) {
                self.free_with_papers += 1;
            }
            self.last_with_papers = Some(self.last_with_papers.map_or(at, |last| last.max(at)));
        }
    }
}

/// What the weekly rule looks at for one user.
#[derive(Debug, Clone, Copy)]
pub struct WeeklyInputs<'a> {
    pub preferences: &'a Preferences,
    pub tier: Tier,
    pub history: &'a DigestHistory,
    pub now: DateTime<Utc>,
    /// The UTC hour weekly digests start on a delivery day.
    pub hour: u32,
}

/// What the weekly schedule does for a user now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeeklyAction {
    /// Not their day or hour yet, digests off, too soon after signup or (free plans) the last
    /// digest, or this week's digest went out already.
    Wait,
    /// Build a digest of each active term.
    Send,
    /// A free plan that used its digests: invite an upgrade (once).
    InviteUpgrade,
    /// A free plan that used its digests and was invited.
    Done,
}

/// The weekly rule: a user's digests go out on their delivery day (UTC) from `hour` on, once a
/// week, never before [`WEEKLY_GAP_DAYS`] after signup (nor, on a free plan, after the last
/// digest with papers); free plans after [`FREE_DIGESTS`] digests get one upgrade invitation
/// instead.
pub fn weekly_action(inputs: &WeeklyInputs) -> WeeklyAction {
    let WeeklyInputs { preferences, tier, history, now, hour } = *inputs;
    let preferences = preferences.effective(tier);
    let today = now.date_naive();
    let slot = today.and_hms_opt(hour.min(23), 0, 0).map(|time| time.and_utc()).unwrap_or(now);
    let due = preferences.weekly_digest
        && weekday_of(today) == preferences.delivery_day
        && now >= slot
        && history.last_weekly.is_none_or(|sent| sent < slot)
        && is_slot_open(slot, tier, history);
    match (due, may_send_digest(tier, history), history.invited) {
        (false, ..) => WeeklyAction::Wait,
        (true, true, _) => WeeklyAction::Send,
        (true, false, false) => WeeklyAction::InviteUpgrade,
        (true, false, true) => WeeklyAction::Done,
    }
}

/// Whether a delivery slot may carry a weekly digest, as far as signup and (free plans) the last
/// digest go.
fn is_slot_open(slot: DateTime<Utc>, tier: Tier, history: &DigestHistory) -> bool {
    let gap = chrono::Duration::days(WEEKLY_GAP_DAYS);
    let after_signup = slot >= history.signed_up_at + gap;
    let after_last = tier.is_paid() || history.last_with_papers.is_none_or(|sent| slot >= sent + gap);
    after_signup && after_last
}

/// When the weekly schedule will next send the user's digests: their next delivery-day slot
/// ([`weekly_action`]'s rule) not yet served, or `now` when one is due and waiting for the
/// scheduler; `None` when no weekly digest will come (digests off, or a free plan's digests used
/// up).
pub fn next_weekly_run(inputs: &WeeklyInputs) -> Option<DateTime<Utc>> {
    let WeeklyInputs { preferences, tier, history, now, hour } = *inputs;
    let preferences = preferences.effective(tier);
    if !preferences.weekly_digest || !may_send_digest(tier, history) {
        return None;
    }
    let today = now.date_naive();
    (0..=21)
        .map(|days| today + chrono::Duration::days(days))
        .filter(|day| weekday_of(*day) == preferences.delivery_day)
        .filter_map(|day| day.and_hms_opt(hour.min(23), 0, 0).map(|time| time.and_utc()))
        .filter(|slot| is_slot_open(*slot, tier, history))
        .find(|slot| history.last_weekly.is_none_or(|sent| sent < *slot))
        .map(|slot| slot.max(now))
}

/// The delivery day that `day` is.
pub fn weekday_of(day: NaiveDate) -> DeliveryDay {
    match day.weekday() {
        Weekday::Sun => DeliveryDay::Sunday,
        Weekday::Mon => DeliveryDay::Monday,
        Weekday::Tue => DeliveryDay::Tuesday,
        Weekday::Wed => DeliveryDay::Wednesday,
        Weekday::Thu => DeliveryDay::Thursday,
        Weekday::Fri => DeliveryDay::Friday,
        Weekday::Sat => DeliveryDay::Saturday,
    }
}

/// The digest's papers: candidates not sent before (`already_sent` says by dedup key), ordered
/// as [`score`] orders them, at most [`MAX_PAPERS`].
pub fn choose(candidates: Vec<Candidate>, already_sent: impl Fn(&str) -> bool, today: NaiveDate) -> Vec<DigestEntry> {
    choose_unsent(&score(&candidates, today), already_sent)
}

/// Every candidate worth sending (relevance at least [`MIN_RELEVANCE`]), described and ordered by
/// the relevance shown (in whole percent), then the impact prior, then the search score. The same
/// for every user who follows the term: compute it once, then [`choose_unsent`] per user.
pub fn score(candidates: &[Candidate], today: NaiveDate) -> Vec<DigestEntry> {
    let mut entries: Vec<(f32, DigestEntry)> = candidates
        .iter()
        .filter(|candidate| candidate.covers_key && candidate.relevance >= MIN_RELEVANCE)
        .map(|candidate| {
            let impact = impact_prior(&candidate.paper, today);
            (candidate.score, entry(&candidate.paper, candidate.relevance, impact, &candidate.reason))
        })
        .collect();
    entries.sort_by(|(a_score, a), (b_score, b)| {
        percent(b.relevance_score)
            .cmp(&percent(a.relevance_score))
            .then_with(|| b.impact.total_cmp(&a.impact))
            .then_with(|| b_score.total_cmp(a_score))
    });
    entries.into_iter().map(|(_, entry)| entry).collect()
}

/// A relevance as the reader sees it, in whole percent.
pub fn percent(relevance: f64) -> u8 {
    (relevance * 100.0).round().clamp(0.0, 100.0) as u8
}

/// The best [`MAX_PAPERS`] of `scored` that the user was not sent before.
pub fn choose_unsent(scored: &[DigestEntry], already_sent: impl Fn(&str) -> bool) -> Vec<DigestEntry> {
    choose_unsent_positions(scored, already_sent).into_iter().map(|position| scored[position].clone()).collect()
}

/// The positions in `scored` of the entries [`choose_unsent`] chooses.
pub fn choose_unsent_positions(scored: &[DigestEntry], already_sent: impl Fn(&str) -> bool) -> Vec<usize> {
    (0..scored.len()).filter(|&position| !scored[position].keys.iter().any(|key| already_sent(key))).take(MAX_PAPERS).collect()
}

fn entry(paper: &Paper, relevance_score: f64, impact: f64, reason: &MatchReason) -> DigestEntry {
    let links: Vec<(String, String)> = paper_links(paper);
    DigestEntry {
        title: paper.title.clone(),
        url: links.first().map(|(_, url)| url.clone()),
        authors: author_line(paper),
        journal: paper.journal.clone(),
        abstract_text: paper.abstract_text(),
        source: paper.sources.first().copied().unwrap_or(Source::Pubmed),
        sources: paper.sources.clone(),
        relevance_score: (relevance_score * 1000.0).round() / 1000.0,
        impact: (impact * 1000.0).round() / 1000.0,
        summary: summarize_paper(paper),
        reason: reason.describe(),
        retracted: paper.is_retraction,
        keys: dedup_keys(paper).iter().map(ToString::to_string).collect(),
        links,
    }
}

/// The paper's addresses, the journal version first.
fn paper_links(paper: &Paper) -> Vec<(String, String)> {
    let ids = &paper.ids;
    let mut links = Vec::new();
    if let Some(doi) = ids.doi.as_ref().or(ids.published_doi.as_ref()) {
        links.push(("DOI".to_owned(), format!("https://doi.org/{doi}")));
    }
    if let Some(pmid) = &ids.pmid {
        links.push(("PubMed".to_owned(), format!("https://pubmed.ncbi.nlm.nih.gov/{pmid}/")));
    }
    if let Some(arxiv) = &ids.arxiv {
        links.push(("arXiv".to_owned(), format!("https://arxiv.org/abs/{arxiv}")));
    }
    if let Some(preprint) = ids.preprint_doi.as_ref().filter(|preprint| Some(*preprint) != ids.doi.as_ref()) {
        links.push(("Preprint".to_owned(), format!("https://doi.org/{preprint}")));
    }
    links
}

/// Up to three authors, then "et al.".
fn author_line(paper: &Paper) -> String {
    let names: Vec<&str> = paper.authors.iter().take(3).map(|author| author.name.as_str()).collect();
    let mut line = names.join(", ");
    if paper.authors.len() > 3 {
        line.push_str(", et al.");
    }
    line
}

impl DigestEntry {
    /// How the mail shows it.
    pub fn for_mail(&self) -> DigestPaper {
        let venue = self.journal.clone().unwrap_or_else(|| source_label(self.source).to_owned());
        DigestPaper {
            title: self.title.clone(),
            links: self.links.clone(),
            authors: self.authors.clone(),
            venue,
            sources: self.sources.iter().map(|source| source_label(*source)).collect::<Vec<_>>().join(", "),
            relevance_percent: percent(self.relevance_score),
            summary: self.summary.clone(),
            reason: self.reason.clone(),
            retracted: self.retracted,
        }
    }
}

/// A source's name as people write it.
pub fn source_label(source: Source) -> &'static str {
    match source {
        Source::Pubmed => "PubMed",
        Source::Arxiv => "arXiv",
        Source::Biorxiv => "bioRxiv",
        Source::Medrxiv => "medRxiv",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::{AbstractSection, Author};

    fn candidate(title: &str, doi: &str, relevance: f64, source: Source) -> Candidate {
        let mut paper = Paper::new(source, title);
        paper.ids.doi = Some(doi.into());
        paper.authors = (0..5).map(|index| Author::person(Some("A."), &format!("Author{index}"))).collect();
        paper.abstract_sections = vec![AbstractSection { label: None, text: format!("{title} is studied here in depth.") }];
        paper.entered = Some("2026-11-20".parse().expect("a date"));
        Candidate {
            paper,
            score: relevance as f32 * 10.0,
            relevance,
            reason: MatchReason { terms: vec!["gene".into()], ..MatchReason::default() },
            covers_key: true,
        }
    }

    #[test]
    fn the_digest_drops_sent_and_weak_papers_and_orders_by_the_score_it_shows() {
        let today: NaiveDate = "2026-11-23".parse().expect("a date");
        let candidates = vec![
            candidate("Gene therapy preprint", "10.1101/1", 0.9, Source::Biorxiv),
            candidate("Gene therapy trial", "10.1000/2", 0.9, Source::Pubmed),
            candidate("Already sent gene paper", "10.1000/3", 0.95, Source::Pubmed),
            candidate("Barely related", "10.1000/4", MIN_RELEVANCE - 0.01, Source::Pubmed),
            candidate("Gene review", "10.1000/5", 0.71, Source::Pubmed),
            candidate("Gene preprint, more relevant", "10.1101/6", 0.77, Source::Biorxiv),
        ];
        let chosen = choose(candidates, |key| key == "doi:10.1000/3", today);
        let titles: Vec<&str> = chosen.iter().map(|entry| entry.title.as_str()).collect();
        assert_eq!(
            titles,
            vec!["Gene therapy trial", "Gene therapy preprint", "Gene preprint, more relevant", "Gene review"],
            "journal before preprint at equal percent, otherwise the percent shown decides; sent and weak left out"
        );
        let shown: Vec<u8> = chosen.iter().map(|entry| entry.for_mail().relevance_percent).collect();
        assert!(shown.windows(2).all(|pair| pair[0] >= pair[1]), "{shown:?}");
        assert_eq!(chosen[0].relevance_score, 0.9);
        assert_eq!(chosen[0].authors, "A. Author0, A. Author1, A. Author2, et al.");
        assert_eq!(chosen[0].url.as_deref(), Some("https://doi.org/10.1000/2"));
        assert!(chosen[0].keys.contains(&"doi:10.1000/2".to_owned()));
        let mail = chosen[1].for_mail();
        assert_eq!((mail.venue.as_str(), mail.sources.as_str(), mail.relevance_percent), ("bioRxiv", "bioRxiv", 90));
        assert_eq!(mail.reason, "words: gene");
    }

    /// A history of an account that signed up long ago.
    fn old_account(free_with_papers: usize, invited: bool) -> DigestHistory {
        let signed_up_at = "2026-01-01T00:00:00Z".parse().expect("a time");
        DigestHistory { signed_up_at, free_with_papers, invited, ..DigestHistory::default() }
    }

    #[test]
    fn weekly_digests_go_out_on_the_delivery_day_once_and_free_plans_are_invited_after_two() {
        let at = |text: &str| text.parse::<DateTime<Utc>>().expect("a time");
        let friday = Preferences { delivery_day: DeliveryDay::Friday, ..Preferences::default() };
        let fresh = old_account(0, false);
        // 2026-11-27 is a Friday, 2026-11-23 a Monday.
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &friday, tier: Tier::Pro, history: &fresh, now: at("2026-11-27T07:00:00Z"), hour: 6 }),
            WeeklyAction::Send
        );
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &friday, tier: Tier::Pro, history: &fresh, now: at("2026-11-27T05:00:00Z"), hour: 6 }),
            WeeklyAction::Wait,
            "before the hour"
        );
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &friday, tier: Tier::Pro, history: &fresh, now: at("2026-11-26T07:00:00Z"), hour: 6 }),
            WeeklyAction::Wait,
            "not Friday"
        );
        let sent = DigestHistory { last_weekly: Some(at("2026-11-27T06:05:00Z")), ..old_account(1, false) };
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &friday, tier: Tier::Pro, history: &sent, now: at("2026-11-27T09:00:00Z"), hour: 6 }),
            WeeklyAction::Wait,
            "once a week"
        );
        let off = Preferences { weekly_digest: false, ..friday.clone() };
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &off, tier: Tier::Pro, history: &fresh, now: at("2026-11-27T07:00:00Z"), hour: 6 }),
            WeeklyAction::Wait
        );

        // Free plans: Monday whatever was stored, two digests with papers, then one invitation.
        let monday = at("2026-11-23T07:00:00Z");
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &friday, tier: Tier::Free, history: &old_account(1, false), now: monday, hour: 6 }),
            WeeklyAction::Send
        );
        assert_eq!(
            weekly_action(&WeeklyInputs {
                preferences: &friday,
                tier: Tier::Free,
                history: &old_account(1, false),
                now: at("2026-11-27T07:00:00Z"),
                hour: 6
            }),
            WeeklyAction::Wait
        );
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &friday, tier: Tier::Free, history: &old_account(2, false), now: monday, hour: 6 }),
            WeeklyAction::InviteUpgrade
        );
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &friday, tier: Tier::Free, history: &old_account(2, true), now: monday, hour: 6 }),
            WeeklyAction::Done
        );
        assert_eq!(
            weekly_action(&WeeklyInputs {
                preferences: &friday,
                tier: Tier::Pro,
                history: &old_account(9, true),
                now: at("2026-11-27T07:00:00Z"),
                hour: 6
            }),
            WeeklyAction::Send,
            "paid plans have no allowance"
        );
    }

    #[test]
    fn the_first_weekly_digest_waits_a_few_days_after_signup_and_a_free_plans_last_digest() {
        let at = |text: &str| text.parse::<DateTime<Utc>>().expect("a time");
        let monday_slot = at("2026-11-23T09:00:00Z");
        let monday = Preferences::default();
        // Signed up on the Monday itself, an hour before the slot, with the signup digest.
        let same_day = DigestHistory {
            signed_up_at: at("2026-11-23T08:00:00Z"),
            last_with_papers: Some(at("2026-11-23T08:05:00Z")),
            free_with_papers: 1,
            ..DigestHistory::default()
        };
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &monday, tier: Tier::Free, history: &same_day, now: monday_slot, hour: 8 }),
            WeeklyAction::Wait,
            "not the day of signup"
        );
        assert_eq!(
            next_weekly_run(&WeeklyInputs { preferences: &monday, tier: Tier::Free, history: &same_day, now: monday_slot, hour: 8 }),
            Some(at("2026-11-30T08:00:00Z"))
        );
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &monday, tier: Tier::Free, history: &same_day, now: at("2026-11-30T09:00:00Z"), hour: 8 }),
            WeeklyAction::Send,
            "the next Monday"
        );
        // Signed up on Saturday: Monday is two days later, so the Monday after.
        let saturday = DigestHistory { signed_up_at: at("2026-11-21T12:00:00Z"), ..DigestHistory::default() };
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &monday, tier: Tier::Pro, history: &saturday, now: monday_slot, hour: 8 }),
            WeeklyAction::Wait
        );
        assert_eq!(
            next_weekly_run(&WeeklyInputs { preferences: &monday, tier: Tier::Pro, history: &saturday, now: at("2026-11-22T00:00:00Z"), hour: 8 }),
            Some(at("2026-11-30T08:00:00Z"))
        );
        // An old free account whose term was replaced on Sunday: its new digest is not followed
        // by a weekly one the next morning. Paid plans get their weekly digest as usual.
        let replaced = DigestHistory { last_with_papers: Some(at("2026-11-22T18:00:00Z")), ..old_account(1, false) };
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &monday, tier: Tier::Free, history: &replaced, now: monday_slot, hour: 8 }),
            WeeklyAction::Wait
        );
        assert_eq!(
            weekly_action(&WeeklyInputs { preferences: &monday, tier: Tier::Pro, history: &replaced, now: monday_slot, hour: 8 }),
            WeeklyAction::Send
        );
    }

    #[test]
    fn the_free_allowance_counts_digests_with_papers_and_paid_plans_lift_it() {
        assert!(may_send_digest(Tier::Free, &old_account(1, false)));
        assert!(!may_send_digest(Tier::Free, &old_account(2, false)));
        assert!(may_send_digest(Tier::Pro, &old_account(2, false)) && may_send_digest(Tier::Team, &old_account(40, true)));
        assert_eq!(free_digests(Tier::Free, &old_account(1, false)), Some(FreeDigests { used: 1, total: FREE_DIGESTS }));
        assert_eq!(free_digests(Tier::Free, &old_account(5, false)), Some(FreeDigests { used: 2, total: FREE_DIGESTS }));
        assert_eq!(free_digests(Tier::Pro, &old_account(5, false)), None);
    }

    #[test]
    fn a_widened_digest_says_how_many_of_its_papers_are_the_weeks() {
        let note = |new_this_week| Widened { days: 90, new_this_week }.note();
        assert_eq!(note(0), "Nothing new this week; the most relevant from the last 90 days.");
        assert_eq!(note(1), "Only one new paper this week; with it, the most relevant from the last 90 days.");
        assert_eq!(note(2), "Only 2 new papers this week; with them, the most relevant from the last 90 days.");
    }

    #[test]
    fn the_allowance_counts_down_with_each_digest_with_papers_as_the_history_does() {
        for tier in [Tier::Free, Tier::Pro] {
            for used in 0..4 {
                let mut history = old_account(used, false);
                let mut left = allowance(tier, &history);
                for with_papers in [true, false, true, true] {
                    assert_eq!(left.allows_digest(), may_send_digest(tier, &history));
                    history.record(DigestKind::Weekly, tier, with_papers, history.signed_up_at);
                    left = left.after_digest(with_papers);
                    assert_eq!(left, allowance(tier, &history), "{tier:?} from {used} used");
                }
            }
        }
        assert_eq!(allowance(Tier::Team, &old_account(9, true)), Allowance::Unlimited);
        assert_eq!(allowance(Tier::Free, &old_account(1, false)), Allowance::Left(1));
    }

    #[test]
    fn digests_received_on_a_paid_plan_do_not_use_the_free_allowance() {
        use chrono::TimeZone;
        let at = |day: u32| Utc.with_ymd_and_hms(2026, 11, day, 9, 0, 0).single().expect("a time");
        let mut history = old_account(0, false);
        history.record(DigestKind::Immediate, Tier::Free, true, at(2));
        history.record(DigestKind::Weekly, Tier::Pro, true, at(9));
        history.record(DigestKind::Weekly, Tier::Team, true, at(16));
        history.record(DigestKind::Weekly, Tier::Free, false, at(23));
        assert_eq!(free_digests(Tier::Free, &history), Some(FreeDigests { used: 1, total: FREE_DIGESTS }), "the paid plan's digests are not counted");
        assert_eq!((history.last_with_papers, history.last_weekly), (Some(at(16)), Some(at(23))));
        assert!(may_send_digest(Tier::Free, &history), "one free digest is left once the plan ends");
        history.record(DigestKind::Weekly, Tier::Free, true, at(30));
        assert!(!may_send_digest(Tier::Free, &history));
    }

    #[test]
    fn entries_serialize_as_papers_data() {
        let entry = choose(vec![candidate("Gene therapy trial", "10.1000/2", 0.9, Source::Pubmed)], |_| false, "2026-11-23".parse().expect("day"));
        let json = serde_json::to_value(&entry[0]).expect("json");
        for field in ["title", "url", "authors", "journal", "abstract", "source", "relevanceScore", "summary", "reason"] {
            assert!(json.get(field).is_some(), "papersData lacks {field}: {json}");
        }
        assert_eq!(json["source"], "pubmed");
    }

    #[test]
    fn the_next_weekly_run_is_the_next_unserved_delivery_slot() {
        use chrono::TimeZone;
        let at = |day: u32, hour: u32| Utc.with_ymd_and_hms(2026, 11, day, hour, 0, 0).single().expect("a time");
        let served = |day: u32, with_papers: usize| DigestHistory { last_weekly: Some(at(day, 8)), ..old_account(with_papers, false) };
        // 2026-11-23 is a Monday.
        let monday = Preferences::default();
        assert_eq!(
            next_weekly_run(&WeeklyInputs { preferences: &monday, tier: Tier::Free, history: &old_account(0, false), now: at(22, 12), hour: 8 }),
            Some(at(23, 8)),
            "Sunday: tomorrow at the hour"
        );
        assert_eq!(
            next_weekly_run(&WeeklyInputs { preferences: &monday, tier: Tier::Free, history: &old_account(0, false), now: at(23, 7), hour: 8 }),
            Some(at(23, 8)),
            "Monday before the hour"
        );
        assert_eq!(
            next_weekly_run(&WeeklyInputs { preferences: &monday, tier: Tier::Free, history: &old_account(1, false), now: at(23, 9), hour: 8 }),
            Some(at(23, 9)),
            "due now, not yet served"
        );
        assert_eq!(
            next_weekly_run(&WeeklyInputs { preferences: &monday, tier: Tier::Free, history: &served(23, 1), now: at(23, 9), hour: 8 }),
            Some(at(30, 8)),
            "served: next week"
        );
        assert_eq!(
            next_weekly_run(&WeeklyInputs {
                preferences: &monday,
                tier: Tier::Free,
                history: &old_account(FREE_DIGESTS, false),
                now: at(22, 12),
                hour: 8
            }),
            None,
            "free digests used up"
        );
        let friday = Preferences { delivery_day: DeliveryDay::Friday, ..Preferences::default() };
        assert_eq!(
            next_weekly_run(&WeeklyInputs { preferences: &friday, tier: Tier::Pro, history: &old_account(9, false), now: at(23, 12), hour: 8 }),
            Some(at(27, 8)),
            "a paid plan's own day"
        );
        assert_eq!(
            next_weekly_run(&WeeklyInputs { preferences: &friday, tier: Tier::Free, history: &old_account(0, false), now: at(24, 12), hour: 8 }),
            Some(at(30, 8)),
            "free plans: Mondays whatever was stored"
        );
        let off = Preferences { weekly_digest: false, ..Preferences::default() };
        assert_eq!(
            next_weekly_run(&WeeklyInputs { preferences: &off, tier: Tier::Pro, history: &old_account(0, false), now: at(23, 7), hour: 8 }),
            None,
            "digests off"
        );
    }
}
