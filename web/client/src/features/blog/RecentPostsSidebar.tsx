//! blog: the "Recent Posts" sidebar of a post page, the newest posts other than the current one.

import { Link } from "react-router-dom";
import { recentPosts } from "./posts";
import { formatPostDate } from "./PostMeta";

export function RecentPostsSidebar({ id, currentId, hidden }: { id: string; currentId: string; hidden: boolean }) {
  const posts = recentPosts(currentId);
  return (
    <aside id={id} aria-labelledby={`${id}-title`} hidden={hidden} className="lg:sticky lg:top-8 lg:self-start">
      <div className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        <h2 id={`${id}-title`} className="text-lg font-semibold text-slate-900">
          Recent Posts
        </h2>
        <ul className="mt-4 divide-y divide-slate-100">
          {posts.map((post) => (
            <li key={post.id} className="py-3 first:pt-0 last:pb-0">
              <Link to={`/blog/${post.id}`} className="font-medium leading-snug text-slate-900 hover:text-brand-700">
                {post.title}
              </Link>
              <p className="mt-1 text-sm text-slate-500">
                <time dateTime={post.date}>{formatPostDate(post.date)}</time>
              </p>
            </li>
          ))}
        </ul>
        <Link to="/blog" className="mt-5 inline-block text-sm font-medium text-brand-700 hover:underline">
          View all posts
        </Link>
      </div>
    </aside>
  );
}
