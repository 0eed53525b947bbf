import { excerpt, searchTokens, searchWords, words } from './search';

describe('kb search words', () => {
  it('splits on anything but letters and digits, lower-cases and drops accents', () => {
    expect(words('Coffer-Agent: mongodump --archive, Résumé 2025!')).toEqual([
      'coffer',
      'agent',
      'mongodump',
      'archive',
      'resume',
      '2025',
    ]);
  });

  it('keeps each word of title, content and tags once', () => {
    expect(searchTokens({ title: 'Key key', content: 'KEY export', tags: ['Security', 'key'] })).toEqual([
      'key',
      'export',
      'security',
    ]);
  });

  it('takes at most eight distinct words from the search box', () => {
    expect(searchWords('a b c d e f g h i j a')).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    expect(searchWords('$where {"$ne": 1}')).toEqual(['where', 'ne', '1']);
  });
});

describe('kb excerpts', () => {
  it('is the text without markdown, code or HTML', () => {
    const md =
      '# Install\n\nRun **this** [command](/x):\n\n```sh\nrm -rf /\n```\n\n<script>alert(1)</script> - done';
    expect(excerpt(md)).toBe('Install Run this command: done');
  });

  it('cuts long text at a word with an ellipsis', () => {
    const text = `${'word '.repeat(100)}`;
    const e = excerpt(text, 30);
    expect(e.length).toBeLessThanOrEqual(30);
    expect(e).toMatch(/^word( word)*…$/);
  });
});
