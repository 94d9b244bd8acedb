import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { BlogPage } from "@/pages/Blog";
import { BlogPostPage } from "@/pages/BlogPost";
import { blogPosts, findPost } from "./posts";

const POST_IDS = ["how-to-write-review-article", "scooped-by-time-traveler", "ai-keeping-up-research", "llm-scientific-review"];

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/blog" element={<BlogPage />} />
        <Route path="/blog/:id" element={<BlogPostPage />} />
        <Route path="/auth" element={<h1>Auth screen</h1>} />
      </Routes>
    </MemoryRouter>,
  );
}

function metaContent(attribute: "name" | "property", key: string): Array<string | null> {
  return Array.from(document.head.querySelectorAll("meta"))
    .filter((el) => el.getAttribute(attribute) === key)
    .map((el) => el.getAttribute("content"));
}

function canonicalHrefs(): Array<string | null> {
  return Array.from(document.head.querySelectorAll('link[rel="canonical"]')).map((el) => el.getAttribute("href"));
}

afterEach(() => {
  cleanup(); // let mounted pages undo their metadata first
  document.head.querySelectorAll("meta, link").forEach((el) => el.remove());
  document.title = "";
});

describe("the post data", () => {
  it("has exactly the four spec ids, newest first, all by The Papertide Team", () => {
    expect([...blogPosts.map((post) => post.id)].sort()).toEqual([...POST_IDS].sort());
    const dates = blogPosts.map((post) => post.date);
    expect(dates).toEqual([...dates].sort().reverse());
    for (const post of blogPosts) {
      expect(post.author).toBe("The Papertide Team");
      expect(post.tags.length).toBeGreaterThan(0);
      expect(post.content.split(/\s+/).length).toBeGreaterThan(250);
    }
  });
});

describe("/blog", () => {
  it("lists the four posts with date, author, tags, excerpt and a Read More link to each", () => {
    renderAt("/blog");
    expect(screen.getByRole("heading", { level: 1, name: "The Papertide Blog" })).toBeInTheDocument();

    const cards = screen.getAllByRole("article");
    expect(cards).toHaveLength(4);
    for (const card of cards) {
      const title = within(card).getByRole("heading", { level: 2 }).textContent ?? "";
      const post = blogPosts.find((candidate) => candidate.title === title);
      expect(post).toBeDefined();
      if (!post) continue;
      expect(within(card).getByText(post.excerpt)).toBeInTheDocument();
      expect(within(card).getByText("The Papertide Team")).toBeInTheDocument();
      expect(within(card).getByRole("list", { name: "Tags" })).toHaveTextContent(post.tags[0]);
      expect(within(card).getByRole("link", { name: /^Read More/ })).toHaveAttribute("href", `/blog/${post.id}`);
    }

    const readMoreTargets = screen.getAllByRole("link", { name: /^Read More/ }).map((link) => link.getAttribute("href"));
    expect([...readMoreTargets].sort()).toEqual(POST_IDS.map((id) => `/blog/${id}`).sort());
  });

  it("shows dates as 'MMMM d, yyyy'", () => {
    renderAt("/blog");
    const post = findPost("scooped-by-time-traveler");
    expect(post?.date).toBe("2025-07-08");
    const card = screen.getByRole("article", { name: post?.title });
    expect(within(card).getByText("July 8, 2025")).toHaveAttribute("datetime", "2025-07-08");
  });

  it("opens a post from Read More", async () => {
    const user = userEvent.setup();
    renderAt("/blog");
    await user.click(screen.getByRole("link", { name: "Read More about I Was Scooped by a Time Traveler" }));
    expect(screen.getByRole("heading", { level: 1, name: "I Was Scooped by a Time Traveler" })).toBeInTheDocument();
  });
});

describe("/blog/:id", () => {
  it.each(POST_IDS)("renders %s with its title and markdown body", (id) => {
    const post = findPost(id);
    renderAt(`/blog/${id}`);
    expect(screen.getByRole("heading", { level: 1, name: post?.title })).toBeInTheDocument();
    const article = screen.getByRole("article");
    expect(within(article).getAllByRole("heading", { level: 2 }).length).toBeGreaterThan(1);
    expect(within(article).getByText("The Papertide Team")).toBeInTheDocument();
  });

  it("sets title, description, Open Graph, Twitter, article and canonical metadata", () => {
    const post = findPost("llm-scientific-review");
    if (!post) throw new Error("post missing");
    renderAt("/blog/llm-scientific-review");

    const url = `${window.location.origin}/blog/llm-scientific-review`;
    expect(document.title).toContain(post.title);
    expect(metaContent("name", "description")).toEqual([post.excerpt]);
    expect(metaContent("property", "og:title")).toEqual([post.title]);
    expect(metaContent("property", "og:description")).toEqual([post.excerpt]);
    expect(metaContent("property", "og:type")).toEqual(["article"]);
    expect(metaContent("property", "og:url")).toEqual([url]);
    expect(metaContent("name", "twitter:card")).toEqual(["summary"]);
    expect(metaContent("name", "twitter:title")).toEqual([post.title]);
    expect(metaContent("name", "twitter:description")).toEqual([post.excerpt]);
    expect(metaContent("property", "article:published_time")).toEqual([post.date]);
    expect(metaContent("property", "article:author")).toEqual(["The Papertide Team"]);
    expect(metaContent("property", "article:tag")).toEqual(post.tags);
    expect(canonicalHrefs()).toEqual([url]);
  });

  it("restores the previous title and description and removes its tags on unmount", () => {
    document.title = "Papertide — weekly research paper digests";
    const description = document.createElement("meta");
    description.setAttribute("name", "description");
    description.setAttribute("content", "site description");
    document.head.appendChild(description);

    const { unmount } = renderAt("/blog/ai-keeping-up-research");
    expect(metaContent("name", "description")).not.toEqual(["site description"]);

    unmount();
    expect(document.title).toBe("Papertide — weekly research paper digests");
    expect(metaContent("name", "description")).toEqual(["site description"]);
    expect(metaContent("property", "og:title")).toEqual([]);
    expect(metaContent("property", "article:tag")).toEqual([]);
    expect(canonicalHrefs()).toEqual([]);
  });

  it("shows the Recent Posts sidebar by default and toggles it with Hide Sidebar / Show Sidebar", async () => {
    const user = userEvent.setup();
    renderAt("/blog/how-to-write-review-article");

    const sidebar = screen.getByRole("complementary", { name: "Recent Posts" });
    const sidebarLinks = within(sidebar).getAllByRole("link").map((link) => link.getAttribute("href"));
    expect(sidebarLinks).not.toContain("/blog/how-to-write-review-article");
    expect(sidebarLinks).toContain("/blog/llm-scientific-review");

    const hide = screen.getByRole("button", { name: "Hide Sidebar" });
    expect(hide).toHaveAttribute("aria-expanded", "true");
    await user.click(hide);
    expect(screen.queryByRole("complementary", { name: "Recent Posts" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Hide Sidebar" })).toBeNull();

    const show = screen.getByRole("button", { name: "Show Sidebar" });
    expect(show).toHaveAttribute("aria-expanded", "false");
    await user.click(show);
    expect(screen.getByRole("complementary", { name: "Recent Posts" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Hide Sidebar" })).toBeInTheDocument();
  });

  it("follows a Recent Posts link to the other post and updates the metadata", async () => {
    const user = userEvent.setup();
    renderAt("/blog/how-to-write-review-article");
    const sidebar = screen.getByRole("complementary", { name: "Recent Posts" });
    await user.click(within(sidebar).getByRole("link", { name: "I Was Scooped by a Time Traveler" }));

    expect(screen.getByRole("heading", { level: 1, name: "I Was Scooped by a Time Traveler" })).toBeInTheDocument();
    expect(document.title).toContain("I Was Scooped by a Time Traveler");
    expect(canonicalHrefs()).toEqual([`${window.location.origin}/blog/scooped-by-time-traveler`]);
  });

  it("ends with Start Free Today, which goes to /auth", async () => {
    const user = userEvent.setup();
    renderAt("/blog/scooped-by-time-traveler");
    const article = screen.getByRole("article");
    const cta = within(article).getByRole("link", { name: "Start Free Today" });
    expect(cta).toHaveAttribute("href", "/auth");
    await user.click(cta);
    expect(screen.getByRole("heading", { name: "Auth screen" })).toBeInTheDocument();
  });

  it("shows Post Not Found with a link back to the blog for an unknown id", async () => {
    const user = userEvent.setup();
    renderAt("/blog/no-such-post");
    expect(screen.getByRole("heading", { level: 1, name: "Post Not Found" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Sidebar/ })).toBeNull();
    expect(metaContent("property", "og:title")).toEqual([]);

    const back = screen.getByRole("link", { name: "Back to Blog" });
    expect(back).toHaveAttribute("href", "/blog");
    await user.click(back);
    expect(screen.getByRole("heading", { level: 1, name: "The Papertide Blog" })).toBeInTheDocument();
  });
});
