// /contact: the support e-mail and the community chat invite (product §2), both the deployment's own
// settings, read from the gateway (GET /api/config).
import type { ReactNode } from 'react';
import { Card, Heading, Link, SimpleGrid, Skeleton, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { useGetPublicConfigQuery } from '../../api/generated';
import { Page } from '../shell/PageStates';

function ContactCard({ title, text, children }: { title: string; text: string; children: ReactNode }) {
  return (
    <Card.Root>
      <Card.Body gap="3">
        <Heading as="h2" size="lg">
          {title}
        </Heading>
        <Text color="fg.muted">{text}</Text>
        {children}
      </Card.Body>
    </Card.Root>
  );
}

export function ContactPage() {
  const { data, isLoading, isError } = useGetPublicConfigQuery();
  if (isError) console.error('Failed to load the contact details');

  const unavailable = <Text color="fg.muted">Unavailable right now. Please try again later.</Text>;
  const loading = <Skeleton h="6" w="60" />;

  return (
    <Page maxW="4xl">
      <Stack gap="8">
        <Stack gap="3">
          <Heading as="h1" size={{ base: '3xl', md: '4xl' }} letterSpacing="tight">
            Contact
          </Heading>
          <Text fontSize={{ base: 'md', md: 'lg' }} color="fg.muted">
            Questions about Coffer, your account or a backup? We are happy to help.
          </Text>
        </Stack>

        <SimpleGrid columns={{ base: 1, md: 2 }} gap="5">
          <ContactCard
            title="E-mail support"
            text="Write to us about your account, billing, privacy requests or anything that does not work as it should."
          >
            {isLoading ? (
              loading
            ) : data ? (
              <Link
                href={`mailto:${data.supportEmail}`}
                color="brand.fg"
                fontWeight="semibold"
                wordBreak="break-all"
              >
                {data.supportEmail}
              </Link>
            ) : (
              unavailable
            )}
          </ContactCard>
          <ContactCard
            title="Community chat"
            text="Ask other Coffer users, share tips and hear about new releases."
          >
            {isLoading ? (
              loading
            ) : data ? (
              <Link
                href={data.communityChatUrl}
                target="_blank"
                rel="noopener noreferrer"
                color="brand.fg"
                fontWeight="semibold"
              >
                Join the community chat
              </Link>
            ) : (
              unavailable
            )}
          </ContactCard>
        </SimpleGrid>

        <Text color="fg.muted">
          Many answers are already in the{' '}
          <Link asChild color="brand.fg" fontWeight="medium">
            <RouterLink to="/kb">Knowledge Base</RouterLink>
          </Link>
          . Please never send us your master key or database connection strings: we do not need them, and
          Coffer is built so that we never see them.
        </Text>
      </Stack>
    </Page>
  );
}
