// Settings → Agents (product §2, §4, §8): the user's agents, a detail card, commands and maintenance.
import { useEffect, useRef, useState } from 'react';
import {
  Box,
  Button,
  Card,
  Center,
  DataList,
  GridItem,
  HStack,
  SimpleGrid,
  Stack,
  Text,
} from '@chakra-ui/react';
import {
  useGetSystemStatusQuery,
  useManageAgentMutation,
  useRemoveAgentMutation,
  type Agent,
  type AgentAction,
} from '../../api/generated';
import { formatDate } from '../../lib/format';
import { agentDotColor, agentStatusLabel } from '../agents/agentStatus';
import { CopyableCommand } from '../agents/CopyableCommand';
import { KeyReplacedNotice } from '../agents/KeyReplacedNotice';
import { updateResultText, type UpdateCheck } from '../agents/updateResult';
import { uninstallCommand } from '../agents/wizardCommands';
import { useRealtimeEvent } from '../../realtime/useRealtimeEvent';
import { platformFamily } from '../dashboard/summary';
import { useConfirm } from '../shell/ConfirmDialog';
import { FormAlert } from '../shell/FormAlert';

const ACTION_TEXT: Record<AgentAction, { ok: string; failed: string }> = {
  restart: { ok: 'Restart command sent to agent', failed: 'Failed to send restart command' },
  update: { ok: 'Update check command sent to agent', failed: 'Failed to send update check command' },
  reset: {
    // The spec's sentence, then what actually happens: the agent gives up its old identity and
    // registers again as a new agent by itself; nothing on its server needs reconfiguring.
    ok:
      'Reset command sent to agent. You may need to reconfigure the agent with new credentials. ' +
      'A running agent does this by itself: it reconnects as a new agent within seconds, and one that is ' +
      'offline now does so when it next starts.',
    failed: 'Failed to reset agent',
  },
};

type Result = { status: 'success' | 'error'; message: string } | null;

function StillRunningNote({ agent }: { agent: Pick<Agent, 'name' | 'platform'> }) {
  return (
    <Stack gap="2" mt="3" data-testid="remove-running-agent">
      <Text fontSize="sm">
        {agent.name} is still running, so it would register again within seconds. Stop and uninstall it on its
        server first (its encryption key and configuration stay there):
      </Text>
      <CopyableCommand
        command={uninstallCommand(platformFamily(agent.platform), window.location.origin)}
        testId="uninstall-command"
      />
    </Stack>
  );
}

function UpdateCheckNote({ check }: { check: UpdateCheck }) {
  const { status, message } = updateResultText(check);
  return (
    <Box data-testid="agent-update-result">
      <FormAlert status={status}>{message}</FormAlert>
    </Box>
  );
}

interface AgentsTabProps {
  selectedId: string | null;
  onSelect: (id: string | null) => void;
  onSetupNew: () => void;
}

export function AgentsTab({ selectedId, onSelect, onSetupNew }: AgentsTabProps) {
  const { data, isLoading, error } = useGetSystemStatusQuery();
  const [manage, { isLoading: managing, originalArgs }] = useManageAgentMutation();
  const [removeAgent, { isLoading: removing }] = useRemoveAgentMutation();
  const sending = managing || removing;
  const [result, setResult] = useState<Result>(null);
  /** Per agent: the answer to the last Check for Updates, or 'checking' until it arrives. */
  const [updateChecks, setUpdateChecks] = useState<Record<string, UpdateCheck>>({});
  useRealtimeEvent('agentUpdate', (e) => setUpdateChecks((checks) => ({ ...checks, [e.agentId]: e })));
  const [confirm, confirmDialog] = useConfirm();
  if (error) console.error('Failed to load agents', error);

  const agents = data?.agents ?? [];
  const selected = agents.find((a) => a.id === selectedId) ?? null;

  const send = async (agent: Agent, action: AgentAction) => {
    setResult(null);
    // Before the request: the agent's answer may arrive before the server's reply to it does.
    if (action === 'update') setUpdateChecks((checks) => ({ ...checks, [agent.id]: 'checking' }));
    try {
      await manage({ agentId: agent.id, body: { action } }).unwrap();
      setResult({ status: 'success', message: ACTION_TEXT[action].ok });
    } catch (err) {
      console.error(`Agent ${action} failed`, err);
      setResult({ status: 'error', message: ACTION_TEXT[action].failed });
      if (action === 'update') setUpdateChecks(({ [agent.id]: _sent, ...others }) => others);
    }
  };

  const reset = async (agent: Agent) => {
    const ok = await confirm('Reset agent connection? This will generate new connection credentials.', {
      title: 'Reset connection',
      confirmLabel: 'Reset',
      destructive: true,
    });
    if (ok) await send(agent, 'reset');
  };

  // Deletes the agent's record (its backups stay) and disconnects it; the list is fetched again.
  // An agent that still runs would register again within seconds (issue 21, walk 4): the dialog
  // says so and gives the command that stops and uninstalls it on its server first.
  const remove = async (agent: Agent) => {
    const ok = await confirm(
      'Are you sure you want to remove this agent? This will not delete any existing backups.',
      {
        title: 'Remove agent',
        confirmLabel: 'Remove',
        destructive: true,
        details: agent.status !== 'offline' && <StillRunningNote agent={agent} />,
      },
    );
    if (!ok) return;
    setResult(null);
    try {
      await removeAgent(agent.id).unwrap();
      onSelect(null);
    } catch (err) {
      console.error('Agent removal failed', err);
      setResult({ status: 'error', message: 'Failed to remove agent' });
    }
  };

  const busy = (action: AgentAction) => managing && originalArgs?.body.action === action;
  // Shown on whichever card is there: a reset retires the agent's record at once (it comes back
  // under a new id), so the detail card it was sent from gives way to 'No Agent Selected'.
  // ...and brought into view when it appears or moves to the other card (on a phone the cards stack).
  const resultRef = useRef<HTMLDivElement>(null);
  const shownOn = selected?.id;
  useEffect(() => {
    if (result) resultRef.current?.scrollIntoView({ block: 'nearest' });
  }, [result, shownOn]);
  const resultAlert = result && (
    <Box ref={resultRef}>
      <FormAlert status={result.status}>{result.message}</FormAlert>
    </Box>
  );

  return (
    <>
      <SimpleGrid columns={{ base: 1, md: 3 }} gap="6" alignItems="start">
        <Card.Root>
          <Card.Header>
            <Card.Title>Agents</Card.Title>
            <Card.Description>Servers running the Coffer agent</Card.Description>
          </Card.Header>
          <Card.Body>
            {isLoading ? (
              <Text color="fg.muted">Loading...</Text>
            ) : agents.length === 0 ? (
              <Stack align="center" gap="3" textAlign="center" py="4">
                <Text fontWeight="medium">No agents configured</Text>
                <Text fontSize="sm" color="fg.muted">
                  Install an agent with your API key to start backing up.
                </Text>
                <Button size="sm" colorPalette="brand" onClick={onSetupNew}>
                  Setup New Agent
                </Button>
              </Stack>
            ) : (
              <Stack gap="1" role="listbox" aria-label="Agents">
                {agents.map((a) => {
                  const active = a.id === selected?.id;
                  return (
                    <Button
                      key={a.id}
                      role="option"
                      aria-selected={active}
                      variant={active ? 'subtle' : 'ghost'}
                      colorPalette={active ? 'brand' : 'gray'}
                      justifyContent="flex-start"
                      h="auto"
                      py="2"
                      onClick={() => {
                        setResult(null);
                        onSelect(a.id);
                      }}
                    >
                      <HStack gap="3" minW="0" w="full">
                        <Box boxSize="2.5" rounded="full" bg={agentDotColor(a.status)} flexShrink="0" />
                        <Box minW="0" textAlign="start">
                          <Text fontWeight="medium" truncate>
                            {a.name}
                          </Text>
                          <Text fontSize="xs" color="fg.muted" fontWeight="normal">
                            {a.platform}
                          </Text>
                        </Box>
                      </HStack>
                    </Button>
                  );
                })}
              </Stack>
            )}
          </Card.Body>
        </Card.Root>

        <GridItem colSpan={{ base: 1, md: 2 }}>
          {!selected ? (
            <Card.Root>
              <Card.Body gap="4">
                {resultAlert}
                <Center py="12">
                  <Stack align="center" gap="1" textAlign="center">
                    <Text fontWeight="medium">No Agent Selected</Text>
                    <Text fontSize="sm" color="fg.muted">
                      Choose an agent from the list to see its details and send it commands.
                    </Text>
                  </Stack>
                </Center>
              </Card.Body>
            </Card.Root>
          ) : (
            <Card.Root data-testid="agent-detail">
              <Card.Header>
                <HStack gap="3">
                  <Box boxSize="3" rounded="full" bg={agentDotColor(selected.status)} />
                  <Card.Title>{selected.name}</Card.Title>
                </HStack>
              </Card.Header>
              <Card.Body gap="6">
                {resultAlert}
                {selected.offlineReason === 'api-key-replaced' && <KeyReplacedNotice agent={selected} />}
                <DataList.Root orientation="horizontal" size="md">
                  <DataList.Item>
                    <DataList.ItemLabel>Status</DataList.ItemLabel>
                    <DataList.ItemValue>{agentStatusLabel(selected.status)}</DataList.ItemValue>
                  </DataList.Item>
                  <DataList.Item>
                    <DataList.ItemLabel>Last Seen</DataList.ItemLabel>
                    <DataList.ItemValue>
                      {selected.lastSeen ? formatDate(selected.lastSeen) || 'Unknown' : 'Never'}
                    </DataList.ItemValue>
                  </DataList.Item>
                  <DataList.Item>
                    <DataList.ItemLabel>Platform</DataList.ItemLabel>
                    <DataList.ItemValue>{selected.platform}</DataList.ItemValue>
                  </DataList.Item>
                  <DataList.Item>
                    <DataList.ItemLabel>Version</DataList.ItemLabel>
                    <DataList.ItemValue>{selected.version}</DataList.ItemValue>
                  </DataList.Item>
                </DataList.Root>

                <Stack gap="2" borderTopWidth="1px" pt="5">
                  <Text fontWeight="semibold">Agent Commands</Text>
                  <HStack gap="3" wrap="wrap">
                    <Button
                      variant="outline"
                      size="sm"
                      loading={busy('restart')}
                      disabled={sending}
                      onClick={() => void send(selected, 'restart')}
                    >
                      Restart Agent
                    </Button>
                    <Button
                      variant="outline"
                      size="sm"
                      loading={busy('update')}
                      disabled={sending}
                      onClick={() => void send(selected, 'update')}
                    >
                      Check for Updates
                    </Button>
                  </HStack>
                  {updateChecks[selected.id] && <UpdateCheckNote check={updateChecks[selected.id]!} />}
                </Stack>

                <Stack gap="2" borderTopWidth="1px" pt="5">
                  <Text fontWeight="semibold">Maintenance</Text>
                  <HStack gap="3" wrap="wrap">
                    <Button
                      variant="outline"
                      colorPalette="red"
                      size="sm"
                      loading={removing}
                      disabled={sending}
                      onClick={() => void remove(selected)}
                    >
                      Remove Agent
                    </Button>
                    <Button
                      variant="outline"
                      colorPalette="orange"
                      size="sm"
                      loading={busy('reset')}
                      disabled={sending}
                      onClick={() => void reset(selected)}
                    >
                      Reset Connection
                    </Button>
                  </HStack>
                  <Text fontSize="xs" color="fg.muted">
                    Removing an agent keeps its backups. After a reset the agent registers again as a new
                    agent by itself.
                  </Text>
                </Stack>
              </Card.Body>
            </Card.Root>
          )}
        </GridItem>
      </SimpleGrid>
      {confirmDialog}
    </>
  );
}
