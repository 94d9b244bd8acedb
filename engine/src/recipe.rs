//! The ranking recipe: how a digest's papers are found, judged and chosen, step by step in the
//! order the digester (`actors::Digester`) runs it. The digester does the I/O (index searches,
//! the embedding model, the store); every decision is here or in the function a step names.
//!
//! 1. **The window.** Papers that entered the user's sources in the last [`WINDOW_DAYS`] days.
//! 2. **The candidates.** The index's best [`CANDIDATES`] for the topic's words (with the LLM's
//!    related phrases when there is one, `digest_text::weighted_query_text`). Without an
//!    embedding model the search is expanded by RM3 (`expansion`); with one it is not (RM3
//!    lowered SciFact with the model, bench/README.md "relevance"), and the [`CANDIDATES`]
//!    papers closest in meaning join them, each paper once ([`nearest_to_add`]).
//! 3. **The evidence.** Each candidate's evidence (`scoring::evidence`): how strongly its words
//!    match the topic's own words and the searched ones, by the whole index's statistics, with
//!    its cosine to the topic when there is a model (`scoring::Evidence::with_similarity`).
//! 4. **The judgement** ([`judge`]). From the evidence: the absolute relevance (a fitted curve of
//!    the score, `scoring::relevance`), the order among equals ([`tie_break`]: the fused score
//!    `scoring::Evidence::score`, strength and similarity weighed by `scoring::SIMILARITY_WEIGHT`,
//!    when there is a model; the search score otherwise), whether it shows each of the topic's
//!    key concepts by evidence of its own (the gate: `concepts`, `scoring::Evidence::covers_key`:
//!    the concept's words, a known variant, a subject term the source gives the paper, or the
//!    concept's own meaning), and why it matched ([`reason`]): the words, and the evidence for a
//!    key concept it lacks the words of; a paper that matched on no word but is close in meaning
//!    (and has no key concept to show: no model, no gate) is "similar".
//! 5. **The researcher's ratings** ([`rejudge`]), for a term with ratings or exclusion words
//!    (`feedback`): the strength may rise with the liked papers' words, the similarity is read
//!    against the topic moved by the ratings, papers like the rejected ones or with an excluded
//!    word fail the gate, and a paper whose percent moved by [`RATING_MOVE_PERCENT`] or more says
//!    so ([`rating_move`]).
//! 6. **The floor and the order** (`digest::score`): candidates that pass the gate with a
//!    relevance of at least [`MIN_RELEVANCE`], by the percent shown, then the impact prior, then
//!    the tie-break. Shared by every user who follows the term.
//! 7. **Per user** (`digest::choose_unsent_positions`): the best [`MAX_PAPERS`] not sent before.
//! 8. **Widening** (immediate digests only): a week with fewer than [`ENOUGH_PAPERS`] to send
//!    ([`needs_wider`]) looks back each of [`WIDER_WINDOWS_DAYS`] in turn, steps 1–7 again, and
//!    takes the wider choice when it sends more, or when the week sent none ([`takes_wider`]).

use crate::concepts::KeyEvidence;
use crate::digest::Candidate;
pub use crate::digest::{ENOUGH_PAPERS, MAX_PAPERS, MIN_RELEVANCE, WIDER_WINDOWS_DAYS, WINDOW_DAYS};
use crate::paper::Paper;
pub use crate::scoring::SIMILARITY_WEIGHT;
use crate::scoring::{relevance, Evidence, MatchReason, RatingMove};

/// Step 2: how many papers each search contributes to a term's candidates.
pub const CANDIDATES: usize = 100;

/// Step 5: a rated paper's relevance moved by at least this many percent says so.
pub const RATING_MOVE_PERCENT: i32 = 5;

/// Step 2: the papers of `nearest` (closest in meaning, best first) that the search did not
/// find already, in their order.
pub fn nearest_to_add<T: PartialEq + Copy>(searched: &[T], nearest: &[T]) -> Vec<T> {
    nearest.iter().copied().filter(|id| !searched.contains(id)).collect()
}

/// Step 4: a candidate's order among papers of equal relevance: the fused score when the
/// evidence has a similarity, else the index's score.
pub fn tie_break(evidence: &Evidence, search_score: f32) -> f32 {
    if evidence.similarity.is_some() {
        evidence.score() as f32
    } else {
        search_score
    }
}

/// Step 4: why a paper matched, from the words it matched on (`scoring::match_reason`) and the
/// evidence it shows a key concept by without its words (`concepts`): "similar" when it matched
/// on no word but is close in meaning.
pub fn reason(matched: MatchReason, evidence: &Evidence, key_evidence: Vec<KeyEvidence>) -> MatchReason {
    let mut reason = matched;
    reason.key_evidence = key_evidence;
    reason.similar = reason.is_empty() && reason.key_evidence.is_empty() && evidence.similarity.is_some_and(|similarity| similarity > 0.0);
    reason
}

/// Step 4: the candidate `paper` makes, found with `search_score`, by its `evidence`.
pub fn judge(paper: Paper, search_score: f32, evidence: &Evidence, reason: MatchReason) -> Candidate {
    Candidate { reason, relevance: relevance(evidence), paper, score: tie_break(evidence, search_score), covers_key: evidence.covers_key() }
}

/// Step 5: a candidate's evidence as its researcher's ratings read it: the strength the liked
/// papers' words give it, if higher, and the similarity to the topic the ratings moved.
pub fn rated_evidence(base: Evidence, rated_strength: Option<f64>, rated_similarity: Option<f32>) -> Evidence {
    let mut evidence = base;
    if let Some(strength) = rated_strength {
        evidence.strength = evidence.strength.max(strength);
    }
    if let Some(similarity) = rated_similarity {
        evidence = evidence.with_similarity(Some(similarity));
    }
    evidence
}

/// Step 5: `candidate` judged again on its `evidence` as rated: papers like the rejected ones or
/// with an excluded word fail the gate, and a paper whose percent moved says so.
pub fn rejudge(candidate: &Candidate, evidence: &Evidence, like_rejected: bool, excluded: bool) -> Candidate {
    let relevance = relevance(evidence);
    let mut reason = candidate.reason.clone();
    reason.rated = rating_move(candidate.relevance, relevance);
    Candidate {
        paper: candidate.paper.clone(),
        score: tie_break(evidence, candidate.score),
        relevance,
        reason,
        covers_key: evidence.covers_key() && !like_rejected && !excluded,
    }
}

/// Step 5: how the ratings moved a relevance, as the reader sees it (whole percent).
pub fn rating_move(before: f64, after: f64) -> Option<RatingMove> {
    let moved = i32::from(crate::digest::percent(after)) - i32::from(crate::digest::percent(before));
    if moved >= RATING_MOVE_PERCENT {
        Some(RatingMove::Raised)
    } else if moved <= -RATING_MOVE_PERCENT {
        Some(RatingMove::Lowered)
    } else {
        None
    }
}

/// A ranking a digest may choose from, as [`widen`] reads it.
pub trait Choosable {
    /// The ranking's scored entries (step 6), best first.
    fn scored(&self) -> &[crate::digest::DigestEntry];
    /// A fingerprint of the paper at `position` when its text is this week's (to count the
    /// week's papers a wider choice kept).
    fn this_week(&self, position: usize) -> Option<u64>;
}

impl<T: Choosable> Choosable for std::sync::Arc<T> {
    fn scored(&self) -> &[crate::digest::DigestEntry] {
        T::scored(self)
    }

    fn this_week(&self, position: usize) -> Option<u64> {
        T::this_week(self, position)
    }
}

/// Steps 7 and 8: the week's ranking `week` chosen for a reader (`was_sent`: a dedup key sent
/// before), and for an immediate digest (`immediate`) with too few papers, each wider window in
/// turn (`ranked_for(days)`), taken when it sends more or the week sends none. Answers the
/// ranking chosen from, the positions chosen, and how far it widened.
pub fn widen<R: Choosable, E>(
    week: R,
    immediate: bool,
    was_sent: impl Fn(&str) -> bool,
    mut ranked_for: impl FnMut(i64) -> Result<R, E>,
) -> Result<(R, Vec<usize>, Option<crate::digest::Widened>), E> {
    let mut positions = crate::digest::choose_unsent_positions(week.scored(), &was_sent);
    let this_week: std::collections::HashSet<u64> = positions.iter().filter_map(|&position| week.this_week(position)).collect();
    let mut ranked = week;
    let mut widened = None;
    if immediate {
        // The first digest of a topic is never empty when the literature has matches: a week
        // with too few looks back 30, then 90 days.
        for days in WIDER_WINDOWS_DAYS {
            if !needs_wider(positions.len()) {
                break;
            }
            let wider = ranked_for(days)?;
            let wider_positions = crate::digest::choose_unsent_positions(wider.scored(), &was_sent);
            if takes_wider(positions.len(), wider_positions.len()) {
                // The week's papers the wider choice kept: those its texts call new this week.
                let new_this_week =
                    wider_positions.iter().filter(|&&position| wider.this_week(position).is_some_and(|print| this_week.contains(&print))).count();
                (ranked, positions) = (wider, wider_positions);
                widened = Some(crate::digest::Widened { days, new_this_week });
            }
        }
    }
    Ok((ranked, positions, widened))
}

/// Step 8: whether a digest that would send `chosen` papers looks further back.
pub fn needs_wider(chosen: usize) -> bool {
    chosen < ENOUGH_PAPERS
}

/// Step 8: whether the wider window's choice (`wider_chosen` papers) replaces the current one
/// (`chosen`): it sends more, or the current one sends none (an empty digest then says how far
/// it searched).
pub fn takes_wider(chosen: usize, wider_chosen: usize) -> bool {
    wider_chosen > chosen || chosen == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::Source;

    fn evidence(strength: f64, similarity: Option<f32>) -> Evidence {
        Evidence { strength, ..Evidence::default() }.with_similarity(similarity)
    }

    #[test]
    fn the_nearest_papers_join_the_searched_ones_once() {
        assert_eq!(nearest_to_add(&[1, 2, 3], &[4, 2, 5, 1]), vec![4, 5]);
        assert_eq!(nearest_to_add::<u8>(&[], &[]), Vec::<u8>::new());
    }

    #[test]
    fn equals_are_ordered_by_the_fused_score_with_a_model_and_by_the_search_without() {
        assert_eq!(tie_break(&evidence(0.4, None), 7.5), 7.5);
        let fused = evidence(0.4, Some(0.8));
        assert_eq!(tie_break(&fused, 7.5), fused.score() as f32);
        assert!((fused.score() - ((1.0 - SIMILARITY_WEIGHT) * 0.4 + SIMILARITY_WEIGHT * 0.8)).abs() < 1e-6);
    }

    #[test]
    fn a_paper_that_matched_on_no_word_but_is_close_in_meaning_is_similar() {
        assert!(reason(MatchReason::default(), &evidence(0.0, Some(0.3)), Vec::new()).similar);
        assert!(!reason(MatchReason::default(), &evidence(0.0, Some(0.0)), Vec::new()).similar, "a cosine of 0 is not close");
        assert!(!reason(MatchReason::default(), &evidence(0.5, None), Vec::new()).similar, "no model, no similarity");
        let worded = MatchReason { terms: vec!["malaria".into()], ..MatchReason::default() };
        assert!(!reason(worded, &evidence(0.5, Some(0.9)), Vec::new()).similar, "it matched on a word");
        let shown = KeyEvidence { concept: "tuberculosis".into(), shown: crate::concepts::Shown::Variant("TB".into()) };
        let by_variant = reason(MatchReason::default(), &evidence(0.0, Some(0.6)), vec![shown.clone()]);
        assert!(!by_variant.similar, "it names its evidence instead");
        assert_eq!(by_variant.key_evidence, vec![shown]);
    }

    #[test]
    fn the_gate_and_the_floor_compose_and_ratings_can_only_close_the_gate() {
        let paper = Paper::new(Source::Pubmed, "A trial");
        let strong = evidence(0.95, None);
        let judged = judge(paper, 3.0, &strong, MatchReason::default());
        assert_eq!((judged.score, judged.covers_key), (3.0, strong.covers_key()));
        assert_eq!(judged.relevance, relevance(&strong));
        let rejected = rejudge(&judged, &strong, true, false);
        assert!(!rejected.covers_key, "like a rejected paper");
        assert!(!rejudge(&judged, &strong, false, true).covers_key, "an excluded word");
        assert_eq!(rejudge(&judged, &strong, false, false).covers_key, judged.covers_key);
        assert_eq!(rejudge(&judged, &strong, false, false).reason.rated, None, "unmoved");
        // Step 6 sends only what passes the gate at or above the floor.
        let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 27).expect("a date");
        let at = |relevance: f64, covers_key: bool| Candidate { relevance, covers_key, ..judged.clone() };
        assert_eq!(crate::digest::score(&[at(MIN_RELEVANCE, true)], today).len(), 1);
        assert!(crate::digest::score(&[at(MIN_RELEVANCE - 0.01, true)], today).is_empty(), "below the floor");
        assert!(crate::digest::score(&[at(0.99, false)], today).is_empty(), "outside the gate");
    }

    #[test]
    fn ratings_say_so_from_five_percent() {
        assert_eq!(rating_move(0.50, 0.55), Some(RatingMove::Raised));
        assert_eq!(rating_move(0.50, 0.54), None);
        assert_eq!(rating_move(0.50, 0.46), None);
        assert_eq!(rating_move(0.50, 0.45), Some(RatingMove::Lowered));
        let rated = rated_evidence(evidence(0.4, Some(0.2)), Some(0.3), Some(0.7));
        assert_eq!((rated.strength, rated.similarity), (0.4, Some(f64::from(0.7f32))), "the strength never falls");
        assert_eq!(rated_evidence(evidence(0.4, None), Some(0.6), None).strength, 0.6);
    }

    /// A ranking of entries keyed `keys`, those of `week` this week's.
    struct Listed(Vec<crate::digest::DigestEntry>, Vec<Option<u64>>);

    impl Choosable for Listed {
        fn scored(&self) -> &[crate::digest::DigestEntry] {
            &self.0
        }

        fn this_week(&self, position: usize) -> Option<u64> {
            self.1[position]
        }
    }

    fn listed(keys: &[&str], week: &[&str]) -> Listed {
        let entry = |key: &str| crate::digest::DigestEntry {
            title: key.to_owned(),
            url: None,
            authors: String::new(),
            journal: None,
            abstract_text: String::new(),
            source: Source::Pubmed,
            sources: vec![Source::Pubmed],
            relevance_score: 0.5,
            impact: 1.0,
            summary: String::new(),
            reason: String::new(),
            retracted: false,
            keys: vec![key.to_owned()],
            links: Vec::new(),
        };
        Listed(
            keys.iter().map(|key| entry(key)).collect(),
            keys.iter().map(|key| week.contains(key).then(|| key.len() as u64 * 31 + u64::from(key.as_bytes()[0]))).collect(),
        )
    }

    #[test]
    fn an_immediate_digest_widens_until_it_has_enough_and_says_how_many_are_this_weeks() {
        let asked = std::cell::RefCell::new(Vec::new());
        let wider = |days: i64| -> Result<Listed, ()> {
            asked.borrow_mut().push(days);
            Ok(if days == 30 { listed(&["a", "bb"], &["a"]) } else { listed(&["a", "bb", "c", "dd", "e", "ff"], &["a"]) })
        };
        let (ranked, positions, widened) = widen(listed(&["a"], &["a"]), true, |_| false, wider).expect("ranked");
        assert_eq!(*asked.borrow(), [30, 90], "two are not enough: it looks back 90 days too");
        assert_eq!((positions.len(), ranked.0.len()), (6, 6));
        assert_eq!(widened, Some(crate::digest::Widened { days: 90, new_this_week: 1 }));
        let (_, positions, widened) =
            widen(listed(&["a"], &["a"]), false, |_| false, |_| -> Result<Listed, ()> { panic!("a weekly digest never widens") }).expect("ranked");
        assert_eq!((positions, widened), (vec![0], None));
        let (_, positions, _) = widen(listed(&["a", "bb"], &[]), false, |key| key == "a", |_| -> Result<Listed, ()> { Err(()) }).expect("ranked");
        assert_eq!(positions, vec![1], "what was sent before is left out");
    }

    #[test]
    fn a_thin_week_looks_further_back_and_takes_the_wider_choice_when_it_sends_more() {
        assert!(needs_wider(0) && needs_wider(ENOUGH_PAPERS - 1) && !needs_wider(ENOUGH_PAPERS));
        assert!(takes_wider(1, 2));
        assert!(!takes_wider(2, 2));
        assert!(takes_wider(0, 0), "an empty digest says how far it searched");
    }
}
