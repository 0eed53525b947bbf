import { buildToc, headingIdMaker, renderArticle } from './markdown';

describe('renderArticle: table of contents', () => {
  const article = [
    '# Install the agent',
    'Intro.',
    '## On Linux',
    '### Ubuntu **and** Debian',
    '## On `Windows`',
    '##### Too deep for the contents',
    '```bash',
    '# not a heading',
    '```',
    '- ## inside a list',
  ].join('\n');

  it('lists the outline headings in order, indented by level', () => {
    const { toc } = renderArticle(article);
    expect(toc).toEqual([
      { id: 'kb-install-the-agent', text: 'Install the agent', level: 1, indent: 0 },
      { id: 'kb-on-linux', text: 'On Linux', level: 2, indent: 1 },
      { id: 'kb-ubuntu-and-debian', text: 'Ubuntu and Debian', level: 3, indent: 2 },
      { id: 'kb-on-windows', text: 'On Windows', level: 2, indent: 1 },
    ]);
  });

  it('gives every heading the id its contents entry points to', () => {
    const { html, toc } = renderArticle(article);
    for (const entry of toc) expect(html).toContain(`id="${entry.id}"`);
    expect(html).toContain('<h5 id="kb-too-deep-for-the-contents">');
  });

  it('keeps repeated headings apart', () => {
    const { toc } = renderArticle('## Setup\n## Setup\n## Setup-1\n## Setup');
    expect(toc.map((t) => t.id)).toEqual(['kb-setup', 'kb-setup-1', 'kb-setup-1-1', 'kb-setup-2']);
  });

  it('starts indentation at the shallowest heading present', () => {
    expect(
      buildToc([
        { id: 'a', text: 'A', level: 2 },
        { id: 'b', text: 'B', level: 3 },
      ]).map((t) => t.indent),
    ).toEqual([0, 1]);
    expect(buildToc([])).toEqual([]);
  });

  it('names headings without words after their place', () => {
    const next = headingIdMaker();
    expect(next('!!!')).toBe('kb-section');
    expect(next('???')).toBe('kb-section-1');
  });
});

describe('renderArticle: code blocks', () => {
  it('wraps fenced and indented code in a copy box, code escaped', () => {
    const { html } = renderArticle('```sh\necho "<b>" && rm -rf /tmp/x\n```\n\n    indented <i>\n');
    const boxes = html.match(/<div class="kb-code" data-kb-code="">/g) ?? [];
    expect(boxes).toHaveLength(2);
    expect(html).toContain('<code class="language-sh">echo &quot;&lt;b&gt;&quot; &amp;&amp; rm -rf /tmp/x');
    expect(html).toContain('indented &lt;i&gt;');
  });
});

describe('renderArticle: hostile markdown stays inert', () => {
  const hostile = [
    '<script>window.pwned = 1</script>',
    '',
    '<img src=x onerror="alert(1)">',
    '',
    '<iframe src="https://example.com"></iframe>',
    '',
    '[click me](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=) [vb](VBScript:msgbox)',
    '',
    'text <a href="javascript:alert(2)" onclick="alert(3)">raw link</a>',
  ].join('\n');
  const { html } = renderArticle(hostile);

  it('shows raw HTML as text instead of making elements of it', () => {
    expect(html).not.toMatch(/<script|<iframe|<img|<a href="javascript/i);
    expect(html).toContain('&lt;script&gt;window.pwned = 1&lt;/script&gt;');
    expect(html).toContain('&lt;iframe');
  });

  it('puts no event handler attribute or script URL in any tag', () => {
    const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
    for (const tag of tags) {
      expect(tag).not.toMatch(/\son\w+=/i);
      expect(tag).not.toMatch(/(javascript|vbscript|data):/i);
    }
  });

  it('still links ordinary addresses, external ones in a new tab without an opener', () => {
    const { html: links } = renderArticle(
      '[docs](https://example.com/a) [home](/kb) <https://coffer.example>',
    );
    expect(links).toContain(
      '<a href="https://example.com/a" target="_blank" rel="noopener noreferrer">docs</a>',
    );
    expect(links).toContain('<a href="/kb">home</a>');
    expect(links).toContain('href="https://coffer.example"');
  });
});
