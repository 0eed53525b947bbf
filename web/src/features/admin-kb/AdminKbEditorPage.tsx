// /admin/kb/new and /admin/kb/{id} (product §2): title, slug with Generate, category, display order,
// published switch, tags (Enter adds one), markdown content with a Preview/Edit toggle; Back and
// Save. The article to edit comes from GET /api/kb/admin/all, picked by id (product §7).
import { useEffect, useState, type KeyboardEvent } from 'react';
import {
  Badge,
  Box,
  Button,
  Card,
  CloseButton,
  Field,
  Grid,
  HStack,
  Input,
  NativeSelect,
  Stack,
  Switch,
  Text,
  Textarea,
  Wrap,
} from '@chakra-ui/react';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import { categoryLabel, LIMITS, slugFromTitle, type KbCategory } from '@coffer/contracts';
import {
  useCreateArticleMutation,
  useListAllArticlesQuery,
  useUpdateArticleMutation,
} from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { MarkdownBody, TableOfContents, useRenderedArticle } from '../kb/MarkdownView';
import { ArrowLeftIcon } from '../shell/icons';
import { LoadingScreen, Page, PageHeader } from '../shell/PageStates';
import { notify } from '../shell/toaster';
import { addTag, articleBody, emptyForm, formFromArticle, validationError, type ArticleForm } from './editor';
import { CategoryOptions } from '../kb/CategoryOptions';

function Preview({ form }: { form: ArticleForm }) {
  const rendered = useRenderedArticle(form.content);
  return (
    <Card.Root data-testid="article-preview">
      <Card.Body gap="5">
        <Stack gap="2">
          <HStack gap="2" flexWrap="wrap">
            <Badge colorPalette="brand" variant="subtle">
              {categoryLabel(form.category)}
            </Badge>
            {!form.isPublished && <Badge colorPalette="orange">Draft</Badge>}
          </HStack>
          <Text as="h1" fontSize="2xl" fontWeight="bold">
            {form.title || 'Untitled'}
          </Text>
        </Stack>
        {rendered.toc.length > 0 && (
          <Box p="4" borderWidth="1px" rounded="lg">
            <TableOfContents toc={rendered.toc} />
          </Box>
        )}
        <MarkdownBody html={rendered.html} />
      </Card.Body>
    </Card.Root>
  );
}

export function AdminKbEditorPage() {
  const { id } = useParams();
  const isNew = id === undefined;
  const navigate = useNavigate();
  const all = useListAllArticlesQuery(undefined, { skip: isNew });
  const [createArticle, createState] = useCreateArticleMutation();
  const [updateArticle, updateState] = useUpdateArticleMutation();
  const saving = createState.isLoading || updateState.isLoading;

  const [form, setForm] = useState<ArticleForm>(emptyForm);
  // The article the form was filled from: later list refreshes must not overwrite what is typed.
  const [loadedId, setLoadedId] = useState<string | null>(null);
  const [tagText, setTagText] = useState('');
  const [preview, setPreview] = useState(false);

  const found = id ? all.data?.find((a) => a._id === id) : undefined;

  useEffect(() => {
    if (isNew) {
      setForm(emptyForm());
      setLoadedId(null);
      setPreview(false);
      return;
    }
    if (found && loadedId !== found._id) {
      setForm(formFromArticle(found));
      setLoadedId(found._id);
      setPreview(false);
    }
  }, [isNew, found, loadedId]);

  // Decided only on a settled list: right after a create the list is being refetched.
  const missing = !isNew && !!all.data && !all.isFetching && !found;
  useEffect(() => {
    if (missing) {
      notify({ title: 'Article not found', type: 'error' });
      void navigate('/admin/kb', { replace: true });
    }
  }, [missing, navigate]);
  useEffect(() => {
    if (all.error) {
      console.error('Failed to load article', all.error);
      notify({ title: 'Failed to load article', type: 'error' });
    }
  }, [all.error]);

  const set = <K extends keyof ArticleForm>(key: K, value: ArticleForm[K]) =>
    setForm((f) => ({ ...f, [key]: value }));

  const onTagKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    set('tags', addTag(form.tags, tagText));
    setTagText('');
  };

  const save = async () => {
    const problem = validationError(form);
    if (problem) {
      notify({ title: 'Validation Error', description: problem, type: 'error' });
      return;
    }
    const body = articleBody(form);
    try {
      if (isNew) {
        const created = await createArticle(body).unwrap();
        notify({ title: 'Article created successfully', type: 'success' });
        void navigate(`/admin/kb/${created._id}`, { replace: true });
      } else {
        const updated = await updateArticle({ article: id, body }).unwrap();
        setForm(formFromArticle(updated));
        notify({ title: 'Article updated successfully', type: 'success' });
      }
    } catch (err) {
      notify({
        title: 'Error',
        description: apiErrorMessage(err, 'Failed to save article', 'Failed to save article'),
        type: 'error',
      });
    }
  };

  if (!isNew && (!loadedId || loadedId !== id)) {
    return all.error ? (
      <Page maxW="5xl">
        <Stack align="center" gap="4" py="16">
          <Text color="fg.muted">Failed to load article</Text>
          <Button asChild variant="outline">
            <RouterLink to="/admin/kb">Back</RouterLink>
          </Button>
        </Stack>
      </Page>
    ) : (
      <LoadingScreen label="Loading article..." />
    );
  }

  return (
    <Page maxW="5xl">
      <PageHeader
        title={isNew ? 'New Article' : 'Edit Article'}
        subtitle={isNew ? 'Write a new knowledge base article' : form.slug}
        actions={
          <HStack gap="2" flexWrap="wrap">
            <Button asChild variant="outline">
              <RouterLink to="/admin/kb">
                <ArrowLeftIcon /> Back
              </RouterLink>
            </Button>
            <Button variant="outline" onClick={() => setPreview((p) => !p)}>
              {preview ? 'Edit' : 'Preview'}
            </Button>
            <Button colorPalette="brand" loading={saving} loadingText="Saving..." onClick={() => void save()}>
              Save
            </Button>
          </HStack>
        }
      />

      {preview ? (
        <Preview form={form} />
      ) : (
        <Card.Root>
          <Card.Body>
            <Stack gap="5">
              <Field.Root>
                <Field.Label>Title</Field.Label>
                <Input
                  value={form.title}
                  maxLength={LIMITS.articleTitle}
                  onChange={(e) => set('title', e.target.value)}
                  placeholder="How to install the agent on Linux"
                />
              </Field.Root>
              <Field.Root>
                <Field.Label>Slug</Field.Label>
                <HStack w="full" gap="2">
                  <Input
                    value={form.slug}
                    maxLength={LIMITS.articleSlug}
                    fontFamily="mono"
                    onChange={(e) => set('slug', e.target.value)}
                    placeholder="install-the-agent-on-linux"
                  />
                  <Button variant="outline" onClick={() => set('slug', slugFromTitle(form.title))}>
                    Generate
                  </Button>
                </HStack>
                <Field.HelperText>The address of the article: /kb/{form.slug || 'slug'}</Field.HelperText>
              </Field.Root>
              <Grid templateColumns={{ base: '1fr', md: '1fr 10rem auto' }} gap="5" alignItems="end">
                <Field.Root>
                  <Field.Label>Category</Field.Label>
                  <NativeSelect.Root>
                    <NativeSelect.Field
                      value={form.category}
                      onChange={(e) => set('category', e.currentTarget.value as KbCategory)}
                    >
                      <CategoryOptions />
                    </NativeSelect.Field>
                    <NativeSelect.Indicator />
                  </NativeSelect.Root>
                </Field.Root>
                <Field.Root>
                  <Field.Label>Display Order</Field.Label>
                  <Input
                    type="number"
                    step="1"
                    inputMode="numeric"
                    value={form.order}
                    onChange={(e) => set('order', e.target.value)}
                  />
                </Field.Root>
                <Switch.Root
                  checked={form.isPublished}
                  onCheckedChange={(d) => set('isPublished', d.checked)}
                  colorPalette="brand"
                  pb="2"
                >
                  <Switch.HiddenInput />
                  <Switch.Control>
                    <Switch.Thumb />
                  </Switch.Control>
                  <Switch.Label>Published</Switch.Label>
                </Switch.Root>
              </Grid>
              <Field.Root>
                <Field.Label>Tags</Field.Label>
                <Input
                  value={tagText}
                  maxLength={LIMITS.articleTag}
                  onChange={(e) => setTagText(e.target.value)}
                  onKeyDown={onTagKey}
                  placeholder="Type a tag and press Enter"
                />
                {form.tags.length > 0 && (
                  <Wrap gap="1.5" mt="1" data-testid="editor-tags">
                    {form.tags.map((tag) => (
                      <Badge key={tag} size="lg" variant="subtle" gap="1" pe="0.5">
                        {tag}
                        <CloseButton
                          size="2xs"
                          aria-label={`Remove tag ${tag}`}
                          onClick={() =>
                            set(
                              'tags',
                              form.tags.filter((t) => t !== tag),
                            )
                          }
                        />
                      </Badge>
                    ))}
                  </Wrap>
                )}
              </Field.Root>
              <Field.Root>
                <Field.Label>Content</Field.Label>
                <Textarea
                  value={form.content}
                  maxLength={LIMITS.articleContent}
                  onChange={(e) => set('content', e.target.value)}
                  placeholder="Write the article in Markdown..."
                  fontFamily="mono"
                  fontSize="sm"
                  minH="96"
                />
                <Field.HelperText>Markdown: headings make the table of contents.</Field.HelperText>
              </Field.Root>
            </Stack>
          </Card.Body>
        </Card.Root>
      )}
    </Page>
  );
}
