// postIds.json is what the server reads to answer 404 for a post that does not exist.
import postIds from "./postIds.json";
import { blogPosts } from "./posts";

it("postIds.json lists exactly the blog's posts", () => {
  expect([...postIds].sort()).toEqual(blogPosts.map((post) => post.id).sort());
});
