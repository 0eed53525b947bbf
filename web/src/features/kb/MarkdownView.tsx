// Rendered article markdown (the article page and the editor's preview): sanitised HTML, a Copy
// button on every code block ('Copied!' for 2 s), and the table of contents beside it.
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { createPortal } from 'react-dom';
import { Box, Button, Link, Stack, Text } from '@chakra-ui/react';
import { copyText } from '../../lib/clipboard';
import { CheckIcon, CopyIcon } from '../shell/icons';
import { CODE_BLOCK_ATTR, renderArticle, type TocEntry } from './markdown';
import { sanitizeArticleHtml } from './sanitize';

/** Product §9: copy confirmations last 2 s; the contents scrolls headings 120 px below the top. */
export const COPIED_MS = 2000;
export const TOC_SCROLL_OFFSET_PX = 120;

export function useRenderedArticle(markdown: string) {
  return useMemo(() => {
    const { html, toc } = renderArticle(markdown);
    return { html: sanitizeArticleHtml(html), toc };
  }, [markdown]);
}

function CopyCodeButton({ box }: { box: HTMLElement }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = window.setTimeout(() => setCopied(false), COPIED_MS);
    return () => window.clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    // Read at click time: the code is whatever the box shows now.
    const code = box.querySelector('code')?.textContent ?? box.querySelector('pre')?.textContent ?? '';
    if (await copyText(code.replace(/\n$/, ''))) setCopied(true);
  };
  return (
    <Button
      size="xs"
      variant="subtle"
      position="absolute"
      top="2"
      right="2"
      onClick={() => void copy()}
      aria-label={copied ? 'Copied!' : 'Copy code'}
      data-testid="copy-code"
    >
      {copied ? <CheckIcon /> : <CopyIcon />}
      {copied ? 'Copied!' : 'Copy'}
    </Button>
  );
}

const markdownCss = {
  lineHeight: '1.75',
  overflowWrap: 'anywhere',
  '& h1, & h2, & h3, & h4, & h5, & h6': {
    fontWeight: 'semibold',
    lineHeight: '1.3',
    mt: '8',
    mb: '3',
    // A heading reached through a #hash link lands where the contents would put it.
    scrollMarginTop: `${TOC_SCROLL_OFFSET_PX}px`,
  },
  '& h1': { fontSize: '2xl' },
  '& h2': { fontSize: 'xl', pb: '2', borderBottomWidth: '1px' },
  '& h3': { fontSize: 'lg' },
  '& h4, & h5, & h6': { fontSize: 'md' },
  '& > :first-child': { mt: '0' },
  '& p, & ul, & ol, & blockquote, & table, & .kb-code': { my: '4' },
  '& ul, & ol': { ps: '6' },
  '& ul': { listStyleType: 'disc' },
  '& ol': { listStyleType: 'decimal' },
  '& li': { my: '1' },
  '& a': { color: 'brand.fg', textDecoration: 'underline' },
  '& blockquote': { borderStartWidth: '4px', borderColor: 'border.emphasized', ps: '4', color: 'fg.muted' },
  '& :not(pre) > code': {
    fontFamily: 'mono',
    fontSize: '0.875em',
    bg: 'bg.muted',
    px: '1',
    py: '0.5',
    rounded: 'sm',
  },
  '& .kb-code': { position: 'relative' },
  '& pre': {
    fontFamily: 'mono',
    fontSize: 'sm',
    bg: 'gray.900',
    color: 'gray.100',
    p: '4',
    pe: '24',
    rounded: 'md',
    overflowX: 'auto',
    lineHeight: '1.6',
  },
  '& table': { display: 'block', overflowX: 'auto', borderCollapse: 'collapse' },
  '& th, & td': { borderWidth: '1px', px: '3', py: '1.5', textAlign: 'start' },
  '& th': { bg: 'bg.muted', fontWeight: 'semibold' },
  '& img': { maxW: 'full', h: 'auto' },
  '& hr': { my: '6' },
} as const;

/** The article body. `html` must come from useRenderedArticle (sanitised). */
export function MarkdownBody({ html }: { html: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [boxes, setBoxes] = useState<HTMLElement[]>([]);
  // The boxes exist once React has put the HTML in: find them before the browser paints.
  useLayoutEffect(() => {
    setBoxes(Array.from(ref.current?.querySelectorAll<HTMLElement>(`[${CODE_BLOCK_ATTR}]`) ?? []));
  }, [html]);
  return (
    <>
      <Box
        ref={ref}
        className="kb-markdown"
        data-testid="article-content"
        css={markdownCss}
        dangerouslySetInnerHTML={{ __html: html }}
      />
      {boxes.map((box, i) => createPortal(<CopyCodeButton box={box} />, box, `${i}`))}
    </>
  );
}

export function scrollToHeading(id: string) {
  const el = document.getElementById(id);
  if (!el) return;
  const top = el.getBoundingClientRect().top + window.scrollY - TOC_SCROLL_OFFSET_PX;
  window.scrollTo({ top, behavior: 'smooth' });
}

export function TableOfContents({ toc }: { toc: TocEntry[] }) {
  if (toc.length === 0) return null;
  const onClick = (e: MouseEvent<HTMLAnchorElement>, id: string) => {
    e.preventDefault();
    scrollToHeading(id);
  };
  return (
    <Box as="nav" aria-label="Table of contents" data-testid="toc">
      <Text fontWeight="semibold" fontSize="sm" mb="3">
        Table of Contents
      </Text>
      <Stack as="ul" gap="1.5" listStyleType="none">
        {toc.map((entry) => (
          <Box as="li" key={entry.id} ps={`${entry.indent * 12}px`} data-level={entry.level}>
            <Link
              href={`#${entry.id}`}
              onClick={(e) => onClick(e, entry.id)}
              fontSize="sm"
              color="fg.muted"
              _hover={{ color: 'brand.fg' }}
              lineClamp="2"
            >
              {entry.text}
            </Link>
          </Box>
        ))}
      </Stack>
    </Box>
  );
}
