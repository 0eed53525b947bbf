// /admin/kb (product §2): every article, drafts included, with search, category and status filters,
// sortable columns, a publish switch per row and View / Edit / Delete.
import { useEffect, useState } from 'react';
import {
  Badge,
  Box,
  Button,
  Card,
  HStack,
  Input,
  Link,
  NativeSelect,
  Stack,
  Switch,
  Table,
  Text,
} from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { categoryLabel, type KbCategory } from '@coffer/contracts';
import {
  useDeleteArticleMutation,
  useListAllArticlesQuery,
  useUpdateArticleMutation,
  type Article,
} from '../../api/generated';
import { formatDate } from '../../lib/format';
import { useConfirm } from '../shell/ConfirmDialog';
import { Page, PageHeader } from '../shell/PageStates';
import { stackedTableCss } from '../shell/responsive';
import { notify } from '../shell/toaster';
import { DEFAULT_SORT, nextSort, visibleArticles, type Sort, type SortKey, type StatusFilter } from './list';
import { CategoryOptions } from '../kb/CategoryOptions';

const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'title', label: 'Title' },
  { key: 'slug', label: 'Slug' },
  { key: 'category', label: 'Category' },
  { key: 'order', label: 'Order' },
  { key: 'updatedAt', label: 'Updated' },
];

export const DELETE_CONFIRMATION =
  'Are you sure you want to delete this article? This action cannot be undone.';

function SortHeader({
  column,
  sort,
  onSort,
}: {
  column: (typeof COLUMNS)[number];
  sort: Sort;
  onSort: (k: SortKey) => void;
}) {
  const active = sort.key === column.key;
  return (
    <Table.ColumnHeader aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <Button variant="plain" size="sm" px="0" fontWeight="semibold" onClick={() => onSort(column.key)}>
        {column.label}
        <Text as="span" color={active ? 'fg' : 'fg.subtle'} aria-hidden>
          {active ? (sort.direction === 'asc' ? '▲' : '▼') : '↕'}
        </Text>
      </Button>
    </Table.ColumnHeader>
  );
}

export function AdminKbListPage() {
  const { data, error, isLoading } = useListAllArticlesQuery(undefined, { refetchOnMountOrArgChange: true });
  const [updateArticle] = useUpdateArticleMutation();
  const [deleteArticle] = useDeleteArticleMutation();
  const [confirm, confirmDialog] = useConfirm();
  const [search, setSearch] = useState('');
  const [category, setCategory] = useState<KbCategory | ''>('');
  const [status, setStatus] = useState<StatusFilter>('all');
  const [sort, setSort] = useState<Sort>(DEFAULT_SORT);
  const [busy, setBusy] = useState<string | null>(null);

  useEffect(() => {
    if (error) {
      console.error('Failed to load articles', error);
      notify({ title: 'Failed to load articles', type: 'error' });
    }
  }, [error]);

  const rows = visibleArticles(data ?? [], { search, category, status }, sort);

  const setPublished = async (article: Article, isPublished: boolean) => {
    setBusy(article._id);
    try {
      await updateArticle({ article: article._id, body: { isPublished } }).unwrap();
      notify({
        title: isPublished ? 'Article published successfully' : 'Article unpublished successfully',
        type: 'success',
      });
    } catch (err) {
      console.error('Failed to update article status', err);
      notify({ title: 'Failed to update article status', type: 'error' });
    } finally {
      setBusy(null);
    }
  };

  const remove = async (article: Article) => {
    if (
      !(await confirm(DELETE_CONFIRMATION, {
        title: 'Delete article',
        confirmLabel: 'Delete',
        destructive: true,
      }))
    )
      return;
    setBusy(article._id);
    try {
      await deleteArticle(article._id).unwrap();
      notify({ title: 'Article deleted successfully', type: 'success' });
    } catch (err) {
      console.error('Failed to delete article', err);
      notify({ title: 'Failed to delete article', type: 'error' });
    } finally {
      setBusy(null);
    }
  };

  return (
    <Page>
      {confirmDialog}
      <PageHeader
        title="Knowledge Base Articles"
        subtitle="Write, publish and organise the articles of the public knowledge base"
        actions={
          <Button asChild colorPalette="brand">
            <RouterLink to="/admin/kb/new">New Article</RouterLink>
          </Button>
        }
      />

      <Stack direction={{ base: 'column', md: 'row' }} gap="3" mb="5">
        <Input
          type="search"
          placeholder="Search title, slug or tags..."
          aria-label="Search articles"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          maxW={{ md: 'sm' }}
        />
        <NativeSelect.Root width={{ base: 'full', md: '56' }}>
          <NativeSelect.Field
            aria-label="Filter by category"
            value={category}
            onChange={(e) => setCategory(e.currentTarget.value as KbCategory | '')}
          >
            <option value="">All categories</option>
            <CategoryOptions />
          </NativeSelect.Field>
          <NativeSelect.Indicator />
        </NativeSelect.Root>
        <NativeSelect.Root width={{ base: 'full', md: '44' }}>
          <NativeSelect.Field
            aria-label="Filter by status"
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value as StatusFilter)}
          >
            <option value="all">All</option>
            <option value="published">Published</option>
            <option value="draft">Draft</option>
          </NativeSelect.Field>
          <NativeSelect.Indicator />
        </NativeSelect.Root>
      </Stack>

      <Card.Root>
        <Table.ScrollArea>
          <Table.Root size="sm" css={stackedTableCss}>
            <Table.Header>
              <Table.Row>
                {COLUMNS.map((c) => (
                  <SortHeader
                    key={c.key}
                    column={c}
                    sort={sort}
                    onSort={(k) => setSort((s) => nextSort(s, k))}
                  />
                ))}
                <Table.ColumnHeader>Published</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">Actions</Table.ColumnHeader>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {isLoading ? (
                <Table.Row>
                  <Table.Cell colSpan={7} textAlign="center" py="10" color="fg.muted">
                    Loading articles...
                  </Table.Cell>
                </Table.Row>
              ) : rows.length === 0 ? (
                <Table.Row>
                  <Table.Cell colSpan={7} textAlign="center" py="10" color="fg.muted">
                    No articles found
                  </Table.Cell>
                </Table.Row>
              ) : (
                rows.map((a) => (
                  <Table.Row key={a._id} data-testid="admin-article-row">
                    <Table.Cell data-label="Title" fontWeight="medium">
                      <Text>{a.title}</Text>
                    </Table.Cell>
                    <Table.Cell data-label="Slug">
                      <Text fontFamily="mono" fontSize="xs">
                        {a.slug}
                      </Text>
                    </Table.Cell>
                    <Table.Cell data-label="Category">
                      <Badge variant="subtle">{categoryLabel(a.category)}</Badge>
                    </Table.Cell>
                    <Table.Cell data-label="Order">
                      <Text>{a.order}</Text>
                    </Table.Cell>
                    <Table.Cell data-label="Updated" whiteSpace="nowrap">
                      <Text>{formatDate(a.updatedAt)}</Text>
                    </Table.Cell>
                    <Table.Cell data-label="Published">
                      <Switch.Root
                        checked={a.isPublished}
                        disabled={busy === a._id}
                        onCheckedChange={(d) => void setPublished(a, d.checked)}
                        colorPalette="brand"
                        size="sm"
                      >
                        <Switch.HiddenInput aria-label={`Published: ${a.title}`} />
                        <Switch.Control>
                          <Switch.Thumb />
                        </Switch.Control>
                      </Switch.Root>
                    </Table.Cell>
                    <Table.Cell data-label="Actions" textAlign={{ md: 'end' }}>
                      <HStack gap="1" justify={{ md: 'flex-end' }}>
                        <Button asChild size="xs" variant="ghost">
                          <Link href={`/kb/${a.slug}`} target="_blank" rel="noopener noreferrer">
                            View
                          </Link>
                        </Button>
                        <Button asChild size="xs" variant="ghost">
                          <RouterLink to={`/admin/kb/${a._id}`}>Edit</RouterLink>
                        </Button>
                        <Button
                          size="xs"
                          variant="ghost"
                          colorPalette="red"
                          disabled={busy === a._id}
                          onClick={() => void remove(a)}
                        >
                          Delete
                        </Button>
                      </HStack>
                    </Table.Cell>
                  </Table.Row>
                ))
              )}
            </Table.Body>
          </Table.Root>
        </Table.ScrollArea>
        {data && (
          <Box px="4" py="3" borderTopWidth="1px">
            <Text fontSize="sm" color="fg.muted">
              {rows.length} of {data.length} articles
            </Text>
          </Box>
        )}
      </Card.Root>
    </Page>
  );
}
