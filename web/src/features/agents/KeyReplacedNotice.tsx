// An agent offline because its owner regenerated the API key (issue 21, walk 7): a red dot alone
// said nothing; it cannot come back by itself, and the command that brings it back is one line.
import { Alert, Code, Stack, Text } from '@chakra-ui/react';
import { useGetProfileQuery, type Agent } from '../../api/generated';
import { platformFamily } from '../dashboard/summary';
import { CopyableCommand } from './CopyableCommand';
import { MASKED_API_KEY, newApiKeyCommand } from './wizardCommands';

export const KEY_REPLACED_TITLE = "This agent's API key was replaced";

export function KeyReplacedNotice({ agent }: { agent: Pick<Agent, 'name' | 'platform'> }) {
  const { data: profile } = useGetProfileQuery();
  const command = newApiKeyCommand(platformFamily(agent.platform), window.location.origin);
  return (
    <Alert.Root status="warning" data-testid="key-replaced">
      <Alert.Indicator />
      <Alert.Content gap="2" minW="0">
        <Alert.Title>{KEY_REPLACED_TITLE}</Alert.Title>
        <Alert.Description>
          <Stack gap="2">
            <Text>
              {agent.name} still has the key you regenerated, so it cannot reconnect by itself. On its server,
              give it the new key (it keeps its encryption key and databases, and reconnects within seconds):
            </Text>
            <CopyableCommand command={command} testId="new-api-key-command" />
            <Text>
              It asks for the new API key:{' '}
              <Code data-testid="new-api-key">{profile?.apiKey || MASKED_API_KEY}</Code>
            </Text>
          </Stack>
        </Alert.Description>
      </Alert.Content>
    </Alert.Root>
  );
}
