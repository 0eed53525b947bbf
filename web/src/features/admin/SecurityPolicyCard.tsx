// Admin dashboard: whether admins must use two-factor sign-in. An admin without it is then sent to
// set it up (Profile → Security) before anything else, and the API refuses admin operations until then.
import { useState } from 'react';
import { Card, Stack, Switch, Text } from '@chakra-ui/react';
import {
  useAdminGetSecuritySettingsQuery,
  useAdminUpdateSecuritySettingsMutation,
} from '../../api/generated';
import { serverMessage } from '../../lib/errors';
import { FormAlert } from '../shell/FormAlert';

export function SecurityPolicyCard() {
  const { data } = useAdminGetSecuritySettingsQuery();
  const [update, { isLoading }] = useAdminUpdateSecuritySettingsMutation();
  const [error, setError] = useState<string | null>(null);

  const onChange = async (requireAdminTwoFactor: boolean) => {
    setError(null);
    try {
      await update({ requireAdminTwoFactor }).unwrap();
    } catch (err) {
      setError(serverMessage(err) ?? 'Failed to update the security settings');
    }
  };

  return (
    <Card.Root mb="6" data-testid="security-policy">
      <Card.Header>
        <Card.Title>Security</Card.Title>
      </Card.Header>
      <Card.Body gap="3">
        {error && <FormAlert status="error">{error}</FormAlert>}
        <Switch.Root
          checked={data?.requireAdminTwoFactor ?? false}
          disabled={!data || isLoading}
          onCheckedChange={(d) => void onChange(d.checked)}
          colorPalette="brand"
          display="flex"
          justifyContent="space-between"
          alignItems="flex-start"
          gap="4"
          w="full"
        >
          <Stack gap="0">
            <Switch.Label fontWeight="medium">Require two-factor sign-in for admins</Switch.Label>
            <Text fontSize="sm" color="fg.muted">
              An admin without it must set it up in Profile → Security before using the admin tools.
            </Text>
          </Stack>
          <Switch.HiddenInput />
          <Switch.Control>
            <Switch.Thumb />
          </Switch.Control>
        </Switch.Root>
      </Card.Body>
    </Card.Root>
  );
}
