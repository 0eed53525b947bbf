import { Box, Button, Card, Center, Heading, HStack, Stack, Text } from '@chakra-ui/react';
import { useNavigate } from 'react-router';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { formatLongDate } from '../../lib/format';
import { logOut } from './sessionActions';
import { useSuspensionRecheck } from './useSuspensionRecheck';

export function BannedPage() {
  const user = useAppSelector((s) => s.auth.user);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  useSuspensionRecheck();
  const reason = user?.banReason?.trim() || 'No reason provided';
  const date = formatLongDate(user?.bannedAt) ?? 'Unknown date';

  return (
    <Center flex="1" px="4" py="16">
      <Card.Root maxW="lg" w="full" variant="elevated" borderTopWidth="4px" borderTopColor="red.500">
        <Card.Body p="8">
          <Stack gap="6" textAlign="center" align="center">
            <Center
              boxSize="14"
              rounded="full"
              bg="red.subtle"
              color="red.fg"
              fontSize="2xl"
              aria-hidden="true"
            >
              !
            </Center>
            <Heading as="h1" size="2xl">
              Account Suspended
            </Heading>
            <Text color="fg.muted">
              Your account has been suspended and can no longer access Coffer. If you believe this is a
              mistake, please contact support.
            </Text>
            <Box w="full" bg="bg.muted" rounded="md" p="4" textAlign="left">
              <Text fontSize="sm" color="fg.muted">
                Reason
              </Text>
              <Text fontWeight="medium" data-testid="ban-reason">
                {reason}
              </Text>
              <Text fontSize="sm" color="fg.muted" mt="3">
                Suspended on
              </Text>
              <Text fontWeight="medium" data-testid="ban-date">
                {date}
              </Text>
            </Box>
            <HStack gap="3" justify="center" wrap="wrap">
              <Button variant="outline" onClick={() => navigate('/')}>
                Return to Home
              </Button>
              <Button colorPalette="red" onClick={() => void dispatch(logOut())}>
                Sign Out
              </Button>
            </HStack>
          </Stack>
        </Card.Body>
      </Card.Root>
    </Center>
  );
}
