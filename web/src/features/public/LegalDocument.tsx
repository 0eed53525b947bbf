// Shared layout of the legal pages (privacy, terms): title, last-updated date, a table of contents
// of in-page anchors, and the numbered sections.
import type { ReactNode } from 'react';
import { Box, Heading, Link, List, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { Page } from '../shell/PageStates';

export interface LegalSection {
  /** anchor id: `/privacy#{id}` opens the page at this section */
  id: string;
  title: string;
  body: ReactNode;
}

interface LegalDocumentProps {
  title: string;
  lastUpdated: string;
  intro: ReactNode;
  sections: LegalSection[];
}

export const legalLinkProps = { color: 'brand.fg', fontWeight: 'medium' } as const;

export function LegalDocument({ title, lastUpdated, intro, sections }: LegalDocumentProps) {
  return (
    <Page maxW="4xl">
      <Stack gap="8">
        <Stack gap="2">
          <Heading as="h1" size={{ base: '3xl', md: '4xl' }} letterSpacing="tight">
            {title}
          </Heading>
          <Text color="fg.muted">Last updated {lastUpdated}</Text>
        </Stack>

        <Stack gap="4" color="fg" lineHeight="tall">
          {intro}
        </Stack>

        <Box as="nav" aria-label="Table of contents" bg="bg.panel" borderWidth="1px" rounded="lg" p="5">
          <Heading as="h2" size="md" mb="3">
            Table of contents
          </Heading>
          <List.Root as="ol" gap="1.5" ps="5">
            {sections.map((s) => (
              <List.Item key={s.id}>
                {/* A router link so the hash goes through ScrollManager like any other anchor. */}
                <Link asChild {...legalLinkProps}>
                  <RouterLink to={{ hash: s.id }}>{s.title}</RouterLink>
                </Link>
              </List.Item>
            ))}
          </List.Root>
        </Box>

        {sections.map((s, i) => (
          // The sticky header is 4rem tall: the section title lands just below it.
          <Box as="section" key={s.id} id={s.id} aria-labelledby={`${s.id}-title`} scrollMarginTop="24">
            <Heading as="h2" size="xl" id={`${s.id}-title`} mb="3">
              {i + 1}. {s.title}
            </Heading>
            <Stack gap="3" lineHeight="tall">
              {s.body}
            </Stack>
          </Box>
        ))}
      </Stack>
    </Page>
  );
}

/** A bulleted list inside a section. */
export function Bullets({ items }: { items: ReactNode[] }) {
  return (
    <List.Root gap="1.5" ps="5">
      {items.map((item, i) => (
        <List.Item key={i}>{item}</List.Item>
      ))}
    </List.Root>
  );
}
