import type { handleUnaryCall, ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { kb } from '@coffer/proto';
import { ADMIN, kbWorld } from './test-world';

function call<Req, Res>(fn: handleUnaryCall<Req, Res>, request: Req) {
  return new Promise<Res>((resolve, reject) => {
    const cb: sendUnaryData<Res> = (err, res) => (err ? reject(err) : resolve(res!));
    fn({ request } as ServerUnaryCall<Req, Res>, cb);
  });
}

const create = (over: Partial<kb.CreateArticleRequest> = {}): kb.CreateArticleRequest => ({
  actor: ADMIN,
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
    ['The acting admin is required', { actor: undefined }],
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
      actor: ADMIN,
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
});
