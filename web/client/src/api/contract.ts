// The API contract: generated from the server's wire types (web/src/wire, web/src/error.rs,
// web/src/contract.rs). Do not edit by hand; after changing a wire type, run
//   PAPERTIDE_UPDATE_CONTRACT=1 cargo test -p web --lib contract

export type ErrorCode = "bad_request" | "validation_failed" | "invalid_token" | "downgrade_not_offered" | "bad_signature" | "unauthorized" | "metrics_token_required" | "requires_payment" | "free_digests_used" | "card_declined" | "cross_site_request" | "account_deactivated" | "email_not_verified" | "requires_upgrade" | "not_your_account" | "not_your_address" | "requires_support" | "trigger_needs_paid_plan" | "operator_only" | "not_found" | "method_not_allowed" | "body_timeout" | "email_taken" | "term_already_followed" | "already_active" | "use_card_form" | "link_expired" | "digest_gone" | "term_gone" | "backup_dir_unset" | "backup_dest_not_empty" | "payload_too_large" | "rate_limited" | "internal" | "billing_disabled" | "busy" | "too_many_connections" | "disk_full" | "payment_service_unavailable" | "http_error";

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

export type ClientConfig = { analytics: AnalyticsView | null, billingEnabled: boolean, stripe: StripeView | null, supportEmail: string, };

export type AnalyticsView = { provider: string, scriptUrl: string, siteId: string, };

export type StripeView = { jsUrl: string, publishableKey: string, };

export type LoginRequest = { email?: string | null, password?: string | null, };

export type StandaloneSignupRequest = { email?: string | null, password?: string | null, confirmPassword?: string | null, researchField?: string | null, 
/**
 * The topic typed before signup.
 */
pendingSearch?: string | null, };

export type CombinedSignupRequest = { email?: string | null, researchField?: string | null, password?: string | null, confirmPassword?: string | null, agreeToTerms?: boolean | null, agreeToPrivacy?: boolean | null, 
/**
 * The topic typed before signup.
 */
pendingSearch?: string | null, };

export type EmailRequest = { email?: string | null, };

export type ResetPasswordRequest = { token?: string | null, password?: string | null, confirmPassword?: string | null, };

export type VerifyEmailQuery = { token?: string | null, };

export type UserView = { id: string, email: string, researchField: string | null, subscriptionTier: Tier, isActive: boolean, isEmailVerified: boolean, isUnlimited: boolean, isAdmin: boolean, stripeCustomerId?: string, lastDigestSentAt: string | null, createdAt: string, 
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

export type SignupAnswer = { message: string, requiresVerification: true, user: UserView, };

export type VerifyEmailAnswer = { message: string, pendingSearch: string | null, success: true, user: UserView, };

export type LoginAnswer = { message: string, user: UserView, };

export type PreferencesView = { userId: string, includePubmed: boolean, includeArxiv: boolean, includeBiorxiv: boolean, weeklyDigest: boolean, dailyHighlights: boolean, deliveryDay: DeliveryDay, 
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

export type RatingView = { paperKey: string, title: string, verdict: Verdict, digestId: string | null, ratedAt: string, };

export type RateRequest = { digestId: string, paperKey: string, verdict: Verdict, };

export type RemoveRatingQuery = { paperKey?: string | null, };

export type RatingLinkQuery = { token?: string | null, };

export type RatingLinkRequest = { token: string, };

export type RatingLinkView = { term: string, termId: string, title: string, paperKey: string, verdict: Verdict, };

export type RatingLinkConfirmed = { rating: RatingLinkView, success: true, };

export type ImmediateSearchRequest = { email: string, searchTerm: string, };

export type ImmediateSearchAnswer = { 
/**
 * `null` when no digest was sent (a free plan's digests are used).
 */
digestId: string | null, digestSent: boolean, message: string, papersFound: number, searchTerm: string, success: true, termId: string, };

export type ResendRequest = { searchTerm: string, };

export type ResendAnswer = { searchTerm: string, success: true, };

export type TestEmailRequest = { email?: string, 
/**
 * `welcome` or `digest`.
 */
type?: string, };

export type TriggerDigestAnswer = { digests: number, papersFound: number, success: true, };

export type DigestKind = "immediate" | "weekly";

export type DigestStatus = "sent";

export type DigestView = { 
/**
 * Line-separated.
 */
aiSummary: string, digestType: DigestKind, id: string, papersData: Array<DigestPaper>, searchTerm: string, searchedAs: string | null, sentAt: string, 
/**
 * For an empty digest: the papers left out because an earlier digest sent them.
 */
sentBefore: number, status: DigestStatus, subject: string, userId: string, 
/**
 * How far an immediate digest looked back when its week had too few papers.
 */
widened: Widened | null, };

export type DigestPaper = { abstract: string, authors: string, journal: string | null, 
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
 * `pro` or `team`.
 */
tier?: string, 
/**
 * Step 2 of the card flow: the SetupIntent the browser confirmed.
 */
setupIntentId?: string, };

export type CreateSubscriptionAnswer = { alreadyActive: boolean, clientSecret: string | null, 
/**
 * Step 2 only.
 */
paymentStatus?: string | null, 
/**
 * Step 2 only: `success`, `failed` or `pending`.
 */
state?: "success" | "failed" | "pending" | null, step?: SubscriptionStep, subscriptionId: string | null, tier: Tier, };

export type SubscriptionStep = "setup" | "subscription";

export type CheckoutSessionAnswer = { clientSecret: string, };

export type SessionQuery = { session_id?: string, };

export type SessionStatusAnswer = { payment_status: string, status: string | null, subscription_id: string | null, };

export type SubscriptionStatusAnswer = { 
/**
 * Why it failed, when it did.
 */
reason: string | null, state: "success" | "failed" | "pending", 
/**
 * The tracking row's status.
 */
status: "pending" | "active" | "past_due" | "failed" | "canceled", tier: Tier, };

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
