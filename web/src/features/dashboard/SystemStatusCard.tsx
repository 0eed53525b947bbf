// System Status card (product §2 Dashboard): connected agents, or the empty state; Backup Service row.
import { Badge, Box, Button, Card, Center, HStack, Link, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { useCheckServerStatusMutation, useGetSystemStatusQuery, type Agent } from '../../api/generated';
import { isHttpError } from '../../lib/errors';
import { agentDotColor } from '../agents/agentStatus';
import { KeyReplacedNotice } from '../agents/KeyReplacedNotice';
import { notify } from '../shell/toaster';

export const STATUS_REFRESH_MS = 30_000;

function AgentRow({ agent }: { agent: Agent }) {
  return (
    <Stack gap="2" py="2">
      <AgentLine agent={agent} />
      {agent.offlineReason === 'api-key-replaced' && <KeyReplacedNotice agent={agent} />}
    </Stack>
  );
}

function AgentLine({ agent }: { agent: Agent }) {
  return (
    <HStack justify="space-between" gap="3">
      <HStack gap="3" minW="0">
        <Box
          boxSize="2.5"
          rounded="full"
          bg={agentDotColor(agent.status)}
          flexShrink="0"
          aria-label={agent.status}
        />
        <Box minW="0">
          <Text fontWeight="medium" truncate>
            {agent.name}
          </Text>
          <Text fontSize="sm" color="fg.muted">
            Version {agent.version} • {agent.platform}
          </Text>
        </Box>
      </HStack>
      <Link asChild fontSize="sm" color="brand.fg">
        <RouterLink to={`/settings?agent=${encodeURIComponent(agent.id)}`}>Manage</RouterLink>
      </Link>
    </HStack>
  );
}

interface SystemStatusCardProps {
  onOpenWizard?: () => void;
}

export function SystemStatusCard({ onOpenWizard }: SystemStatusCardProps) {
  const { data, error, isLoading } = useGetSystemStatusQuery(undefined, {
    pollingInterval: STATUS_REFRESH_MS,
  });
  const [checkServer, { isLoading: checking }] = useCheckServerStatusMutation();
  if (error) console.error('Failed to load system status', error);
  const agents = data?.agents ?? [];
  const connected = data?.backupService ?? false;

  const check = async () => {
    try {
      await checkServer().unwrap();
      notify({ title: 'Backup service is online and functioning properly', type: 'success' });
    } catch (err) {
      if (isHttpError(err)) notify({ title: 'Backup service appears to be offline', type: 'error' });
      else
        notify({
          title: 'Failed to connect to backup service. Please check your network connection',
          type: 'error',
        });
    }
  };

  return (
    <Card.Root>
      <Card.Header>
        <Card.Title>System Status</Card.Title>
      </Card.Header>
      <Card.Body gap="4">
        {isLoading ? (
          // Not 'No agents / Disconnected' before the answer: that flashed on every load.
          <Text color="fg.muted" py="4" data-testid="system-status-loading">
            Loading...
          </Text>
        ) : agents.length === 0 ? (
          <Center borderWidth="1px" borderStyle="dashed" rounded="md" p="6">
            <Stack align="center" gap="3" textAlign="center">
              <Text fontWeight="medium">No backup agents connected</Text>
              <Text fontSize="sm" color="fg.muted">
                Install the Coffer agent on the server that runs your database to start backing up.
              </Text>
              <Button colorPalette="brand" size="sm" onClick={onOpenWizard} disabled={!onOpenWizard}>
                Open Setup Wizard
              </Button>
            </Stack>
          </Center>
        ) : (
          <Stack gap="0" separator={<Box borderBottomWidth="1px" />}>
            {agents.map((a) => (
              <AgentRow key={a.id} agent={a} />
            ))}
          </Stack>
        )}
        <HStack justify="space-between" borderTopWidth="1px" pt="4">
          <HStack gap="2">
            <Text fontWeight="medium">Backup Service</Text>
            {isLoading ? (
              <Badge colorPalette="gray">Loading...</Badge>
            ) : (
              <Badge colorPalette={connected ? 'green' : 'red'}>
                {connected ? 'Connected' : 'Disconnected'}
              </Badge>
            )}
          </HStack>
          <Button size="xs" variant="outline" onClick={check} loading={checking}>
            Check
          </Button>
        </HStack>
      </Card.Body>
    </Card.Root>
  );
}
