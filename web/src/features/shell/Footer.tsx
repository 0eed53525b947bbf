import { Box, Container, Flex, HStack, Link, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';

const FOOTER_LINKS = [
  { label: 'Privacy', to: '/privacy' },
  { label: 'Terms of Service', to: '/terms' },
  { label: 'Contact', to: '/contact' },
];

export function Footer() {
  return (
    <Box as="footer" borderTopWidth="1px" bg="bg.panel" mt="auto">
      <Container maxW="7xl" py="6">
        <Flex direction={{ base: 'column', sm: 'row' }} gap="3" justify="space-between" align="center">
          <Text fontSize="sm" color="fg.muted">
            © {new Date().getFullYear()} Coffer. Encrypted MongoDB backups.
          </Text>
          <HStack as="nav" aria-label="Footer" gap="5">
            {FOOTER_LINKS.map((l) => (
              <Link key={l.to} asChild fontSize="sm" color="fg.muted" _hover={{ color: 'fg' }}>
                <RouterLink to={l.to}>{l.label}</RouterLink>
              </Link>
            ))}
          </HStack>
        </Flex>
      </Container>
    </Box>
  );
}
