//! search: the public face of the feature, what other features use — the progress dialog of the
//! immediate search and the call with its outcome and failure helpers.
export { ProcessingDialog } from "./ProcessingDialog";
export {
  classifySearchFailure,
  describeSearchOutcome,
  reportSearchFailure,
  runImmediateSearch,
  type ImmediateSearchAnswer,
} from "./immediateSearch";
