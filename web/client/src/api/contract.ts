// The API contract: generated from the server's wire types (web/src/wire, web/src/error.rs,
// web/src/contract.rs). Do not edit by hand; after changing a wire type, run
//   PAPERTIDE_UPDATE_CONTRACT=1 cargo test -p web --lib contract

export type ErrorCode = "bad_request" | "validation_failed" | "invalid_token" | "downgrade_not_offered" | "bad_signature" | "unauthorized" | "metrics_token_required" | "requires_payment" | "free_digests_used" | "card_declined" | "cross_site_request" | "account_deactivated" | "email_not_verified" | "requires_upgrade" | "not_your_account" | "not_your_address" | "requires_support" | "trigger_needs_paid_plan" | "operator_only" | "wrong_password" | "not_found" | "method_not_allowed" | "body_timeout" | "email_taken" | "term_already_followed" | "already_active" | "use_card_form" | "cannot_delete_self" | "cannot_demote_self" | "operator_by_settings" | "cannot_disable_self" | "already_verified" | "harvest_running" | "backup_dir_unset" | "backup_dest_not_empty" | "link_expired" | "digest_gone" | "term_gone" | "payload_too_large" | "rate_limited" | "internal" | "billing_disabled" | "webhook_failed" | "busy" | "too_many_connections" | "disk_full" | "payment_service_unavailable" | "http_error";

export type ErrorBody = { 
/**
 * `already_active`: the plan asked for is the user's.
 */
alreadyActive?: boolean, 
/**
 * `billing_disabled`: always `false`.
 */
billingEnabled?: boolean, code: ErrorCode, 
/**
 * `requires_payment`: the user's terms now.
 */
currentCount?: number, 
/**
 * A cancel refused until terms are deleted: the active terms now.
 */
currentSearchCount?: number, 
/**
 * `validation_failed`: every rejected field, in the form's order.
 */
errors?: Array<FieldErrorView>, message: string, requiresPayment?: boolean, requiresSearchDeletion?: boolean, requiresSupport?: boolean, 
/**
 * `email_not_verified`.
 */
requiresVerification?: boolean, 
/**
 * `card_declined` of a subscription that was made.
 */
subscriptionId?: string, 
/**
 * The verification link's refusals: `false`.
 */
success?: boolean, 
/**
 * `term_already_followed`: the term the user follows.
 */
termId?: string, 
/**
 * `already_active` and `use_card_form`: the plan asked for.
 */
tier?: Tier, };

export type FieldErrorView = { field: string, message: string, };

export type Tier = "free" | "pro" | "team";

export type Verdict = "relevant" | "notRelevant" | "moreLikeThis";

export type DeliveryDay = "sunday" | "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday";

export type Source = "pubmed" | "arxiv" | "biorxiv" | "medrxiv";

export type Done = { success: true, };

export type Message = { message: string, };

export type DoneWithMessage = { message: string, success: true, };

export type ClientConfig = { analytics: AnalyticsView | null, billingEnabled: boolean, 
/**
 * Whether paid plans get another chat model than the free plan
 * (`PAPERTIDE_LLM_MODEL_ADVANCED`): the plan cards promise one only then.
 */
advancedModel: boolean, 
/**
 * What each plan gives, as the plan cards list it.
 */
plans: Array<PlanEntitlements>, stripe: StripeView | null, supportEmail: string, };

export type AnalyticsView = { provider: string, scriptUrl: string, siteId: string, };

export type StripeView = { jsUrl: string, publishableKey: string, };

export type LoginRequest = { email?: string | null, password?: string | null, };

export type StandaloneSignupRequest = { email?: string | null, password?: string | null, confirmPassword?: string | null, researchField?: string | null, 
/**
 * The topic typed before signup.
 */
pendingSearch?: string | null, 
/**
 * Papers to seed the topic from.
 */
seeds?: SeedsRequest, };

export type CombinedSignupRequest = { email?: string | null, researchField?: string | null, password?: string | null, confirmPassword?: string | null, agreeToTerms?: boolean | null, agreeToPrivacy?: boolean | null, 
/**
 * The topic typed before signup.
 */
pendingSearch?: string | null, 
/**
 * Papers to seed the topic from.
 */
seeds?: SeedsRequest, };

export type EmailRequest = { email?: string | null, };

export type ResetPasswordRequest = { token?: string | null, password?: string | null, confirmPassword?: string | null, };

export type VerifyEmailQuery = { token?: string | null, };

export type UserView = { id: string, email: string, researchField: string | null, subscriptionTier: Tier, isActive: boolean, isEmailVerified: boolean, isUnlimited: boolean, isAdmin: boolean, stripeCustomerId?: string, lastDigestSentAt: string | null, 
/**
 * When the last digest received on the free plan went out.
 */
lastFreeSentAt: string | null, createdAt: string, 
/**
 * The topic typed before signup, until it has been searched.
 */
pendingSearch: string | null, 
/**
 * A free plan's digests used, of how many; `null` for paid plans.
 */
freeDigests: FreeDigests | null, 
/**
 * The paid plan that ended, until the next upgrade.
 */
planEnded: PlanEnded | null, };

export type FreeDigests = { used: number, total: number, };

export type PlanEnded = { tier: Tier, endedAt: string, cause: EndCause, 
/**
 * Terms turned off because the free plan allows fewer.
 */
inactiveTerms: number, };

export type EndCause = "canceled" | "not_paid";

export type MeAnswer = { user: UserView, };

export type SignupAnswer = { message: string, requiresVerification: true, 
/**
 * The papers found for the topic's seeds, saved with the account until the topic is made.
 */
seeded: Array<SeedPaperView>, user: UserView, };

export type VerifyEmailAnswer = { message: string, pendingSearch: string | null, success: true, user: UserView, };

export type LoginAnswer = { message: string, user: UserView, };

export type PreferencesView = { 
/**
 * The record's id (spec §3 user_preferences): a user has one record, under their own id.
 */
id: string, userId: string, includePubmed: boolean, includeArxiv: boolean, includeBiorxiv: boolean, weeklyDigest: boolean, dailyHighlights: boolean, deliveryDay: DeliveryDay, 
/**
 * The fields the user's plan does not let them change.
 */
locked: Array<LockedPreference>, };

export type LockedPreference = "includePubmed" | "includeArxiv" | "includeBiorxiv" | "deliveryDay";

export type PreferencesChange = { includePubmed?: boolean | null, includeArxiv?: boolean | null, includeBiorxiv?: boolean | null, weeklyDigest?: boolean | null, dailyHighlights?: boolean | null, deliveryDay?: DeliveryDay | null, };

export type TermStatus = "pending" | "processing" | "completed" | "failed";

export type SearchTermView = { id: string, userId: string, term: string, isActive: boolean, 
/**
 * Added on the free plan.
 */
isFree: boolean, status: TermStatus, lastProcessedAt: string | null, nextScheduledRun: string | null, createdAt: string, 
/**
 * Words whose papers the term does not want.
 */
exclude: Array<string>, };

export type TermChange = { term?: string | null, exclude?: Array<string> | null, };

export type TermDeleted = { id: string, success: true, };

export type RatingView = { paperKey: string, title: string, verdict: Verdict, digestId: string | null, ratedAt: string, 
/**
 * A paper the term was seeded from, not rated from a digest.
 */
seeded: boolean, };

export type RateRequest = { digestId: string, paperKey: string, verdict: Verdict, };

export type RemoveRatingQuery = { paperKey?: string | null, };

export type RatingLinkQuery = { token?: string | null, };

export type RatingLinkRequest = { token: string, };

export type RatingLinkView = { term: string, termId: string, title: string, paperKey: string, verdict: Verdict, 
/**
 * The paper's citation as meta tags (`citation_title`, `citation_author`, …) that reference
 * managers' browser connectors read: `[name, content]` pairs.
 */
citation: Array<[string, string]>, };

export type RatingLinkConfirmed = { rating: RatingLinkView, success: true, };

export type ImmediateSearchRequest = { email: string, searchTerm: string, 
/**
 * Papers to seed a new term from before its first digest is ranked.
 */
seeds?: SeedsRequest, };

export type ImmediateSearchAnswer = { 
/**
 * `null` when no digest was sent (a free plan's digests are used).
 */
digestId: string | null, digestSent: boolean, message: string, papersFound: number, searchTerm: string, 
/**
 * The papers the term was seeded from by this request.
 */
seeded: Array<SeedPaperView>, success: true, termId: string, };

export type ResendRequest = { searchTerm: string, };

export type ResendAnswer = { searchTerm: string, success: true, };

export type TestEmailRequest = { email?: string, 
/**
 * Read as text: a type of another name is refused with its own message.
 */
type?: TestMailKind, };

export type TestMailKind = "welcome" | "digest";

export type TriggerDigestAnswer = { digests: number, papersFound: number, success: true, };

export type DigestKind = "immediate" | "weekly";

export type DigestStatus = "sent";

export type DigestView = { 
/**
 * Line-separated.
 */
aiSummary: string, digestType: DigestKind, 
/**
 * For a digest without papers: why, in its mail's words (which source could not be reached
 * when it was sent is the mail's alone).
 */
emptyReason: string | null, id: string, papersData: Array<DigestPaper>, searchTerm: string, searchedAs: string | null, sentAt: string, 
/**
 * For an empty digest: the papers left out because an earlier digest sent them.
 */
sentBefore: number, status: DigestStatus, subject: string, 
/**
 * The user's term it was made for (its ratings are that term's, while that term lives);
 * `null` for a digest whose term was already deleted when digests first kept their term's id.
 */
termId: string | null, userId: string, 
/**
 * How far an immediate digest looked back when its week had too few papers.
 */
widened: Widened | null, };

export type DigestPaper = { abstract: string, authors: string, journal: string | null, 
/**
 * The paper's citation as a COinS OpenURL (the `title` of a `span.Z3988`), for reference
 * managers' browser connectors.
 */
coins: string, 
/**
 * (label, url) pairs.
 */
links: Array<[string, string]>, 
/**
 * What names the paper when it is rated (its first dedup key); absent when it has none.
 */
paperKey?: string, reason: string, 
/**
 * 0 to 1.
 */
relevanceScore: number, retracted: boolean, 
/**
 * The first source that reported it.
 */
source: Source, sources: Array<Source>, summary: string, title: string, url: string | null, };

export type Widened = { days: number, newThisWeek: number, };

export type PlanChoice = { 
/**
 * Read as text: a plan of another name is refused with its own message.
 */
tier?: PaidTier, 
/**
 * Step 2 of the card flow: the SetupIntent the browser confirmed.
 */
setupIntentId?: string, };

export type PaidTier = "pro" | "team";

export type CreateSubscriptionAnswer = { alreadyActive: boolean, clientSecret: string | null, 
/**
 * Step 2 only.
 */
paymentStatus?: string | null, 
/**
 * Step 2 only.
 */
state?: PaymentState | null, step?: SubscriptionStep, subscriptionId: string | null, tier: Tier, };

export type SubscriptionStep = "setup" | "subscription";

export type PaymentState = "success" | "failed" | "pending";

export type SubscriptionStatus = "pending" | "active" | "past_due" | "failed" | "canceled";

export type CheckoutSessionAnswer = { clientSecret: string, };

export type SessionQuery = { session_id?: string, };

export type SessionStatusAnswer = { payment_status: string, status: string | null, subscription_id: string | null, };

export type SubscriptionStatusAnswer = { 
/**
 * Why it failed, when it did.
 */
reason: string | null, state: PaymentState, 
/**
 * The tracking row's status.
 */
status: SubscriptionStatus, tier: Tier, };

export type CancelAnswer = { message: string, success: true, tier: Tier, };

export type FixSubscriptionAnswer = { changed: boolean, tier: Tier, };

export type WebhookStatusAnswer = { stripe: StripeCustomerView, user: BillingUserView, };

export type BillingUserView = { email: string, stripeCustomerId: string | null, stripeSubscriptionId: string | null, subscriptionTier: Tier, };

export type StripeCustomerView = { customerId: string | null, invoices: Array<InvoiceView>, subscriptions: Array<StripeSubscriptionView>, };

export type InvoiceView = { amount_due: number, amount_paid: number, 
/**
 * Unix seconds.
 */
created: number | null, currency: string, id: string, paid: boolean, status: string | null, };

export type StripeSubscriptionView = { id: string, status: string, tier: Tier | null, };

export type WebhookAnswer = { duplicate?: true, received: true, };

export type DataExport = { exportedAt: string, account: AccountExport, preferences: PreferencesExport, 
/**
 * Oldest first.
 */
searchTerms: Array<SearchTermView>, 
/**
 * Newest first, each with its papers.
 */
digests: Array<DigestExport>, 
/**
 * Newest first.
 */
ratings: Array<RatingExport>, 
/**
 * Oldest first.
 */
planHistory: Array<PlanChangeExport>, 
/**
 * What the plan history covers.
 */
planHistoryNote: string, 
/**
 * The paid subscriptions followed for the user, newest first.
 */
subscriptions: Array<SubscriptionExport>, };

export type AccountExport = { id: string, email: string, createdAt: string, plan: Tier, verified: boolean, researchField: string | null, lastDigestAt: string | null, stripeCustomerId: string | null, stripeSubscriptionId: string | null, 
/**
 * The address the account was created from, when it was kept.
 */
signupAddress: string | null, };

export type PreferencesExport = { includePubmed: boolean, includeArxiv: boolean, includeBiorxiv: boolean, weeklyDigest: boolean, dailyHighlights: boolean, deliveryDay: DeliveryDay, };

export type DigestExport = { id: string, kind: DigestKind, searchTerm: string, searchedAs: string | null, subject: string, sentAt: string, 
/**
 * Line-separated.
 */
aiSummary: string, papers: Array<PaperExport>, };

export type PaperExport = { title: string, authors: string, journal: string | null, source: Source, url: string | null, 
/**
 * (label, url) pairs.
 */
links: Array<[string, string]>, abstract: string, summary: string, reason: string, 
/**
 * 0 to 1.
 */
relevanceScore: number, retracted: boolean, };

export type RatingExport = { termId: string, 
/**
 * The term's words, when the term is still there.
 */
term: string | null, 
/**
 * The paper's identifier (`doi:…`, `pmid:…`).
 */
paper: string, title: string, verdict: Verdict, digestId: string | null, ratedAt: string, 
/**
 * A paper the term was seeded from.
 */
seeded: boolean, };

export type PlanReason = "operator" | "stripe" | "plan_ended" | "canceled" | "other";

export type PlanChangeExport = { at: string, from: Tier, to: Tier, reason: PlanReason, };

export type SubscriptionExport = { subscriptionId: string, plan: Tier, status: SubscriptionStatus, createdAt: string, updatedAt: string, };

export type DeleteAccountRequest = { password: string, };

export type AdminStats = { users: number, verified: number, disabled: number, free: number, pro: number, team: number, 
/**
 * Effective operators (granted, or by a verified address in the settings).
 */
operators: number, activeTerms: number, digestsSent: number, 
/**
 * The last 12 ISO weeks, oldest first, weeks without any included.
 */
signupsByWeek: Array<WeekCount>, digestsByWeek: Array<WeekCount>, };

export type WeekCount = { week: string, count: number, };

export type AdminUsersQuery = { 
/**
 * Part of the email, in any case.
 */
q?: string, 
/**
 * Read as text: a plan of another name is refused with its own message.
 */
plan?: Tier, verified?: boolean, page?: number, };

export type AdminUserPage = { users: Array<AdminUser>, 
/**
 * How many accounts match the filters, on every page.
 */
total: number, page: number, pageSize: number, };

export type AdminUser = { id: string, email: string, plan: Tier, verified: boolean, 
/**
 * An operator in effect: granted here or from the command line, or by the settings.
 */
operator: boolean, 
/**
 * Granted here or from the command line (what "remove operator" takes back).
 */
operatorGranted: boolean, 
/**
 * Named in the settings' admin emails (removed only there).
 */
operatorByEmail: boolean, disabled: boolean, createdAt: string, activeTerms: number, terms: number, digestsSent: number, lastDigestAt: string | null, stripeCustomerId: string | null, };

export type AdminPlanRequest = { 
/**
 * Read as text: a plan of another name is refused with its own message.
 */
plan: Tier, };

export type AdminOperatorRequest = { operator: boolean, };

export type AdminDisabledRequest = { disabled: boolean, };

export type AdminSources = { sources: Array<AdminSource>, index: AdminIndex, };

export type AdminSource = { source: Source, 
/**
 * Harvested by this service (`PAPERTIDE_HARVEST_SOURCES`).
 */
enabled: boolean, 
/**
 * The last day harvested completely.
 */
cursor: string | null, lastSuccessAt: string | null, lastErrorAt: string | null, lastError: string | null, 
/**
 * Papers in the index whose source date is within the last 7 days (`/healthz`'s
 * `papersThisWeek` counts the papers harvested this week).
 */
papersDatedLast7Days: number, 
/**
 * When the harvester runs next, if it runs here.
 */
nextRunAt: string | null, running: boolean, };

export type AdminIndex = { papers: number, 
/**
 * A paper reported by several sources counts for each.
 */
bySource: PapersBySource, vectors: AdminVectors, };

export type PapersBySource = { pubmed: number, arxiv: number, biorxiv: number, medrxiv: number, };

export type AdminVectors = { 
/**
 * None: no model is loaded, ranking is lexical.
 */
model: string | null, 
/**
 * What runs the model (`onnx-int8`, `onnx-fp32`, `candle`); none without a model.
 */
runtime: string | null, embedded: number, waiting: number, 
/**
 * Hours until every waiting paper has its vector, at the rate since start; none before the
 * first batch was timed.
 */
hoursLeft: number | null, };

export type AdminMail = { transport: MailTransportKind, smtp: SmtpStatus, 
/**
 * Mails waiting to be handed over.
 */
queued: number, 
/**
 * Mails given up for good, oldest first.
 */
dead: Array<DeadMail>, };

export type MailTransportKind = "smtp" | "outbox";

export type SmtpStatus = { state: SmtpState, lastSuccessAt: string | null, lastErrorAt: string | null, lastError: string | null, };

export type SmtpState = "ok" | "failing" | "idle";

export type DeadMail = { 
/**
 * The id the retry and drop routes name.
 */
id: string, to: string, subject: string, 
/**
 * When it was last tried (or queued, if never tried).
 */
failedAt: string, attempts: number, error: string | null, };

export type AdminBilling = { enabled: boolean, users: Array<AdminBillingUser>, };

export type AdminBillingUser = { id: string, email: string, plan: Tier, stripeCustomerId: string | null, 
/**
 * The newest tracked subscription (or the account's own, if none is tracked).
 */
subscriptionId: string | null, 
/**
 * The tracking's status.
 */
status: SubscriptionStatus | null, 
/**
 * Not stored with the tracking: known only from Stripe (the user's debug page).
 */
currentPeriodEnd: string | null, cancelAtPeriodEnd: boolean, };

export type SeedsRequest = { ids?: string, 
/**
 * The uploaded file's text.
 */
file?: string | null, };

export type SeedFoundIn = "index" | "source";

export type SeedPaperView = { 
/**
 * The identifier as the researcher gave it.
 */
givenAs: string, 
/**
 * What names the paper in the term's ratings.
 */
paperKey: string, title: string, authors: string, year: number | null, 
/**
 * The source that has it; `null` for a paper only Crossref knows.
 */
source: Source | null, foundIn: SeedFoundIn, };

export type SeedsAdded = { seeded: Array<SeedPaperView>, };

export type TermFeedView = { termId: string, term: string, url: string, };

export type FeedsView = { 
/**
 * Every digest of the user, newest first.
 */
digestsUrl: string, terms: Array<TermFeedView>, };

export type CitationFormat = "ris" | "bibtex";

export type CitationQuery = { format?: CitationFormat | null, };

export type PaperCitationQuery = { key?: string | null, format?: CitationFormat | null, };

export type CitationLinkQuery = { token?: string | null, format?: CitationFormat | null, };

export type ChannelRequest = { url: string, };

export type ChannelView = { host: string, connectedAt: string, lastPostedAt: string | null, 
/**
 * Posts that failed in a row (0 once one succeeds).
 */
failures: number, lastError: string | null, };

export type ChannelAnswer = { channel: ChannelView | null, };

export type AdminChannel = { userEmail: string, term: string, host: string, failures: number, lastError: string | null, lastPostedAt: string | null, 
/**
 * Digests waiting to be posted.
 */
pending: number, };

export type AdminChannels = { channels: Array<AdminChannel>, };

export type PlanEntitlements = { tier: Tier, maxSearchTerms: number, seeds: boolean, feeds: boolean, citations: boolean, labChannels: boolean, };

export type BackupRequest = { dest?: string | null, };

export type BackupReport = { 
/**
 * The backup's folder.
 */
path: string, createdAt: string, 
/**
 * The database's schema version.
 */
schemaVersion: number, 
/**
 * Bytes of the database's copy.
 */
storeBytes: number, 
/**
 * Bytes of the index's copy.
 */
indexBytes: number, 
/**
 * Files written, the manifest included.
 */
files: number, users: number, papers: number, tookMs: number, };

export type ApiContract = { 
/**
 * Every `/api` route, in registration order.
 */
routes: Array<RouteContract>, 
/**
 * Every error code and the status its answers have (`null`: the refusal's own status).
 */
errorCodes: Array<ErrorCodeContract>, 
/**
 * Where the TypeScript of every named type is served.
 */
typescript: string, };

export type RouteContract = { method: string, path: string, 
/**
 * Its JSON body, or for a `GET` or `DELETE` its query string; `null` when it reads neither.
 */
request: string | null, answer: string, };

export type ErrorCodeContract = { code: ErrorCode, status: number | null, };

export type OpenApiDocument = Record<string, unknown>;
