//! legal: the public face of the feature, the static site screens the pages mount.
export { TermsOfService } from "./TermsOfService";
export { PrivacyPolicy } from "./PrivacyPolicy";
export { NotFoundScreen } from "./NotFoundScreen";
