import {
  Badge,
  Box,
  Button,
  Card,
  Container,
  Heading,
  HStack,
  SimpleGrid,
  Stack,
  Text,
} from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { PricingGrid } from '../plans/PricingGrid';
import { TerminalDemo } from './TerminalDemo';
import { TERMINAL_DEMOS } from './terminalDemos';

const FEATURES = [
  {
    title: 'End-to-end encryption',
    text: 'Every dump is encrypted with AES-256 on your own server before a single byte leaves it.',
  },
  {
    title: 'Zero knowledge',
    text: 'Connection strings and encryption keys stay with the agent. We only ever see ciphertext.',
  },
  {
    title: 'Flexible scheduling',
    text: 'Hourly, daily, weekly or monthly backups, with retention you choose.',
  },
  {
    title: '1-click restore',
    text: 'Restore any completed backup from the dashboard, or download the encrypted file.',
  },
  {
    title: 'Detailed backup history',
    text: 'Timestamps, sizes and statuses for every backup and restore, plus a full audit log.',
  },
  {
    title: 'Compliance ready',
    text: 'Built for teams working towards GDPR and HIPAA requirements.',
  },
];

export function HomePage() {
  return (
    <>
      <Box bgGradient="to-br" gradientFrom="brand.900" gradientTo="brand.700" color="white">
        <Container maxW="7xl" py={{ base: '16', md: '28' }}>
          <Stack gap="6" maxW="3xl">
            <Badge alignSelf="flex-start" variant="solid" bg="whiteAlpha.200" color="white" px="2.5" py="1">
              Zero-knowledge MongoDB backups
            </Badge>
            <Heading as="h1" size={{ base: '4xl', md: '6xl' }} lineHeight="1.1" letterSpacing="tight">
              Encrypted backups for your MongoDB, on autopilot
            </Heading>
            <Text fontSize={{ base: 'lg', md: 'xl' }} color="whiteAlpha.800">
              A lightweight agent dumps, compresses and encrypts your databases on your own server. Coffer
              schedules, stores and restores them — without ever seeing your data or your keys.
            </Text>
            <HStack gap="3" wrap="wrap">
              <Button asChild size="lg" bg="white" color="brand.800" _hover={{ bg: 'whiteAlpha.900' }}>
                <RouterLink to="/register">Get Started</RouterLink>
              </Button>
              <Button
                asChild
                size="lg"
                variant="outline"
                color="white"
                borderColor="whiteAlpha.500"
                _hover={{ bg: 'whiteAlpha.200' }}
              >
                <a href="#features">Learn More</a>
              </Button>
            </HStack>
          </Stack>
        </Container>
      </Box>

      <Container maxW="7xl" py={{ base: '14', md: '20' }} id="features" scrollMarginTop="20">
        <Stack gap="3" textAlign="center" mb="10">
          <Heading as="h2" size="3xl">
            Everything a serious backup needs
          </Heading>
          <Text color="fg.muted">Protection you can verify, restores you can trust.</Text>
        </Stack>
        <SimpleGrid columns={{ base: 1, md: 2, lg: 3 }} gap="6">
          {FEATURES.map((f) => (
            <Card.Root key={f.title}>
              <Card.Body gap="2">
                <Heading as="h3" size="md">
                  {f.title}
                </Heading>
                <Text color="fg.muted">{f.text}</Text>
              </Card.Body>
            </Card.Root>
          ))}
        </SimpleGrid>
      </Container>

      <Box bg="bg.panel" borderYWidth="1px">
        <Container maxW="7xl" py={{ base: '14', md: '20' }}>
          <Stack gap="3" textAlign="center" mb="10">
            <Heading as="h2" size="3xl">
              See the agent at work
            </Heading>
            <Text color="fg.muted">
              Real output of coffer-agent on a customer's server: your data is encrypted before it leaves, and
              restored only after it is verified.
            </Text>
          </Stack>
          <SimpleGrid columns={{ base: 1, xl: 2 }} gap="8">
            {TERMINAL_DEMOS.map((demo) => (
              <TerminalDemo key={demo.id} demo={demo} />
            ))}
          </SimpleGrid>
        </Container>
      </Box>

      <Box id="pricing" scrollMarginTop="16">
        <Container maxW="7xl" py={{ base: '14', md: '20' }}>
          <Stack gap="3" textAlign="center" mb="10">
            <Heading as="h2" size="3xl">
              Simple, transparent pricing
            </Heading>
            <Text color="fg.muted">Start free. Upgrade when your data grows.</Text>
          </Stack>
          <PricingGrid />
        </Container>
      </Box>

      <Container maxW="4xl" py={{ base: '14', md: '20' }} textAlign="center">
        <Stack gap="5" align="center">
          <Heading as="h2" size="3xl">
            Ready to protect your data?
          </Heading>
          <Text color="fg.muted">
            Set up the agent in minutes and take your first encrypted backup today.
          </Text>
          <Button asChild size="lg" colorPalette="brand">
            <RouterLink to="/register">Start your free trial</RouterLink>
          </Button>
        </Stack>
      </Container>
    </>
  );
}
