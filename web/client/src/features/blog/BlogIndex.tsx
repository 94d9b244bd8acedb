//! blog: the /blog screen, every post newest first with its date, author, tags, excerpt and a
//! "Read More" link to /blog/{id}.

import { Link } from "react-router-dom";
import { blogPosts } from "./posts";
import { usePageMetadata } from "./metadata";
import { PostByline, PostTags } from "./PostMeta";

const BLOG_DESCRIPTION =
  "Notes from the Papertide team on reading, writing and keeping up with research, and on the AI tools that help.";

export function BlogIndex() {
  usePageMetadata({
    title: "Blog | Papertide",
    description: BLOG_DESCRIPTION,
    canonicalUrl: `${window.location.origin}/blog`,
  });

  return (
    <main id="main" className="flex-1 bg-slate-50">
      <div className="mx-auto max-w-5xl px-4 py-12 sm:px-6 sm:py-16 lg:px-8">
        <header className="mx-auto max-w-2xl text-center">
          <p className="text-sm font-semibold uppercase tracking-wide text-brand-700">Blog</p>
          <h1 className="mt-2 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">The Papertide Blog</h1>
          <p className="mt-4 text-lg text-slate-600">{BLOG_DESCRIPTION}</p>
        </header>

        <ul className="mt-12 grid gap-6 md:grid-cols-2">
          {blogPosts.map((post) => (
            <li key={post.id} className="flex">
              <article
                aria-labelledby={`post-${post.id}-title`}
                className="flex w-full flex-col rounded-xl border border-slate-200 bg-white p-6 shadow-sm transition-shadow hover:shadow-md"
              >
                <PostTags tags={post.tags} />
                <h2 id={`post-${post.id}-title`} className="mt-4 text-xl font-semibold tracking-tight text-slate-900">
                  <Link to={`/blog/${post.id}`} className="hover:text-brand-700">
                    {post.title}
                  </Link>
                </h2>
                <PostByline post={post} className="mt-2" />
                <p className="mt-4 flex-1 leading-7 text-slate-600">{post.excerpt}</p>
                <Link
                  to={`/blog/${post.id}`}
                  className="mt-6 inline-flex items-center gap-1 self-start font-medium text-brand-700 hover:text-brand-900 hover:underline"
                >
                  Read More<span className="sr-only"> about {post.title}</span>
                  <span aria-hidden="true">→</span>
                </Link>
              </article>
            </li>
          ))}
        </ul>
      </div>
    </main>
  );
}
