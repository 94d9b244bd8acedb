//! blog: the four posts of the Papertide blog and the look-ups the screens need.
//! Content is written in the markdown dialect of `markdown.tsx`; the post title is the page's h1,
//! so bodies start their headings at `##`.

import type { BlogPost } from "./types";

export const BLOG_AUTHOR = "The Papertide Team";

const howToWriteReviewArticle: BlogPost = {
  id: "how-to-write-review-article",
  title: "How to Write a Review Article",
  date: "2025-06-24",
  author: BLOG_AUTHOR,
  excerpt:
    "A good review article saves its readers months of reading. Here is a practical, step-by-step way to scope, search, organise and write one without drowning in the literature.",
  tags: ["Writing", "Academic Publishing", "Literature Review"],
  content: `A good review article is one of the most useful things a researcher can publish. It takes a field that has grown in a hundred directions and gives readers a map: what is known, what is disputed, and where the open questions are. It is also one of the easiest things to get lost in. Here is the process we recommend.

## 1. Pick a question, not a topic

"CRISPR" is a topic. "How reliable are CRISPR off-target prediction tools in primary human cells?" is a question. A question tells you which papers belong in the review and, just as importantly, which do not. Write it down in one sentence and keep it in front of you.

## 2. Search systematically

Decide where you will look before you start looking. For most biomedical questions that means **PubMed** plus the preprint servers (**bioRxiv** and **medRxiv**); for computational work, add **arXiv**. For each source:

- write down the exact query you used and the date you ran it,
- note how many results came back,
- export everything to a reference manager before you start screening.

If your review will take months, set up an alert for the same queries so that papers published while you write do not slip past you.

## 3. Screen in two passes

First pass: titles and abstracts only, with generous inclusion. Second pass: full texts, with the criteria you wrote down in step 1. Keep a simple log of why each excluded paper was excluded. Reviewers will ask, and you will forget.

## 4. Organise before you write

Group the included papers by the claim they support, not by the order you found them in. A table with one row per study (design, sample, main finding, limitations) makes patterns and contradictions visible at a glance.

### A structure that works

- **Introduction**: why the question matters now.
- **Methods**: how you searched and screened.
- **Body**: one section per theme, each ending with what remains uncertain.
- **Outlook**: the experiments or analyses that would settle the open questions.

## 5. Write for the newcomer

The best reviews are read by people entering the field. Define your terms, explain *why* results disagree rather than only *that* they disagree, and resist citing every paper you read. Synthesis is the point; a list of summaries is not a review.

## 6. Keep it current

A review is out of date the week it is accepted. Before you submit, rerun your searches and check for anything new, and keep the alerts running through revision so that you can answer a reviewer who asks about last month's preprint.`,
};

const scoopedByTimeTraveler: BlogPost = {
  id: "scooped-by-time-traveler",
  title: "I Was Scooped by a Time Traveler",
  date: "2025-07-08",
  author: BLOG_AUTHOR,
  excerpt:
    "Three years of work, one beautiful result, and a paper that already existed. A cautionary tale about temporal paradoxes, preprint servers and checking the literature more than once.",
  tags: ["Humor", "Research Life", "Preprints"],
  content: `Every researcher knows the fear of being scooped. You spend years on a project, and the week before you submit, someone else publishes the same result. It is painful, but at least it is ordinary. What happened to our friend Dr. M. (not her real initial) was not ordinary.

## The discovery

Dr. M. had spent three years characterising a protein she had, with some pride, named *Chronokinase*. Her data were clean, her figures were beautiful, and her manuscript was ready. The night before submission she ran one last literature search, just to be safe.

The top hit was a paper describing Chronokinase. Her Chronokinase. Same name, same structure, same figures, down to the slightly crooked scale bar in panel 3C.

The paper was dated **fourteen months in the future**.

## The five stages of temporal grief

- **Denial.** "It is a database error."
- **Anger.** "Who peer-reviews a paper that has not been written yet?"
- **Bargaining.** "If I submit tonight, does that make me the time traveler?"
- **Depression.** "Even my future self could not be bothered to cite me."
- **Acceptance.** "At least reviewer 2 is finally happy."

## What the experts say

We asked a philosopher of science whether a paper can scoop itself. She said the question was "fascinating" and "not a priority for funding". A journal editor told us that their policy on prior publication "does not currently distinguish between the past and the future", and that they would "look into it next quarter, or possibly last quarter".

## The lessons

Time travel remains, to our knowledge, out of reach. Being scooped by someone in the present is not, and most of it is avoidable:

1. **Search early and search often.** The literature moves every week, not every year.
2. **Watch the preprint servers.** A large share of new results appears on bioRxiv, medRxiv and arXiv months before it reaches a journal.
3. **Automate the boring part.** Nobody remembers to rerun the same ten queries every Monday. Software does.

As for Dr. M., she submitted anyway. Her paper was accepted fourteen months later, and the mysterious future version quietly vanished from the database. Her lab now has a strict policy: no more naming proteins after units of time.`,
};

const aiKeepingUpResearch: BlogPost = {
  id: "ai-keeping-up-research",
  title: "How AI Helps You Keep Up with Research",
  date: "2025-07-22",
  author: BLOG_AUTHOR,
  excerpt:
    "Thousands of papers appear every day across PubMed, arXiv, bioRxiv and medRxiv. Here is how AI-assisted search, ranking and summarisation can turn that flood into a short weekly read.",
  tags: ["AI", "Productivity", "Literature Search"],
  content: `PubMed alone adds well over a million records a year, and the preprint servers add many more. No one can read everything in their field any more; most of us cannot even read the titles. The real question is not how to read more, but how to read *the right* papers, and that is where AI earns its place.

## Finding what a keyword search misses

A plain keyword search only finds the words you typed. Researchers describe the same idea in many ways: an acronym in one paper, a spelled-out name in another, a related technique in a third. **Query expansion** adds synonyms, acronyms and closely related phrases to your research topic, so that a search for "single-cell RNA sequencing" also catches papers that only say "scRNA-seq".

## Ranking by relevance, not by date

Once the candidates are found, the hard part is ordering them. Useful ranking combines several signals:

- how closely the title and abstract match your topic,
- the kind of publication (a randomised trial, a review, a preprint),
- how recent it is,
- whether you have already seen it.

A relevance score will never be perfect, but it only has to be good enough to put the ten papers you need above the hundred you do not.

## Summaries you can skim

A short summary of each paper, and a paragraph on what the week's papers have in common, lets you decide in seconds which abstracts to open. Summaries are a filter, not a substitute: **always read the paper before you cite it**, because an AI summary can miss a caveat or get a number wrong.

## A weekly rhythm

The most effective habit we know is a fixed one. Pick your topics, let the search run once a week, and spend twenty minutes with the results over coffee. That is exactly what Papertide does: it watches PubMed, arXiv, bioRxiv and medRxiv for your search terms and emails you one digest a week, ranked and summarised.

If you are starting a review, this rhythm pairs well with a systematic search; see [our guide to writing a review article](/blog/how-to-write-review-article) for the rest of the process.`,
};

const llmScientificReview: BlogPost = {
  id: "llm-scientific-review",
  title: "Large Language Models in Scientific Review: Promise and Pitfalls",
  date: "2025-08-05",
  author: BLOG_AUTHOR,
  excerpt:
    "Language models can check references, summarise manuscripts and flag missing controls. They can also invent citations with total confidence. Where do they help peer review, and where should they stay out?",
  tags: ["AI", "Peer Review", "LLMs"],
  content: `Peer review is under strain. Submissions keep rising, reviewers are overcommitted, and turnaround times stretch to months. It is no surprise that editors and reviewers are asking whether large language models (LLMs) can carry part of the load. Our view: they can help with specific, checkable tasks, and they should not be trusted with judgement.

## Where LLMs help

- **Summarising a manuscript** so a handling editor can match it to the right reviewers faster.
- **Checking the mechanics**: consistency between the abstract and the results, figures referenced in the text, units, and statistical tests named but not reported.
- **Reference hygiene**: flagging citations that do not exist, are retracted, or do not appear to support the sentence they are attached to.
- **Language support** for authors writing in their second or third language, which levels a field that has long rewarded fluent English.

What these tasks have in common is that a human can verify the output quickly. A flagged inconsistency is either there or it is not.

## Where they fall short

LLMs predict plausible text. That makes them fluent, and it also makes them confidently wrong. In review, the known failure modes are serious:

- **Fabrication.** A model may cite a paper that was never written, or describe a result a paper never reported.
- **Shallow criticism.** Generic comments ("the sample size may be limited") can crowd out the specific, expert objection that actually matters.
- **Novelty blindness.** A model trained on yesterday's literature is poorly placed to judge what is genuinely new.
- **Confidentiality.** Pasting an unpublished manuscript into a third-party service may breach the journal's confidentiality rules. Many journals now forbid it outright.

## A sensible division of labour

Use LLMs as an assistant that prepares the ground: a summary, a checklist, a list of things to verify. Keep the decisions (is this correct, is it important, should it be published) with people who are accountable for them. And disclose the use, as you would any other tool.

## What this means for your reading

The same principle applies beyond review. At Papertide we use AI to expand your search terms, rank new papers and write short summaries, because those are tasks where a quick human check is enough. *Deciding what a paper means* is still your job, and we think it should stay that way.`,
};

/** All posts, newest first. */
export const blogPosts: readonly BlogPost[] = [
  llmScientificReview,
  aiKeepingUpResearch,
  scoopedByTimeTraveler,
  howToWriteReviewArticle,
];

export function findPost(id: string | undefined): BlogPost | undefined {
  if (!id) return undefined;
  return blogPosts.find((post) => post.id === id);
}

/** The newest posts other than `currentId`, for the "Recent Posts" sidebar. */
export function recentPosts(currentId: string, limit = 3): BlogPost[] {
  return blogPosts.filter((post) => post.id !== currentId).slice(0, limit);
}
