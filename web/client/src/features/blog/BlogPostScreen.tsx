//! blog: the /blog/{id} screen. A known id shows the post with a "Recent Posts" sidebar (shown by
//! default, toggled by "Hide Sidebar" / "Show Sidebar") and ends with the "Start Free Today" call
//! to action; the page metadata follows the post while it is mounted. An unknown id shows
//! "Post Not Found" with a link back to /blog.

import { Link } from "react-router-dom";
import { useSignal } from "@preact/signals-react";
import { useSignals } from "@preact/signals-react/runtime";
import { ButtonLink } from "@/components/layout/ButtonLink";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { Markdown } from "./markdown";
import { postMetadata, usePageMetadata } from "./metadata";
import { findPost } from "./posts";
import { PostByline, PostTags } from "./PostMeta";
import { RecentPostsSidebar } from "./RecentPostsSidebar";
import type { BlogPost } from "./types";

const SIDEBAR_ID = "recent-posts";

export function BlogPostScreen({ id }: { id: string | undefined }) {
  const post = findPost(id);
  if (!post) return <PostNotFound />;
  // Keyed so that moving to another post starts from its own state (sidebar shown, top of page).
  return <PostView key={post.id} post={post} />;
}

function PostView({ post }: { post: BlogPost }) {
  useSignals();
  const sidebarOpen = useSignal(true);
  usePageMetadata(postMetadata(post, window.location.origin));

  return (
    <main id="main" className="flex-1 bg-slate-50">
      <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12 lg:px-8">
        <div className="mb-6 flex flex-wrap items-center justify-between gap-3">
          <Link to="/blog" className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline">
            <span aria-hidden="true">←</span> Back to Blog
          </Link>
          <Button
            variant="outline"
            size="sm"
            aria-expanded={sidebarOpen.value}
            aria-controls={SIDEBAR_ID}
            onClick={() => {
              sidebarOpen.value = !sidebarOpen.value;
            }}
          >
            {sidebarOpen.value ? "Hide Sidebar" : "Show Sidebar"}
          </Button>
        </div>

        <div className={cn("grid gap-8", sidebarOpen.value && "lg:grid-cols-[minmax(0,1fr)_18rem]")}>
          <article
            aria-labelledby="post-title"
            className={cn(
              "min-w-0 rounded-xl border border-slate-200 bg-white px-5 py-8 shadow-sm sm:px-10 sm:py-10",
              !sidebarOpen.value && "mx-auto w-full max-w-3xl",
            )}
          >
            <header>
              <PostTags tags={post.tags} />
              <h1 id="post-title" className="mt-4 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
                {post.title}
              </h1>
              <PostByline post={post} className="mt-3" />
            </header>
            <Markdown source={post.content} className="mt-8" />
            <StartFreeCallToAction />
          </article>

          <RecentPostsSidebar id={SIDEBAR_ID} currentId={post.id} hidden={!sidebarOpen.value} />
        </div>
      </div>
    </main>
  );
}

function StartFreeCallToAction() {
  return (
    <section aria-labelledby="post-cta-title" className="mt-12 rounded-xl bg-brand-700 px-6 py-8 text-center text-white sm:px-10">
      <h2 id="post-cta-title" className="text-2xl font-semibold tracking-tight">
        Never miss an important paper
      </h2>
      <p className="mx-auto mt-3 max-w-xl text-brand-100">
        Papertide searches PubMed, arXiv, bioRxiv and medRxiv for your research topics and emails you a
        weekly digest with AI summaries. Your first search term is free, no credit card needed.
      </p>
      <ButtonLink to="/auth" variant="inverse" size="lg" className="mt-6 font-semibold shadow-sm">
        Start Free Today
      </ButtonLink>
    </section>
  );
}

function PostNotFound() {
  usePageMetadata({
    title: "Post Not Found | Papertide Blog",
    tags: [{ attribute: "name", key: "robots", content: "noindex" }],
  });

  return (
    <main id="main" className="flex-1 bg-slate-50">
      <div className="mx-auto max-w-xl px-4 py-20 sm:py-28">
        <div className="rounded-xl border border-slate-200 bg-white px-6 py-10 text-center shadow-sm">
          <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">Post Not Found</h1>
          <p className="mt-4 text-slate-600">
            We couldn't find the post you were looking for. It may have been moved or removed.
          </p>
          <ButtonLink to="/blog" className="mt-8">
            Back to Blog
          </ButtonLink>
        </div>
      </div>
    </main>
  );
}
