// The second line of defence for article HTML, in the reader's browser: whatever markdown.ts
// produced passes DOMPurify before it touches the page, so a rendering bug still cannot run script,
// load a frame or style the rest of the page.
import DOMPurify from 'dompurify';

const CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    'style',
    'iframe',
    'frame',
    'frameset',
    'object',
    'embed',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'link',
    'meta',
    'base',
  ],
  FORBID_ATTR: ['style', 'srcset', 'formaction'],
  // markdown.ts sets these on external links (with rel=noopener).
  ADD_ATTR: ['target'],
};

export function sanitizeArticleHtml(html: string): string {
  return DOMPurify.sanitize(html, CONFIG);
}
