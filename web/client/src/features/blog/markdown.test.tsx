import { render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { Markdown, classifyHref, parseBlocks, parseInline } from "./markdown";

function renderMarkdown(source: string) {
  return render(
    <MemoryRouter>
      <Markdown source={source} />
    </MemoryRouter>,
  );
}

describe("Markdown", () => {
  it("renders ## and ### as h2 and h3, with inline markup inside", () => {
    renderMarkdown("## First *steps*\n\nSome text.\n\n### A detail");
    expect(screen.getByRole("heading", { level: 2, name: "First steps" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 2 }).querySelector("em")).toHaveTextContent("steps");
    expect(screen.getByRole("heading", { level: 3, name: "A detail" })).toBeInTheDocument();
  });

  it("joins consecutive lines into one paragraph and splits on blank lines", () => {
    const { container } = renderMarkdown("one line\nsame paragraph\n\nsecond paragraph");
    const paragraphs = container.querySelectorAll("p");
    expect(paragraphs).toHaveLength(2);
    expect(paragraphs[0]).toHaveTextContent("one line same paragraph");
    expect(paragraphs[1]).toHaveTextContent("second paragraph");
  });

  it("renders - lists as bulleted lists and 1. lists as numbered lists", () => {
    renderMarkdown("Intro\n- apples\n- **pears**\n\n1. first\n2. second\n3. third");
    const [bulleted, numbered] = screen.getAllByRole("list");
    expect(bulleted.tagName).toBe("UL");
    expect(within(bulleted).getAllByRole("listitem").map((item) => item.textContent)).toEqual(["apples", "pears"]);
    expect(within(bulleted).getByText("pears").tagName).toBe("STRONG");
    expect(numbered.tagName).toBe("OL");
    expect(within(numbered).getAllByRole("listitem")).toHaveLength(3);
  });

  it("renders bold and italic", () => {
    renderMarkdown("Read **the paper** before you *cite* it.");
    expect(screen.getByText("the paper").tagName).toBe("STRONG");
    expect(screen.getByText("cite").tagName).toBe("EM");
  });

  it("renders same-site links through the router and outside links in a new tab", () => {
    renderMarkdown("See [our guide](/blog/how-to-write-review-article) and [PubMed](https://pubmed.ncbi.nlm.nih.gov/).");
    const internal = screen.getByRole("link", { name: "our guide" });
    expect(internal).toHaveAttribute("href", "/blog/how-to-write-review-article");
    expect(internal).not.toHaveAttribute("target");
    const external = screen.getByRole("link", { name: "PubMed" });
    expect(external).toHaveAttribute("href", "https://pubmed.ncbi.nlm.nih.gov/");
    expect(external).toHaveAttribute("target", "_blank");
    expect(external).toHaveAttribute("rel", "noopener noreferrer");
  });

  it("shows markup in the source as text and never creates elements from it", () => {
    const { container } = renderMarkdown(
      '<script>alert("x")</script>\n\n<img src="x" onerror="alert(1)"> and <b>not bold</b>\n\n## <em>heading</em>',
    );
    expect(container.querySelector("script, img, b")).toBeNull();
    expect(container.querySelector("em")).toBeNull();
    expect(screen.getByText('<script>alert("x")</script>')).toBeInTheDocument();
    expect(screen.getByText('<img src="x" onerror="alert(1)"> and <b>not bold</b>')).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 2 })).toHaveTextContent("<em>heading</em>");
  });

  it("drops links with unsafe schemes but keeps their text", () => {
    const { container } = renderMarkdown("Click [here](javascript:alert(1)) or [there](data:text/html,hi).");
    expect(container.querySelector("a")).toBeNull();
    expect(container).toHaveTextContent("Click here or there.");
  });

  it("leaves unmatched markers and escaped characters as literal text", () => {
    const { container } = renderMarkdown("2 * 3 = 6, **unclosed, \\*not italic\\* and [no link]");
    expect(container.querySelector("strong, em, a")).toBeNull();
    expect(container).toHaveTextContent("2 * 3 = 6, **unclosed, *not italic* and [no link]");
  });
});

describe("parseBlocks and parseInline", () => {
  it("does not treat a single # line as a heading", () => {
    expect(parseBlocks("# not a heading")).toEqual([{ kind: "paragraph", text: "# not a heading" }]);
  });

  it("continues an indented line into the previous list item", () => {
    expect(parseBlocks("- first\n  continued\n- second")).toEqual([
      { kind: "list", ordered: false, start: 1, items: ["first continued", "second"] },
    ]);
  });

  it("nests bold inside a link label", () => {
    expect(parseInline("[**bold** link](/x)")).toEqual([
      { kind: "link", href: "/x", children: [{ kind: "strong", children: [{ kind: "text", text: "bold" }] }, { kind: "text", text: " link" }] },
    ]);
  });

  it("classifies link targets", () => {
    expect(classifyHref("/auth")).toEqual({ kind: "internal", href: "/auth" });
    expect(classifyHref("https://arxiv.org")).toEqual({ kind: "external", href: "https://arxiv.org" });
    expect(classifyHref("mailto:a@b.c")).toEqual({ kind: "external", href: "mailto:a@b.c" });
    expect(classifyHref("//evil.example")).toBeNull();
    expect(classifyHref("JavaScript:alert(1)")).toBeNull();
  });
});
