//! seeds: the public face of the feature, what the forms that seed a topic use — the field, the
//! list of papers found, and the request and errors the field's value makes.
export { SeedPapersField, SeedsFound } from "./SeedPapersField";
export {
  foundInLabel,
  hasSeeds,
  MAX_SEED_FILE_BYTES,
  NO_SEEDS,
  SEED_FILE_TOO_LARGE,
  seedErrors,
  seededFromLabel,
  seedsRequest,
  type SeedPaperView,
  type SeedsRequest,
  type SeedsValue,
} from "./seeds";
