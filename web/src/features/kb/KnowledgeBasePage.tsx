// /kb (product §2): search hero, shortcut cards, categories and popular tags, active-filter chips,
// article cards, pagination. The filters live in the query string (filters.ts).
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import {
  Badge,
  Box,
  Button,
  Card,
  CloseButton,
  Container,
  Flex,
  Grid,
  Heading,
  HStack,
  Input,
  LinkBox,
  LinkOverlay,
  SimpleGrid,
  Skeleton,
  SkeletonText,
  Stack,
  Text,
  Wrap,
} from '@chakra-ui/react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { categoryLabel, KB_CATEGORIES, LIMITS, type KbCategory } from '@coffer/contracts';
import {
  useListArticleCategoriesQuery,
  useListArticlesQuery,
  useListArticleTagsQuery,
  type ArticleSummary,
} from '../../api/generated';
import { formatDate } from '../../lib/format';
import {
  clearAll,
  clearEverything,
  hasActiveFilters,
  pageItems,
  readFilters,
  toggleCategory,
  toggleTag,
  toPage,
  withoutFilter,
  withSearch,
  writeFilters,
  type KbFilters,
} from './filters';

const SHORTCUTS = [
  {
    title: 'Getting Started',
    text: 'Create an account, install the agent and take your first backup.',
    to: '/kb?category=getting-started',
  },
  {
    title: 'Troubleshooting',
    text: 'What the agent’s errors mean and how to fix them.',
    to: '/kb?category=troubleshooting',
  },
  {
    title: 'Security Guide',
    text: 'How encryption works and how to keep your keys safe.',
    to: '/kb?category=security',
  },
  { title: 'Contact Support', text: 'Did not find your answer? Write to us.', to: '/contact' },
] as const;

function SidebarCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card.Root size="sm">
      <Card.Header>
        <Heading as="h2" size="sm">
          {title}
        </Heading>
      </Card.Header>
      <Card.Body>{children}</Card.Body>
    </Card.Root>
  );
}

function ArticleCard({ article }: { article: ArticleSummary }) {
  return (
    <LinkBox as="article" data-testid="kb-article-card">
      <Card.Root size="sm" _hover={{ borderColor: 'brand.solid' }} transition="border-color 0.15s">
        <Card.Body gap="2">
          <Heading as="h3" size="md">
            <LinkOverlay asChild>
              <RouterLink to={`/kb/${article.slug}`}>{article.title}</RouterLink>
            </LinkOverlay>
          </Heading>
          <HStack gap="2" fontSize="sm" color="fg.muted" flexWrap="wrap">
            <Badge colorPalette="brand" variant="subtle">
              {categoryLabel(article.category)}
            </Badge>
            <Text>Updated {formatDate(article.updatedAt)}</Text>
          </HStack>
          {article.excerpt && (
            <Text color="fg.muted" fontSize="sm" lineClamp="2">
              {article.excerpt}
            </Text>
          )}
          {article.tags.length > 0 && (
            <Wrap gap="1.5">
              {article.tags.map((tag) => (
                <Badge key={tag} variant="outline" size="sm">
                  {tag}
                </Badge>
              ))}
            </Wrap>
          )}
        </Card.Body>
      </Card.Root>
    </LinkBox>
  );
}

function FilterChip({ label, onRemove }: { label: string; onRemove: () => void }) {
  return (
    <Badge size="lg" variant="subtle" colorPalette="brand" gap="1" pe="0.5" data-testid="kb-filter-chip">
      {label}
      <CloseButton size="2xs" aria-label={`Remove filter ${label}`} onClick={onRemove} />
    </Badge>
  );
}

function Pager({ page, pages, onPage }: { page: number; pages: number; onPage: (p: number) => void }) {
  return (
    <Flex as="nav" aria-label="Pagination" justify="center" gap="1.5" flexWrap="wrap" mt="8">
      <Button size="sm" variant="outline" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </Button>
      {pageItems(page, pages).map((item, i) =>
        item === 'gap' ? (
          <Text key={`gap-${i}`} px="2" alignSelf="center" color="fg.muted">
            …
          </Text>
        ) : (
          <Button
            key={item}
            size="sm"
            variant={item === page ? 'solid' : 'outline'}
            colorPalette={item === page ? 'brand' : undefined}
            aria-current={item === page ? 'page' : undefined}
            aria-label={`Page ${item}`}
            onClick={() => onPage(item)}
          >
            {item}
          </Button>
        ),
      )}
      <Button size="sm" variant="outline" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </Button>
    </Flex>
  );
}

export function KnowledgeBasePage() {
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);
  const apply = (next: KbFilters) => setParams(writeFilters(next));

  const [searchText, setSearchText] = useState(filters.search);
  // The box follows the address (back/forward, 'Clear filters', shortcut cards).
  useEffect(() => setSearchText(filters.search), [filters.search]);

  const list = useListArticlesQuery({
    search: filters.search || undefined,
    category: filters.category || undefined,
    tag: filters.tag || undefined,
    page: filters.page,
  });
  const categories = useListArticleCategoriesQuery();
  const tags = useListArticleTagsQuery();
  // Product §8: KB and tag load failures are only logged.
  useEffect(() => {
    if (list.error) console.error('Failed to load articles', list.error);
  }, [list.error]);
  useEffect(() => {
    if (categories.error) console.error('Failed to load categories', categories.error);
  }, [categories.error]);
  useEffect(() => {
    if (tags.error) console.error('Failed to load tags', tags.error);
  }, [tags.error]);

  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    apply(withSearch(filters, searchText));
  };

  const active = hasActiveFilters(filters);
  const articles = list.data?.articles ?? [];
  const pages = list.data?.pagination.pages ?? 1;
  // ?page=N beyond the last page: articles exist, just not on this page.
  const pastLastPage = (list.data?.pagination.total ?? 0) > 0 && filters.page > pages;
  const categoryCounts = new Map((categories.data ?? []).map((c) => [c._id, c.count]));
  const shownCategories = KB_CATEGORIES.filter((c) => categoryCounts.has(c) || c === filters.category);

  return (
    <Box>
      <Box bg="brand.subtle" borderBottomWidth="1px" py={{ base: '10', md: '16' }}>
        <Container maxW="3xl" textAlign="center">
          <Heading as="h1" size={{ base: '3xl', md: '4xl' }} letterSpacing="tight">
            How can we help you?
          </Heading>
          <Text color="fg.muted" mt="3" fontSize={{ base: 'md', md: 'lg' }}>
            Guides and answers about backing up and restoring your databases with Coffer.
          </Text>
          <form onSubmit={onSearch} role="search">
            <HStack mt="6" gap="2">
              <Input
                type="search"
                size="lg"
                bg="bg"
                placeholder="Search articles..."
                aria-label="Search articles"
                maxLength={LIMITS.kbSearch}
                value={searchText}
                onChange={(e) => setSearchText(e.target.value)}
              />
              <Button type="submit" size="lg" colorPalette="brand">
                Search
              </Button>
            </HStack>
          </form>
        </Container>
      </Box>

      <Container maxW="7xl" py={{ base: '6', md: '10' }}>
        <SimpleGrid columns={{ base: 1, sm: 2, lg: 4 }} gap="4" mb="10">
          {SHORTCUTS.map((s) => (
            <LinkBox key={s.title}>
              <Card.Root size="sm" h="full" _hover={{ borderColor: 'brand.solid' }}>
                <Card.Body gap="1">
                  <Heading as="h2" size="sm">
                    <LinkOverlay asChild>
                      <RouterLink to={s.to}>{s.title}</RouterLink>
                    </LinkOverlay>
                  </Heading>
                  <Text fontSize="sm" color="fg.muted">
                    {s.text}
                  </Text>
                </Card.Body>
              </Card.Root>
            </LinkBox>
          ))}
        </SimpleGrid>

        <Grid templateColumns={{ base: '1fr', lg: '16rem 1fr' }} gap="8" alignItems="start">
          <Stack gap="5">
            <SidebarCard title="Browse by Category">
              {categories.isLoading ? (
                <SkeletonText noOfLines={4} />
              ) : shownCategories.length === 0 ? (
                <Text fontSize="sm" color="fg.muted">
                  No categories yet
                </Text>
              ) : (
                <Stack gap="1" data-testid="kb-categories">
                  {shownCategories.map((c) => (
                    <Button
                      key={c}
                      size="sm"
                      variant={filters.category === c ? 'subtle' : 'ghost'}
                      colorPalette={filters.category === c ? 'brand' : undefined}
                      justifyContent="space-between"
                      aria-pressed={filters.category === c}
                      onClick={() => apply(toggleCategory(filters, c as KbCategory))}
                    >
                      {categoryLabel(c)}
                      <Badge variant="outline">{categoryCounts.get(c) ?? 0}</Badge>
                    </Button>
                  ))}
                </Stack>
              )}
            </SidebarCard>
            <SidebarCard title="Popular Tags">
              {tags.isLoading ? (
                <SkeletonText noOfLines={3} />
              ) : (tags.data ?? []).length === 0 ? (
                <Text fontSize="sm" color="fg.muted">
                  No tags yet
                </Text>
              ) : (
                <Wrap gap="1.5" data-testid="kb-tags">
                  {(tags.data ?? []).map((t) => (
                    <Button
                      key={t._id}
                      size="xs"
                      variant={filters.tag === t._id ? 'solid' : 'outline'}
                      colorPalette={filters.tag === t._id ? 'brand' : undefined}
                      aria-pressed={filters.tag === t._id}
                      onClick={() => apply(toggleTag(filters, t._id))}
                    >
                      {t._id} ({t.count})
                    </Button>
                  ))}
                </Wrap>
              )}
            </SidebarCard>
          </Stack>

          <Box minW="0">
            {(filters.category || filters.tag) && (
              <HStack gap="2" mb="5" flexWrap="wrap" data-testid="kb-active-filters">
                <Text fontSize="sm" color="fg.muted">
                  Filters:
                </Text>
                {filters.category && (
                  <FilterChip
                    label={categoryLabel(filters.category)}
                    onRemove={() => apply(withoutFilter(filters, 'category'))}
                  />
                )}
                {filters.tag && (
                  <FilterChip
                    label={`#${filters.tag}`}
                    onRemove={() => apply(withoutFilter(filters, 'tag'))}
                  />
                )}
                <Button size="xs" variant="ghost" onClick={() => apply(clearAll(filters))}>
                  Clear all
                </Button>
              </HStack>
            )}
            {filters.search && (
              <Text fontSize="sm" color="fg.muted" mb="4">
                Results for “{filters.search}”{list.data ? ` (${list.data.pagination.total})` : ''}
              </Text>
            )}

            {list.isLoading || (list.isFetching && articles.length === 0) ? (
              <Stack gap="4" data-testid="kb-skeleton">
                {[0, 1, 2, 3].map((i) => (
                  <Skeleton key={i} h="28" rounded="lg" />
                ))}
              </Stack>
            ) : articles.length === 0 ? (
              <Stack align="center" textAlign="center" py="16" gap="3" data-testid="kb-empty">
                <Heading as="h2" size="lg">
                  No articles found
                </Heading>
                <Text color="fg.muted">
                  {pastLastPage
                    ? `This page is past the last one (page ${pages}).`
                    : active
                      ? 'Try adjusting your search or filters'
                      : 'No articles have been published yet'}
                </Text>
                {pastLastPage && (
                  <Button variant="outline" onClick={() => apply(toPage(filters, pages))}>
                    Go to page {pages}
                  </Button>
                )}
                {active && !pastLastPage && (
                  <Button variant="outline" onClick={() => apply(clearEverything())}>
                    Clear filters
                  </Button>
                )}
              </Stack>
            ) : (
              <Stack gap="4" opacity={list.isFetching ? 0.6 : 1} transition="opacity 0.15s">
                {articles.map((a) => (
                  <ArticleCard key={a._id} article={a} />
                ))}
              </Stack>
            )}

            {pages > 1 && articles.length > 0 && (
              <Pager page={filters.page} pages={pages} onPage={(p) => apply(toPage(filters, p))} />
            )}
          </Box>
        </Grid>
      </Container>
    </Box>
  );
}
