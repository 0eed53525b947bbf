// /about: what Coffer is and how it works; links to /features and /contact (product §2).
import { Button, Card, Heading, HStack, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { Page } from '../shell/PageStates';

const HOW_IT_WORKS = [
  {
    title: 'On your server',
    text: 'The Coffer agent dumps your MongoDB databases with the official tools, compresses each dump and encrypts it with AES-256 using a key that never leaves your server.',
  },
  {
    title: 'At Coffer',
    text: 'We receive only the encrypted file. We schedule your backups, keep them as long as you choose, and show their progress and history on your dashboard.',
  },
  {
    title: 'When you need it',
    text: 'Restore a backup from the dashboard, and the agent verifies and decrypts it on your server before it replaces the database. Or download the file and restore it yourself.',
  },
];

export function AboutPage() {
  return (
    <Page maxW="5xl">
      <Stack gap="10">
        <Stack gap="4">
          <Heading as="h1" size={{ base: '3xl', md: '4xl' }} letterSpacing="tight">
            About Coffer
          </Heading>
          <Text fontSize={{ base: 'md', md: 'lg' }} color="fg.muted">
            Coffer backs up MongoDB databases automatically and encrypts them before they leave your server.
            It is made for companies, developers and hobbyists who want dependable backups without handing
            over their data or their database passwords.
          </Text>
          <Text>
            Most backup services need your connection string and can read what they store. Coffer is built the
            other way round: the work that touches your data happens on your own machine, and what reaches us
            is ciphertext we have no key for.
          </Text>
        </Stack>

        <SimpleGrid columns={{ base: 1, md: 3 }} gap="5">
          {HOW_IT_WORKS.map((s) => (
            <Card.Root key={s.title}>
              <Card.Body gap="2">
                <Heading as="h2" size="md">
                  {s.title}
                </Heading>
                <Text color="fg.muted">{s.text}</Text>
              </Card.Body>
            </Card.Root>
          ))}
        </SimpleGrid>

        <HStack gap="3" wrap="wrap">
          <Button asChild colorPalette="brand">
            <RouterLink to="/features">See the features</RouterLink>
          </Button>
          <Button asChild variant="outline">
            <RouterLink to="/contact">Contact us</RouterLink>
          </Button>
        </HStack>
      </Stack>
    </Page>
  );
}
