import type { handleUnaryCall, ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { Metadata, status } from '@grpc/grpc-js';
import { USER_TOKEN_HEADER } from '@coffer/common';
import { kb } from '@coffer/proto';
import { ADMIN, ADMIN_TOKEN, USER_TOKEN, kbWorld } from './test-world';

/** Calls a handler as gRPC would, with the admin's session token in its metadata unless told. */
function call<Req, Res>(fn: handleUnaryCall<Req, Res>, request: Req, userToken: string | null = ADMIN_TOKEN) {
  const metadata = new Metadata();
  if (userToken) metadata.set(USER_TOKEN_HEADER, userToken);
  return new Promise<Res>((resolve, reject) => {
    const cb: sendUnaryData<Res> = (err, res) => (err ? reject(err) : resolve(res!));
    fn({ request, metadata } as ServerUnaryCall<Req, Res>, cb);
  });
}

const create = (over: Partial<kb.CreateArticleRequest> = {}): kb.CreateArticleRequest => ({
  title: 'Install the agent',
  slug: 'install-the-agent',
  content: '# Install',
  category: undefined,
  tags: undefined,
  isPublished: undefined,
  order: undefined,
  ...over,
});

describe('kb gRPC handlers', () => {
  it('creates with the defaults and answers the article with its enum category and ISO dates', async () => {
    const { handlers } = kbWorld();
    const a = await call(handlers.createArticle, create({ tags: { tags: [' linux ', 'agent'] } }));
    expect(a).toMatchObject({
      slug: 'install-the-agent',
      category: kb.ArticleCategory.ARTICLE_CATEGORY_GETTING_STARTED,
      tags: ['linux', 'agent'],
      isPublished: true,
      order: 0,
      createdAt: '2025-06-02T10:00:00.000Z',
      author: ADMIN,
    });
  });

  it.each([
    ['Title is required', { title: '' }],
    ['Title must be text', { title: { $gt: '' } as unknown as string }],
    ['Title is required', { title: '', slug: '' }],
    ['Slug is required', { slug: '' }],
    [
      'Slug may contain only lower-case letters, digits and underscores, joined by single hyphens',
      { slug: 'Not A Slug' },
    ],
    ["The slug 'categories' is reserved; choose another", { slug: 'categories' }],
    ['Content is required', { content: '   ' }],
    ['Content must be at most 50,000 characters', { content: 'x'.repeat(50_001) }],
    [
      'Category must be one of getting-started, setup, usage, troubleshooting, faq, security',
      { category: kb.ArticleCategory.ARTICLE_CATEGORY_UNSPECIFIED },
    ],
    [
      'An article may have at most 20 tags',
      { tags: { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) } },
    ],
    ['Order must be a whole number', { order: 1.5 }],
  ])('refuses with INVALID_ARGUMENT: %s', async (message, over) => {
    const { handlers, store } = kbWorld();
    await expect(
      call(handlers.createArticle, create(over as Partial<kb.CreateArticleRequest>)),
    ).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: message,
    });
    expect(store.articles).toHaveLength(0);
  });

  it('lists with proto defaults (page 0 = 1) and refuses a bad page or slug', async () => {
    const { handlers } = kbWorld();
    await call(handlers.createArticle, create());
    const page = await call(handlers.listArticles, {
      search: '',
      category: undefined,
      tag: '',
      page: 0,
      pageSize: 0,
    });
    expect(page.pagination).toEqual({ total: 1, page: 1, pages: 1 });
    expect(page.articles[0]).toMatchObject({ slug: 'install-the-agent', excerpt: 'Install' });
    await expect(
      call(handlers.listArticles, { search: '', category: undefined, tag: '', page: -1, pageSize: 0 }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(
      call(handlers.getArticleBySlug, { slug: '../etc', includeDrafts: false }),
    ).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    await expect(
      call(handlers.getArticleBySlug, { slug: 'missing', includeDrafts: true }),
    ).rejects.toMatchObject({
      code: status.NOT_FOUND,
      details: 'Article not found',
    });
  });

  it('updates only the fields that are set (an unset tag list keeps the tags)', async () => {
    const { handlers } = kbWorld();
    const a = await call(handlers.createArticle, create({ tags: { tags: ['x'] }, isPublished: false }));
    const b = await call(handlers.updateArticle, {
      id: a.id,
      title: undefined,
      slug: undefined,
      content: undefined,
      category: undefined,
      tags: undefined,
      isPublished: true,
      order: undefined,
    });
    expect(b).toMatchObject({ title: a.title, tags: ['x'], isPublished: true });
  });

  describe('writes', () => {
    const update = (id: string): kb.UpdateArticleRequest => ({
      id,
      title: 'Changed',
      slug: undefined,
      content: undefined,
      category: undefined,
      tags: undefined,
      isPublished: undefined,
      order: undefined,
    });

    it('act for the admin whose session token comes with the call, who auth names the author', async () => {
      const { handlers, published, adminCheck } = kbWorld();
      const a = await call(handlers.createArticle, create());
      expect(a.author).toEqual(ADMIN);
      await expect(call(handlers.updateArticle, update(a.id))).resolves.toMatchObject({ title: 'Changed' });
      await call(handlers.deleteArticle, { id: a.id });
      expect(published.map((p) => [p.subject, (p.data as { userId: string }).userId])).toEqual([
        ['kb.article.created', ADMIN.id],
        ['kb.article.updated', ADMIN.id],
        ['kb.article.deleted', ADMIN.id],
      ]);
      // One question to auth per write.
      expect(adminCheck.calls).toEqual([ADMIN_TOKEN, ADMIN_TOKEN, ADMIN_TOKEN]);
    });

    it.each([
      ['no session token', null, status.UNAUTHENTICATED],
      ['a token auth does not take', 'forged', status.UNAUTHENTICATED],
      ["a signed-in user's token who is not an admin", USER_TOKEN, status.PERMISSION_DENIED],
    ])('are refused with %s, and nothing changes', async (_what, token, code) => {
      const { handlers, store, published } = kbWorld();
      const a = await call(handlers.createArticle, create());
      published.length = 0;
      await expect(call(handlers.createArticle, create({ slug: 'other' }), token)).rejects.toMatchObject({
        code,
      });
      await expect(call(handlers.updateArticle, update(a.id), token)).rejects.toMatchObject({ code });
      await expect(call(handlers.deleteArticle, { id: a.id }, token)).rejects.toMatchObject({ code });
      expect(store.articles.map((x) => x.title)).toEqual([a.title]);
      expect(published).toEqual([]);
    });

    it('take no author from the request: an actor an old caller sends is not read', async () => {
      const { handlers } = kbWorld();
      // Field 1 (actor) is reserved in the .proto.
      const forged = { ...create(), actor: { id: 'b'.repeat(24), name: 'Mallory' } };
      await expect(call(handlers.createArticle, forged, null)).rejects.toMatchObject({
        code: status.UNAUTHENTICATED,
      });
      await expect(call(handlers.createArticle, forged)).resolves.toMatchObject({ author: ADMIN });
    });
  });
});
