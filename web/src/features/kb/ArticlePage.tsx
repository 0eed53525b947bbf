// /kb/{slug} (product §2): the article with its table of contents, code copy buttons, Print and Share,
// the helpful question, Edit Article for admins; skeleton while loading; 404 and error views.
import { useEffect } from 'react';
import {
  Badge,
  Box,
  Button,
  Container,
  Grid,
  Heading,
  HStack,
  Separator,
  Skeleton,
  SkeletonText,
  Stack,
  Text,
  Wrap,
} from '@chakra-ui/react';
import { Link as RouterLink, useLocation, useParams } from 'react-router';
import { categoryLabel } from '@coffer/contracts';
import { useGetArticleQuery, useListAllArticlesQuery } from '../../api/generated';
import { useAppSelector } from '../../app/hooks';
import { copyText } from '../../lib/clipboard';
import { httpStatus } from '../../lib/errors';
import { ArrowLeftIcon } from '../shell/icons';
import { usePageTitle } from '../shell/RouteEffects';
import { notify } from '../shell/toaster';
import { formatDate } from '../../lib/format';
import { MarkdownBody, scrollToHeading, TableOfContents, useRenderedArticle } from './MarkdownView';

function BackLink() {
  return (
    <Button asChild variant="ghost" size="sm" ms="-3" className="kb-no-print">
      <RouterLink to="/kb">
        <ArrowLeftIcon /> Back to Knowledge Base
      </RouterLink>
    </Button>
  );
}

async function share(title: string) {
  const url = window.location.href;
  if (typeof navigator.share === 'function') {
    try {
      await navigator.share({ title, url });
      return;
    } catch (err) {
      // The reader closed the share sheet: nothing to say.
      if (err instanceof DOMException && err.name === 'AbortError') return;
    }
  }
  if (await copyText(url))
    notify({
      title: 'Copied to clipboard!',
      description: 'The link to this article was copied.',
      type: 'success',
    });
  else notify({ title: 'Could not copy the link', description: url, type: 'error' });
}

// Print gives the article alone: no buttons, contents or feedback question.
const printCss = { '@media print': { '& .kb-no-print': { display: 'none !important' } } } as const;

function ArticleSkeleton() {
  return (
    <Stack gap="5" data-testid="article-skeleton">
      <Skeleton h="10" w="3/4" />
      <Skeleton h="5" w="1/2" />
      <SkeletonText noOfLines={10} gap="3" />
    </Stack>
  );
}

export function KnowledgeBaseArticlePage() {
  const { slug = '' } = useParams();
  const { hash } = useLocation();
  const isAdmin = useAppSelector((s) => s.auth.isAdmin);
  // The public read is anonymous for everyone (product §6), admins too. A draft is not public: for an
  // admin a 404 falls back to the article list they manage (GET /api/kb/admin/all), so View in
  // /admin/kb still opens one.
  const publicRead = useGetArticleQuery(slug);
  const missingPublicly = httpStatus(publicRead.error) === 404;
  const drafts = useListAllArticlesQuery(undefined, { skip: !(isAdmin && missingPublicly) });
  const article = publicRead.data ?? drafts.data?.find((a) => a.slug === slug);
  const isLoading = publicRead.isLoading || drafts.isLoading;
  const error = article ? undefined : (drafts.error ?? publicRead.error);
  const rendered = useRenderedArticle(article?.content ?? '');
  usePageTitle(article?.title);

  useEffect(() => {
    if (error) console.error('Failed to load article', error);
  }, [error]);
  // A #heading link opened from outside: the heading exists only once the article has loaded.
  useEffect(() => {
    if (article && hash) scrollToHeading(decodeURIComponent(hash.slice(1)));
  }, [article, hash]);

  if (isLoading) {
    return (
      <Container maxW="7xl" py={{ base: '6', md: '10' }}>
        <ArticleSkeleton />
      </Container>
    );
  }

  if (error || !article) {
    const status = httpStatus(error);
    // A malformed slug (400) cannot name an article either.
    const missing = status === 404 || status === 400;
    return (
      <Container maxW="3xl" py={{ base: '12', md: '20' }}>
        <Stack align="center" textAlign="center" gap="4" data-testid="article-error">
          <Heading as="h1" size="2xl">
            {missing ? 'Article not found' : 'Error loading article'}
          </Heading>
          <Text color="fg.muted">The article you're looking for could not be found.</Text>
          <Button asChild colorPalette="brand">
            <RouterLink to="/kb">Back to Knowledge Base</RouterLink>
          </Button>
        </Stack>
      </Container>
    );
  }

  return (
    <Container maxW="7xl" py={{ base: '6', md: '10' }} css={printCss}>
      <BackLink />
      <Grid
        templateColumns={{ base: 'minmax(0, 1fr)', lg: 'minmax(0, 1fr) 16rem' }}
        gap={{ base: '6', lg: '10' }}
        alignItems="start"
        mt="4"
      >
        <Box as="article" minW="0">
          <Stack gap="3" mb="6">
            <HStack gap="2" flexWrap="wrap">
              <Badge colorPalette="brand" variant="subtle" data-testid="article-category">
                {categoryLabel(article.category)}
              </Badge>
              {!article.isPublished && <Badge colorPalette="orange">Draft</Badge>}
            </HStack>
            <Heading as="h1" size={{ base: '2xl', md: '3xl' }} letterSpacing="tight">
              {article.title}
            </Heading>
            <HStack gap="2" color="fg.muted" fontSize="sm" flexWrap="wrap">
              <Text>Updated {formatDate(article.updatedAt)}</Text>
              {article.author?.name && <Text>· By {article.author.name}</Text>}
            </HStack>
            {article.tags.length > 0 && (
              <Wrap gap="1.5">
                {article.tags.map((tag) => (
                  <Badge key={tag} asChild variant="outline" _hover={{ bg: 'bg.muted' }}>
                    <RouterLink to={`/kb?tag=${encodeURIComponent(tag)}`}>{tag}</RouterLink>
                  </Badge>
                ))}
              </Wrap>
            )}
            <HStack gap="2" className="kb-no-print" flexWrap="wrap">
              <Button size="sm" variant="outline" onClick={() => window.print()}>
                Print
              </Button>
              <Button size="sm" variant="outline" onClick={() => void share(article.title)}>
                Share
              </Button>
              {isAdmin && (
                <Button asChild size="sm" variant="outline" colorPalette="brand">
                  <RouterLink to={`/admin/kb/${article._id}`}>Edit Article</RouterLink>
                </Button>
              )}
            </HStack>
          </Stack>

          {/* On narrow screens the contents comes first, above the text it points into. */}
          {rendered.toc.length > 0 && (
            <Box hideFrom="lg" mb="6" p="4" borderWidth="1px" rounded="lg" className="kb-no-print">
              <TableOfContents toc={rendered.toc} />
            </Box>
          )}

          <MarkdownBody html={rendered.html} />

          <Separator my="10" />
          <Stack gap="3" align={{ base: 'stretch', sm: 'center' }} textAlign="center" className="kb-no-print">
            <Text fontWeight="medium">Was this article helpful?</Text>
            {/* Product §2: answering changes nothing visible. */}
            <HStack gap="2" justify="center">
              <Button size="sm" variant="outline">
                Yes
              </Button>
              <Button size="sm" variant="outline">
                No
              </Button>
            </HStack>
          </Stack>
        </Box>

        {rendered.toc.length > 0 && (
          <Box
            hideBelow="lg"
            position="sticky"
            top="24"
            maxH="calc(100vh - 8rem)"
            overflowY="auto"
            p="4"
            borderWidth="1px"
            rounded="lg"
            className="kb-no-print"
          >
            <TableOfContents toc={rendered.toc} />
          </Box>
        )}
      </Grid>
    </Container>
  );
}
