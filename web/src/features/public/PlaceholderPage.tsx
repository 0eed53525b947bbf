// Minimal pages for routes whose full content comes later: right title (from the route) and heading.
import type { ReactNode } from 'react';
import { Heading, Stack, Text } from '@chakra-ui/react';
import { Page } from '../shell/PageStates';

interface PlaceholderPageProps {
  heading: string;
  children?: ReactNode;
}

export function PlaceholderPage({ heading, children }: PlaceholderPageProps) {
  return (
    <Page maxW="4xl">
      <Stack gap="4">
        <Heading as="h1" size="3xl" letterSpacing="tight">
          {heading}
        </Heading>
        {children ?? <Text color="fg.muted">This page is being written.</Text>}
      </Stack>
    </Page>
  );
}
