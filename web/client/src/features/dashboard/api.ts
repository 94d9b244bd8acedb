// The dashboard's calls of spec §7 and the shapes it reads. Each is a thin wrapper over the
// shared api module; failures are ApiErrors (spec §8) that the cards turn into toasts.
import type {
  CancelAnswer,
  ChannelRequest,
  ChannelAnswer,
  ChannelView,
  CitationFormat,
  DeliveryDay,
  DigestPaper as DigestPaperView,
  DigestView,
  Done,
  FeedsView,
  Message,
  PreferencesChange as PreferencesChangeRequest,
  PreferencesView,
  RateRequest,
  RatingView,
  ResendAnswer,
  ResendRequest,
  SearchTermView,
  SeedsAdded,
  SeedsRequest,
  Source,
  TermChange,
  TermDeleted,
  TermStatus,
  Tier,
  Verdict,
} from "@/api/contract";
import { apiRequest, fetchFile, getJson, postJson } from "@/lib/api";

export type { ChannelView, CitationFormat, DeliveryDay, FeedsView, SeedsAdded, SeedsRequest, TermStatus, Verdict };

/** A search term (spec §3 search_terms), as the dashboard keeps it. */
export type SearchTerm = Omit<SearchTermView, "status" | "exclude"> & {
  status: TermStatus;
  /** Words whose papers the term does not want. */
  exclude?: SearchTermView["exclude"];
};

export const VERDICTS: ReadonlyArray<{ verdict: Verdict; label: string }> = [
  { verdict: "relevant", label: "Relevant" },
  { verdict: "notRelevant", label: "Not relevant" },
  { verdict: "moreLikeThis", label: "More like this" },
];

/** "Relevant", "Not relevant", "More like this". */
export function verdictLabel(verdict: Verdict): string {
  return VERDICTS.find((known) => known.verdict === verdict)?.label ?? verdict;
}

/** A rating of a term's paper, newest first in a term's list. */
export type Rating = RatingView;

export const DELIVERY_DAYS: readonly DeliveryDay[] = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

/** Mail preferences (spec §3 user_preferences), as the plan lets them apply. */
export type Preferences = PreferencesView;

/** The preferences the dashboard changes, each sent only when changed (a `PreferencesChange`). */
export type PreferencesChange = Partial<Pick<Preferences, "weeklyDigest" | "deliveryDay" | "includePubmed" | "includeArxiv" | "includeBiorxiv">>;

export type PaperSource = Source;

/** A paper in a digest (spec §3 Paper), as the dashboard reads it: what it shows is required. */
export type DigestPaper = Pick<DigestPaperView, "title" | "url" | "authors" | "journal" | "abstract" | "relevanceScore"> &
  Partial<Pick<DigestPaperView, "sources" | "summary" | "reason" | "retracted" | "links" | "paperKey" | "coins">> & {
    source: PaperSource;
  };

/** A sent digest (spec §3 email_digests), as the dashboard reads it. */
export type EmailDigest = Pick<DigestView, "id" | "userId" | "searchTerm" | "sentAt"> & {
  digestType: DigestView["digestType"];
  /** The spec lets this be a JSON string or an array; read it with `digestPapers`. */
  papersData: DigestPaper[] | string;
  /** The expanded query the papers were found with. */
  searchedAs?: DigestView["searchedAs"];
  /** An immediate digest whose week had too few papers looked further back (30 or 90 days). */
  widened?: DigestView["widened"];
  /** A digest without papers: why, in its mail's words. */
  emptyReason?: DigestView["emptyReason"];
  /** Line-separated. */
  aiSummary: DigestView["aiSummary"] | null;
  subject?: DigestView["subject"];
  status?: DigestView["status"];
  /** The user's term it was made for (by id); null when it was deleted before digests kept it. */
  termId?: DigestView["termId"];
};

/** What a widened digest says first (the same words as its mail). */
export function widenedNote(widened: EmailDigest["widened"]): string | null {
  if (!widened) return null;
  const { days, newThisWeek } = widened;
  if (newThisWeek === 0) return `Nothing new this week; the most relevant from the last ${days} days.`;
  if (newThisWeek === 1) return `Only one new paper this week; with it, the most relevant from the last ${days} days.`;
  return `Only ${newThisWeek} new papers this week; with them, the most relevant from the last ${days} days.`;
}

/**
 * How many papers a digest has, as its mail's subject counts them: "3 papers", "1 paper", or for
 * a digest without papers "No new papers this week". A widened digest's papers are its window's,
 * so it says how many are the week's ("3 papers (2 new this week)") or which window they are from
 * ("3 papers from the last 30 days"), and never calls them this week's when they are not.
 */
export function paperCountLabel(count: number, widened: EmailDigest["widened"]): string {
  const papers = count === 1 ? "1 paper" : `${count} papers`;
  if (!widened) return count === 0 ? "No new papers this week" : papers;
  if (count === 0) return `No new papers in the last ${widened.days} days`;
  if (widened.newThisWeek === 0) return `${papers} from the last ${widened.days} days`;
  return `${papers} (${widened.newThisWeek} new this week)`;
}

/**
 * What the digest dialog says of a digest without papers: why, as its mail said it (nothing
 * matched closely enough, or every match was sent before); the window it searched when the
 * server gave no reason.
 */
export function noPapersMessage(digest: Pick<EmailDigest, "widened" | "emptyReason">): string {
  if (digest.emptyReason) return digest.emptyReason;
  return digest.widened ? `No new papers matched in the last ${digest.widened.days} days.` : "No new papers matched this week.";
}

/** The papers of a digest, whichever form `papersData` came in; unreadable data is no papers. */
export function digestPapers(digest: EmailDigest): DigestPaper[] {
  if (Array.isArray(digest.papersData)) return digest.papersData;
  try {
    const parsed: unknown = JSON.parse(digest.papersData);
    return Array.isArray(parsed) ? (parsed as DigestPaper[]) : [];
  } catch {
    return [];
  }
}

/** Search terms each plan may keep (spec §9); team users needing more contact support. */
export const TERM_LIMITS: Record<Tier, number> = { free: 1, pro: 5, team: 10 };

/** Digests listed on the dashboard (spec §9). */
export const RECENT_DIGESTS = 3;

const userPath = (userId: string, rest: string) => `/api/users/${encodeURIComponent(userId)}/${rest}`;

export const fetchSearchTerms = (userId: string) => getJson<SearchTermView[]>(userPath(userId, "search-terms"));
export const fetchPreferences = (userId: string) => getJson<PreferencesView>(userPath(userId, "preferences"));
/** Newest first. */
export const fetchDigests = (userId: string) => getJson<DigestView[]>(userPath(userId, "digests"));

export function updatePreferences(userId: string, change: PreferencesChange): Promise<PreferencesView> {
  const request: PreferencesChangeRequest = change;
  return apiRequest<PreferencesView>("PATCH", userPath(userId, "preferences"), request);
}

export const updateSearchTerm = (termId: string, change: TermChange) =>
  apiRequest<SearchTermView>("PATCH", `/api/search-terms/${encodeURIComponent(termId)}`, change);

const ratingsPath = (termId: string) => `/api/search-terms/${encodeURIComponent(termId)}/ratings`;

/** A term's ratings, newest first. */
export const fetchRatings = (termId: string) => getJson<Rating[]>(ratingsPath(termId));

export const ratePaper = (termId: string, digestId: string, paperKey: string, verdict: Verdict) =>
  apiRequest<RatingView>("PUT", ratingsPath(termId), { digestId, paperKey, verdict } satisfies RateRequest);

export const removeRating = (termId: string, paperKey: string) =>
  apiRequest<Done>("DELETE", `${ratingsPath(termId)}?paperKey=${encodeURIComponent(paperKey)}`);

export const deleteSearchTerm = (termId: string) => apiRequest<TermDeleted>("DELETE", `/api/search-terms/${encodeURIComponent(termId)}`);

/** Mails the latest digest of `searchTerm` again. */
export const resendDigest = (searchTerm: string) => postJson<ResendAnswer>("/api/resend-email", { searchTerm } satisfies ResendRequest);

/** Moves a paid plan back to free; refused with `requiresSearchDeletion` while >1 term is active. */
export const cancelSubscription = () => postJson<CancelAnswer>("/api/cancel-subscription");

/** The user's own data as a file (GET /api/users/{id}/export), named as the server names it. */
export const downloadMyData = (userId: string) => fetchFile(userPath(userId, "export"), "papertide-data.json");

/** Deletes the signed-in user's account after checking `password`; the session ends with it. */
export const deleteMyAccount = (userId: string, password: string) => postJson<Message>(userPath(userId, "delete"), { password });

/** Seeds a term from papers the user knows (a bad one refuses them all: 400 with a message per line). */
export const addSeeds = (termId: string, seeds: SeedsRequest) =>
  postJson<SeedsAdded>(`/api/search-terms/${encodeURIComponent(termId)}/seeds`, seeds satisfies SeedsRequest);

/** The user's private Atom feeds: every digest, and each term's. */
export const fetchFeeds = () => getJson<FeedsView>("/api/feeds");

/** New addresses for every feed; the old ones stop working. */
export const renewFeeds = () => postJson<FeedsView>("/api/feeds/renew");

/** The citation formats offered, as their links name them. */
export const CITATION_FORMATS: ReadonlyArray<{ format: CitationFormat; label: string }> = [
  { format: "ris", label: "RIS" },
  { format: "bibtex", label: "BibTeX" },
];

/** A digest's papers as a citation file (the server names it, e.g. papertide-<term>-<date>.ris). */
export const digestCitationsUrl = (digestId: string, format: CitationFormat) =>
  `/api/digests/${encodeURIComponent(digestId)}/citations?format=${format}`;

/** Every paper of a term's digests as a citation file. */
export const termCitationsUrl = (termId: string, format: CitationFormat) =>
  `/api/search-terms/${encodeURIComponent(termId)}/citations?format=${format}`;

/** One paper of the user's digests as a citation file. */
export const paperCitationUrl = (paperKey: string, format: CitationFormat) =>
  `/api/papers/citation?${new URLSearchParams({ key: paperKey, format }).toString()}`;

const channelPath = (termId: string) => `/api/search-terms/${encodeURIComponent(termId)}/channel`;

/** A term's lab channel, or null (Team plan or operators; others get 403 `requires_upgrade`). */
export const fetchChannel = async (termId: string): Promise<ChannelView | null> =>
  (await getJson<ChannelAnswer>(channelPath(termId))).channel;

/** Connects (or replaces) a term's lab channel: an https incoming webhook. */
export const connectChannel = (termId: string, url: string) => apiRequest<ChannelView>("PUT", channelPath(termId), { url } satisfies ChannelRequest);

export const disconnectChannel = (termId: string) => apiRequest<Done>("DELETE", channelPath(termId));

/** Posts a test message now; a refusal's message says what the webhook answered. */
export const testChannel = (termId: string) => postJson<Done>(`${channelPath(termId)}/test`);
