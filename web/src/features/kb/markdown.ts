// Article markdown → HTML and its table of contents (product §2, article page).
// Raw HTML in an article is not rendered (markdown-it `html: false` escapes it) and markdown-it's
// link check drops javascript:, vbscript:, file: and non-image data: URLs, so the output can carry
// no script, handler attribute or frame before it even reaches DOMPurify (sanitize.ts), which is
// the second line in the browser.
import MarkdownIt, { type Token } from 'markdown-it';
import { slugFromTitle } from '@coffer/contracts';

export interface TocEntry {
  id: string;
  text: string;
  /** heading level, 1–6 */
  level: number;
  /** steps of indentation under the shallowest heading in the contents */
  indent: number;
}

export interface RenderedArticle {
  html: string;
  toc: TocEntry[];
}

/** Headings deeper than this stay out of the table of contents (they still get an id). */
export const TOC_MAX_LEVEL = 4;
/** Ids of headings are prefixed so no heading can take a name the page or DOMPurify relies on. */
export const HEADING_ID_PREFIX = 'kb-';
/** Marks the box around each code block; the page puts its Copy button in there. */
export const CODE_BLOCK_ATTR = 'data-kb-code';

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

// Code blocks (fenced and indented) come out wrapped in a box that the page gives a Copy button.
for (const rule of ['fence', 'code_block'] as const) {
  const base = md.renderer.rules[rule]!;
  md.renderer.rules[rule] = (tokens, idx, options, env, self) =>
    `<div class="kb-code" ${CODE_BLOCK_ATTR}="">${base(tokens, idx, options, env, self)}</div>\n`;
}

// Links leave the page: a new tab, without giving that page a handle on this one.
const baseLinkOpen =
  md.renderer.rules.link_open ??
  ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const href = String(tokens[idx]!.attrGet('href') ?? '');
  if (/^https?:\/\//i.test(href)) {
    tokens[idx]!.attrSet('target', '_blank');
    tokens[idx]!.attrSet('rel', 'noopener noreferrer');
  }
  return baseLinkOpen(tokens, idx, options, env, self);
};

/** Makes unique heading ids from heading texts, in document order ('setup', 'setup-1', …). */
export function headingIdMaker(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const base = `${HEADING_ID_PREFIX}${slugFromTitle(text) || 'section'}`;
    const n = seen.get(base);
    seen.set(base, (n ?? 0) + 1);
    if (n === undefined) return base;
    // 'a' twice then a heading literally named 'a-1' must still get three different ids.
    let candidate = `${base}-${n}`;
    while (seen.has(candidate)) candidate = `${candidate}-1`;
    seen.set(candidate, 1);
    return candidate;
  };
}

/** Contents entries indented relative to the shallowest heading present, so an h2-only article is flat. */
export function buildToc(headings: { id: string; text: string; level: number }[]): TocEntry[] {
  const listed = headings.filter((h) => h.level <= TOC_MAX_LEVEL);
  const top = Math.min(...listed.map((h) => h.level));
  return listed.map((h) => ({ ...h, indent: h.level - top }));
}

/** The words of a heading as a reader sees them (emphasis, code spans and link texts kept). */
function inlineText(token: Token | undefined): string {
  if (!token?.children) return token?.content ?? '';
  return token.children
    .map((c) =>
      c.type === 'text' || c.type === 'code_inline' ? c.content : c.type === 'softbreak' ? ' ' : '',
    )
    .join('')
    .trim();
}

/** The article's HTML (headings carry ids, code blocks sit in their copy boxes) and its contents. */
export function renderArticle(markdown: string): RenderedArticle {
  const env = {};
  const tokens = md.parse(markdown, env);
  const nextId = headingIdMaker();
  const headings: { id: string; text: string; level: number }[] = [];
  tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return;
    const text = inlineText(tokens[i + 1]);
    const id = nextId(text);
    token.attrSet('id', id);
    // Headings inside lists or quotes get ids too, but the contents lists the outline only.
    if (token.level === 0 && text) headings.push({ id, text, level: Number(token.tag.slice(1)) });
  });
  return { html: md.renderer.render(tokens, md.options, env), toc: buildToc(headings) };
}
