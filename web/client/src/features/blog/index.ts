//! blog: the public face of the feature, the two screens the pages mount.
export { BlogIndex } from "./BlogIndex";
export { BlogPostScreen } from "./BlogPostScreen";
