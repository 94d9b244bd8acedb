//! blog: a tiny markdown renderer for post bodies. It understands `##`/`###` headings,
//! paragraphs, `-` and `1.` lists, `**bold**`, `*italic*`, `[links](url)` and `\` escapes.
//! Guarantee: it only ever builds React elements from text, so markup in the source (`<script>`)
//! is shown as text, never injected; links are kept only for http(s), mailto, `#` and same-site
//! paths (the latter through the router), anything else (`javascript:`) renders as plain text.

import type { ReactNode } from "react";
import { Link } from "react-router-dom";
import { cn } from "@/components/ui/cn";

export type InlineNode =
  | { kind: "text"; text: string }
  | { kind: "strong"; children: InlineNode[] }
  | { kind: "em"; children: InlineNode[] }
  | { kind: "link"; href: string; children: InlineNode[] };

export type Block =
  | { kind: "heading"; level: 2 | 3; text: string }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; ordered: boolean; start: number; items: string[] };

/** Renders `source` as a sequence of block elements. */
export function Markdown({ source, className }: { source: string; className?: string }) {
  const blocks = parseBlocks(source);
  return <div className={cn("space-y-5", className)}>{blocks.map(renderBlock)}</div>;
}

/** Splits markdown into blocks; inline markup inside each block is left for `parseInline`. */
export function parseBlocks(source: string): Block[] {
  const blocks: Block[] = [];
  let paragraphLines: string[] = [];
  let list: Extract<Block, { kind: "list" }> | null = null;

  const flushParagraph = () => {
    if (paragraphLines.length > 0) blocks.push({ kind: "paragraph", text: paragraphLines.join(" ") });
    paragraphLines = [];
  };
  const flushList = () => {
    if (list) blocks.push(list);
    list = null;
  };

  for (const rawLine of source.split(/\r?\n/)) {
    const line = rawLine.trimEnd();
    const trimmed = line.trim();
    if (trimmed === "") {
      flushParagraph();
      flushList();
      continue;
    }

    const heading = /^(#{2,3})\s+(.+)$/.exec(trimmed);
    if (heading) {
      flushParagraph();
      flushList();
      blocks.push({ kind: "heading", level: heading[1].length === 2 ? 2 : 3, text: heading[2].trim() });
      continue;
    }

    const bullet = /^[-*]\s+(.*)$/.exec(trimmed);
    const numbered = /^(\d{1,9})[.)]\s+(.*)$/.exec(trimmed);
    if (bullet || numbered) {
      flushParagraph();
      const ordered = numbered !== null;
      const itemText = numbered ? numbered[2] : bullet![1];
      if (!list || list.ordered !== ordered) {
        flushList();
        list = { kind: "list", ordered, start: numbered ? Number(numbered[1]) : 1, items: [] };
      }
      list.items.push(itemText);
      continue;
    }

    const continuesListItem = list !== null && /^\s/.test(line);
    if (continuesListItem && list) {
      const last = list.items.length - 1;
      list.items[last] = `${list.items[last]} ${trimmed}`;
      continue;
    }

    flushList();
    paragraphLines.push(trimmed);
  }
  flushParagraph();
  flushList();
  return blocks;
}

/** Parses bold, italic, links and backslash escapes; unmatched markers stay literal text. */
export function parseInline(text: string): InlineNode[] {
  const nodes: InlineNode[] = [];
  let plain = "";
  const flushPlain = () => {
    if (plain) nodes.push({ kind: "text", text: plain });
    plain = "";
  };

  let index = 0;
  while (index < text.length) {
    const char = text[index];

    if (char === "\\" && index + 1 < text.length && ESCAPABLE.includes(text[index + 1])) {
      plain += text[index + 1];
      index += 2;
      continue;
    }

    if (char === "[") {
      const link = matchLink(text, index);
      if (link) {
        flushPlain();
        nodes.push({ kind: "link", href: link.href, children: parseInline(link.label) });
        index = link.end;
        continue;
      }
    }

    if (text.startsWith("**", index)) {
      const close = text.indexOf("**", index + 2);
      if (close > index + 2) {
        flushPlain();
        nodes.push({ kind: "strong", children: parseInline(text.slice(index + 2, close)) });
        index = close + 2;
        continue;
      }
    }

    if (char === "*" && text[index + 1] !== "*" && text[index + 1] !== " ") {
      const close = findSingleStar(text, index + 1);
      if (close > index + 1) {
        flushPlain();
        nodes.push({ kind: "em", children: parseInline(text.slice(index + 1, close)) });
        index = close + 1;
        continue;
      }
    }

    plain += char;
    index += 1;
  }
  flushPlain();
  return nodes;
}

/**
 * What a link target may be: a same-site path (`internal`), an http(s)/mailto URL or a fragment
 * (`external`), or nothing (`null`) for any other scheme.
 */
export function classifyHref(href: string): { kind: "internal" | "external"; href: string } | null {
  const trimmed = href.trim();
  if (trimmed.startsWith("/") && !trimmed.startsWith("//")) return { kind: "internal", href: trimmed };
  if (trimmed.startsWith("#")) return { kind: "external", href: trimmed };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https" || scheme === "mailto") return { kind: "external", href: trimmed };
  return null;
}

const ESCAPABLE = "\\*_[]()#-`!";

const LINK_CLASS = "font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900";

/** `[label](href)` starting at `start`: brackets balanced in the label, parentheses in href, no spaces. */
function matchLink(text: string, start: number): { label: string; href: string; end: number } | null {
  let depth = 0;
  let labelEnd = -1;
  for (let index = start; index < text.length; index += 1) {
    if (text[index] === "\\") {
      index += 1;
      continue;
    }
    if (text[index] === "[") depth += 1;
    if (text[index] === "]") {
      depth -= 1;
      if (depth === 0) {
        labelEnd = index;
        break;
      }
    }
  }
  if (labelEnd < 0 || text[labelEnd + 1] !== "(") return null;
  const hrefEnd = closingParen(text, labelEnd + 1);
  if (hrefEnd < 0) return null;
  const href = text.slice(labelEnd + 2, hrefEnd).trim();
  const label = text.slice(start + 1, labelEnd);
  if (!href || /\s/.test(href) || !label) return null;
  return { label, href, end: hrefEnd + 1 };
}

/** The `)` that balances the `(` at `open` (URLs may contain balanced parentheses), or -1. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index += 1) {
    if (text[index] === "(") depth += 1;
    if (text[index] === ")") {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}

/** The next lone `*` (not part of `**`) at or after `from`, or -1. */
function findSingleStar(text: string, from: number): number {
  for (let index = from; index < text.length; index += 1) {
    if (text[index] === "\\") {
      index += 1;
      continue;
    }
    if (text[index] !== "*") continue;
    if (text[index + 1] === "*") {
      index += 1;
      continue;
    }
    if (text[index - 1] !== " ") return index;
  }
  return -1;
}

function renderBlock(block: Block, key: number): ReactNode {
  switch (block.kind) {
    case "heading":
      return block.level === 2 ? (
        <h2 key={key} className="pt-4 text-2xl font-semibold tracking-tight text-slate-900">
          {renderInline(parseInline(block.text))}
        </h2>
      ) : (
        <h3 key={key} className="pt-2 text-xl font-semibold text-slate-900">
          {renderInline(parseInline(block.text))}
        </h3>
      );
    case "paragraph":
      return (
        <p key={key} className="leading-7 text-slate-700">
          {renderInline(parseInline(block.text))}
        </p>
      );
    case "list": {
      const items = block.items.map((item, index) => (
        <li key={index} className="pl-1 leading-7">
          {renderInline(parseInline(item))}
        </li>
      ));
      return block.ordered ? (
        <ol key={key} start={block.start === 1 ? undefined : block.start} className="list-decimal space-y-2 pl-6 text-slate-700">
          {items}
        </ol>
      ) : (
        <ul key={key} className="list-disc space-y-2 pl-6 text-slate-700">
          {items}
        </ul>
      );
    }
  }
}

function renderInline(nodes: InlineNode[]): ReactNode[] {
  return nodes.map((node, key) => {
    switch (node.kind) {
      case "text":
        return node.text;
      case "strong":
        return (
          <strong key={key} className="font-semibold text-slate-900">
            {renderInline(node.children)}
          </strong>
        );
      case "em":
        return <em key={key}>{renderInline(node.children)}</em>;
      case "link": {
        const target = classifyHref(node.href);
        const label = renderInline(node.children);
        if (!target) return <span key={key}>{label}</span>;
        if (target.kind === "internal") {
          return (
            <Link key={key} to={target.href} className={LINK_CLASS}>
              {label}
            </Link>
          );
        }
        const opensElsewhere = /^https?:/i.test(target.href);
        return (
          <a
            key={key}
            href={target.href}
            className={LINK_CLASS}
            {...(opensElsewhere ? { target: "_blank", rel: "noopener noreferrer" } : {})}
          >
            {label}
          </a>
        );
      }
    }
  });
}
