// Search without a text index (FerretDB has none; docs/architecture.md "Knowledge-base search"):
// every article stores the distinct normalised words of its title, content and tags, and a search
// matches an article when each of its words starts one of them. Prefixes make "back" find
// "backup" and "backups"; normalising makes "Résumé" find "resume".
import { KB_SEARCH_WORDS } from '@coffer/contracts';

/** Longer words are cut to this on both sides, so a long search word still finds its article. */
export const MAX_TOKEN_LENGTH = 40;

/** Lower-case words of letters and digits, accents dropped (NFKD, then no combining marks). */
export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.slice(0, MAX_TOKEN_LENGTH));
}

/** The article's search field: each word once. */
export function searchTokens(a: { title: string; content: string; tags: readonly string[] }): string[] {
  return [...new Set(words(`${a.title}\n${a.content}\n${a.tags.join(' ')}`))];
}

/** The words of a search box, each once, at most KB_SEARCH_WORDS of them. */
export function searchWords(search: string): string[] {
  return [...new Set(words(search))].slice(0, KB_SEARCH_WORDS);
}

export const EXCERPT_LENGTH = 200;

/** The start of an article's text for list cards: markdown markup, code and HTML left out. */
export function excerpt(markdown: string, max = EXCERPT_LENGTH): string {
  const text = markdown
    .replace(/```[\s\S]*?(```|$)/g, ' ') // fenced code
    .replace(/<(script|style)\b[\s\S]*?(<\/\1\s*>|$)/gi, ' ') // what a page would never show
    .replace(/<[^>]*>/g, ' ') // HTML
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images: their alt text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links: their text
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+\.\s+)/gm, '') // headings, quotes, list marks
    .replace(/^\s*\|?[-:| ]+\|[-:| ]*$/gm, ' ') // table rules
    .replace(/[`*_~|]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, '')}…`;
}
