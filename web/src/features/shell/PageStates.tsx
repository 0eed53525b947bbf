// Shared page-level pieces: loading state, page container and header, error boundary.
import type { ReactNode } from 'react';
import { Box, Button, Center, Container, Heading, Spinner, Stack, Text } from '@chakra-ui/react';
import { isRouteErrorResponse, Link as RouterLink, useRouteError } from 'react-router';

export function LoadingScreen({ label = 'Loading' }: { label?: string }) {
  return (
    <Center flex="1" py="24">
      <Stack align="center" gap="3">
        <Spinner size="lg" color="brand.solid" />
        <Text color="fg.muted">{label}</Text>
      </Stack>
    </Center>
  );
}

export function Page({ children, maxW = '7xl' }: { children: ReactNode; maxW?: string }) {
  return (
    <Container maxW={maxW} py={{ base: '6', md: '10' }}>
      {children}
    </Container>
  );
}

export function PageHeader({
  title,
  subtitle,
  actions,
}: {
  title: string;
  subtitle?: string;
  actions?: ReactNode;
}) {
  return (
    <Stack
      direction={{ base: 'column', md: 'row' }}
      justify="space-between"
      align={{ md: 'center' }}
      mb="8"
      gap="4"
    >
      <Box>
        <Heading as="h1" size="2xl" letterSpacing="tight">
          {title}
        </Heading>
        {subtitle && (
          <Text color="fg.muted" mt="1">
            {subtitle}
          </Text>
        )}
      </Box>
      {actions}
    </Stack>
  );
}

export function RouteError() {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  if (!notFound) console.error(error);
  return (
    <Center minH="100vh" p="6">
      <Stack align="center" gap="4" textAlign="center">
        <Heading size="2xl">{notFound ? 'Page not found' : 'Something went wrong'}</Heading>
        <Text color="fg.muted">
          {notFound
            ? "The page you're looking for doesn't exist."
            : 'Please reload the page or try again later.'}
        </Text>
        <Button asChild colorPalette="brand">
          <RouterLink to="/">Return to Home</RouterLink>
        </Button>
      </Stack>
    </Center>
  );
}
