// Centered card used by the sign-in, register and password-recovery screens.
import type { ReactNode } from 'react';
import { Box, Card, Center, Heading, Stack, Text } from '@chakra-ui/react';
import { LogoMark } from '../shell/icons';

interface AuthLayoutProps {
  title: string;
  subtitle?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}

export function AuthLayout({ title, subtitle, children, footer }: AuthLayoutProps) {
  return (
    <Center flex="1" px="4" py={{ base: '10', md: '16' }}>
      <Box w="full" maxW="md">
        <Stack align="center" gap="3" mb="6" textAlign="center">
          <LogoMark boxSize="10" color="brand.solid" />
          <Heading as="h1" size="2xl" letterSpacing="tight">
            {title}
          </Heading>
          {subtitle && <Text color="fg.muted">{subtitle}</Text>}
        </Stack>
        <Card.Root variant="elevated">
          <Card.Body p={{ base: '6', md: '8' }}>{children}</Card.Body>
        </Card.Root>
        {footer && (
          <Box mt="6" textAlign="center" fontSize="sm" color="fg.muted">
            {footer}
          </Box>
        )}
      </Box>
    </Center>
  );
}
