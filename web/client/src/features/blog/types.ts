//! blog: the shape of a post (spec §3 "Blog post").

export interface BlogPost {
  /** The URL segment: the post lives at /blog/{id}. */
  id: string;
  title: string;
  /** Publication date, ISO 8601 calendar date (YYYY-MM-DD). */
  date: string;
  author: string;
  /** One or two sentences, shown on the list and used as the page description. */
  excerpt: string;
  /** The body in the small markdown dialect of `markdown.tsx`. */
  content: string;
  tags: string[];
}
