// /features: every point of product §2 "Features", each described as the product really works.
import { Box, Button, Card, Container, Heading, List, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';

interface Feature {
  id: string;
  title: string;
  summary: string;
  points: string[];
}

export const FEATURE_DETAILS: Feature[] = [
  {
    id: 'encryption',
    title: 'AES-256 encryption at the source',
    summary:
      'Every backup is encrypted on your own server, with a key you hold, before a single byte is sent.',
    points: [
      'The agent compresses each dump and encrypts it with AES-256-GCM in authenticated chunks.',
      'The master key is created on your server when you set up the agent and stays there.',
      'Export the key with one command and keep a copy somewhere safe.',
    ],
  },
  {
    id: 'zero-knowledge',
    title: 'Zero knowledge',
    summary: 'We store your backups, but we cannot read them.',
    points: [
      'Connection strings stay in the agent configuration on your server and are never sent to us.',
      'We only ever receive ciphertext and a one-way fingerprint of your key.',
      'A downloaded backup can be decrypted offline with the agent, without Coffer.',
    ],
  },
  {
    id: 'scheduling',
    title: 'Scheduling with adjustable retention',
    summary: 'Backups run on their own, as often as you need, and old ones clean themselves up.',
    points: [
      'Hourly, daily, weekly or monthly backups, within your plan.',
      'Keep backups for 3, 7, 14, 30, 90 or 180 days; older ones are deleted automatically.',
      'Trigger a manual backup from the dashboard whenever you want one.',
    ],
  },
  {
    id: 'restore',
    title: 'Restore from the dashboard',
    summary: 'Pick a backup, confirm, and the agent puts the database back as it was.',
    points: [
      'A three-step confirmation makes sure the right database is replaced.',
      'The agent verifies the whole file with your key before it touches the database.',
      'Live progress, and a restore history of every restore and how it ended.',
      'Or download the encrypted file and restore it by hand.',
    ],
  },
  {
    id: 'history',
    title: 'Detailed backup history',
    summary: 'Know what ran, when, and how it went.',
    points: [
      'Every backup with its timestamp, size and status, with live progress while it runs.',
      'Success rate and storage used at a glance.',
      'An audit log of every action on your account, and e-mail alerts on failures.',
    ],
  },
  {
    id: 'compliance',
    title: 'Compliance ready',
    summary: 'Built to help you meet GDPR and HIPAA requirements for your backups.',
    points: [
      'Encryption at the source with keys only you hold.',
      'Retention you control, and deletion of a backup or a whole account on request.',
      'An audit trail of backups, restores, key changes and settings.',
    ],
  },
  {
    id: 'agent',
    title: 'A lightweight agent',
    summary: 'One small program on your server; nothing else to install but the MongoDB tools.',
    points: [
      'A single executable for Linux (x64 and arm64) and Windows (x64), installed as a service.',
      'Streams mongodump straight into encryption and upload, with no temporary files.',
      'Opens one outbound connection to Coffer: nothing ever connects to your server.',
      'Updates itself from your Coffer server, checking each download against its SHA-256 hash.',
    ],
  },
  {
    id: 'storage',
    title: 'Scalable cloud storage',
    summary: 'Room for your backups as your data grows.',
    points: [
      'Encrypted files stream into S3-compatible object storage (or a disk volume on a self-hosted Coffer).',
      'Plans from a free gigabyte upwards; change plans as your needs change.',
      'Download any completed backup whenever you need it.',
    ],
  },
];

export function FeaturesPage() {
  return (
    <>
      <Box bg="bg.panel" borderBottomWidth="1px">
        <Container maxW="5xl" py={{ base: '12', md: '16' }} textAlign="center">
          <Stack gap="4" align="center">
            <Heading as="h1" size={{ base: '3xl', md: '5xl' }} letterSpacing="tight">
              Features
            </Heading>
            <Text fontSize={{ base: 'md', md: 'lg' }} color="fg.muted" maxW="2xl">
              Encrypted, scheduled MongoDB backups that only you can read, and restores you can run from
              anywhere.
            </Text>
          </Stack>
        </Container>
      </Box>

      <Container maxW="6xl" py={{ base: '10', md: '16' }}>
        <SimpleGrid columns={{ base: 1, md: 2 }} gap="6">
          {FEATURE_DETAILS.map((f) => (
            <Card.Root key={f.id} id={f.id} scrollMarginTop="24">
              <Card.Body gap="3">
                <Heading as="h2" size="lg">
                  {f.title}
                </Heading>
                <Text color="fg.muted">{f.summary}</Text>
                <List.Root gap="1.5" ps="5">
                  {f.points.map((p) => (
                    <List.Item key={p}>{p}</List.Item>
                  ))}
                </List.Root>
              </Card.Body>
            </Card.Root>
          ))}
        </SimpleGrid>

        <Stack gap="4" align="center" textAlign="center" mt={{ base: '12', md: '16' }}>
          <Heading as="h2" size="2xl">
            Ready to protect your data?
          </Heading>
          <Text color="fg.muted">Start on the Free plan and set up the agent in minutes.</Text>
          <Button asChild size="lg" colorPalette="brand">
            <RouterLink to="/register">Start Free Trial</RouterLink>
          </Button>
        </Stack>
      </Container>
    </>
  );
}
