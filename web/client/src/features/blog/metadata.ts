//! blog: page metadata (title, description, Open Graph, Twitter, article tags, canonical link)
//! for the blog screens. Guarantee: whatever a screen sets is undone when it unmounts; tags that
//! were in the document before (index.html's description) are put back as they were.

import { useEffect } from "react";
import type { BlogPost } from "./types";

export interface MetaTag {
  /** `name` for description and twitter:*, `property` for og:* and article:*. */
  attribute: "name" | "property";
  key: string;
  content: string;
}

export interface PageMetadata {
  title: string;
  description?: string;
  /** Absolute URL for <link rel="canonical">. */
  canonicalUrl?: string;
  /** Further tags; a key may repeat (one `article:tag` per tag). */
  tags?: MetaTag[];
}

const SITE_NAME = "Papertide";
const MANAGED_MARKER = "data-page-metadata";

/** The metadata of a post page; `origin` is `window.location.origin` in the browser. */
export function postMetadata(post: BlogPost, origin: string): PageMetadata {
  const url = `${origin}/blog/${post.id}`;
  return {
    title: `${post.title} | ${SITE_NAME} Blog`,
    description: post.excerpt,
    canonicalUrl: url,
    tags: [
      { attribute: "property", key: "og:title", content: post.title },
      { attribute: "property", key: "og:description", content: post.excerpt },
      { attribute: "property", key: "og:type", content: "article" },
      { attribute: "property", key: "og:url", content: url },
      { attribute: "property", key: "og:site_name", content: SITE_NAME },
      { attribute: "name", key: "twitter:card", content: "summary" },
      { attribute: "name", key: "twitter:title", content: post.title },
      { attribute: "name", key: "twitter:description", content: post.excerpt },
      { attribute: "property", key: "article:published_time", content: post.date },
      { attribute: "property", key: "article:author", content: post.author },
      ...post.tags.map((tag): MetaTag => ({ attribute: "property", key: "article:tag", content: tag })),
    ],
  };
}

/**
 * Applies `metadata` to `doc` and returns the function that undoes it: the title comes back,
 * the added tags go, and the tags they displaced return to <head>.
 */
export function applyPageMetadata(metadata: PageMetadata, doc: Document = document): () => void {
  const head = doc.head;
  const previousTitle = doc.title;
  doc.title = metadata.title;

  const metaTags: MetaTag[] = [
    ...(metadata.description ? [{ attribute: "name" as const, key: "description", content: metadata.description }] : []),
    ...(metadata.tags ?? []),
  ];

  const displaced: Element[] = [];
  for (const { attribute, key } of uniqueKeys(metaTags)) {
    const existing = Array.from(head.querySelectorAll("meta")).filter((el) => el.getAttribute(attribute) === key);
    displaced.push(...existing);
  }
  if (metadata.canonicalUrl) {
    displaced.push(...Array.from(head.querySelectorAll('link[rel="canonical"]')));
  }
  displaced.forEach((el) => el.remove());

  const added: Element[] = metaTags.map(({ attribute, key, content }) => {
    const el = doc.createElement("meta");
    el.setAttribute(attribute, key);
    el.setAttribute("content", content);
    el.setAttribute(MANAGED_MARKER, "");
    return el;
  });
  if (metadata.canonicalUrl) {
    const link = doc.createElement("link");
    link.setAttribute("rel", "canonical");
    link.setAttribute("href", metadata.canonicalUrl);
    link.setAttribute(MANAGED_MARKER, "");
    added.push(link);
  }
  added.forEach((el) => head.appendChild(el));

  return () => {
    added.forEach((el) => el.remove());
    displaced.forEach((el) => head.appendChild(el));
    doc.title = previousTitle;
  };
}

/** Keeps `metadata` applied while the calling component is mounted. */
export function usePageMetadata(metadata: PageMetadata): void {
  // Callers build a fresh object each render; the serialised form is what decides a re-apply.
  const serialised = JSON.stringify(metadata);
  useEffect(() => applyPageMetadata(JSON.parse(serialised) as PageMetadata), [serialised]);
}

function uniqueKeys(tags: MetaTag[]): Array<Pick<MetaTag, "attribute" | "key">> {
  const seen = new Set<string>();
  const keys: Array<Pick<MetaTag, "attribute" | "key">> = [];
  for (const { attribute, key } of tags) {
    const id = `${attribute}=${key}`;
    if (seen.has(id)) continue;
    seen.add(id);
    keys.push({ attribute, key });
  }
  return keys;
}
