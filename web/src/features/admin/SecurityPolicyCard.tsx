// Admin dashboard: whether admins must use two-factor sign-in. An admin without it is then sent to
// set it up (Profile → Security) before anything else, and the API refuses admin operations until then.
import { useState } from 'react';
import { Card } from '@chakra-ui/react';
import {
  useAdminGetSecuritySettingsQuery,
  useAdminUpdateSecuritySettingsMutation,
} from '../../api/generated';
import { serverMessage } from '../../lib/errors';
import { FormAlert } from '../shell/FormAlert';
import { SettingSwitch } from '../shell/SettingSwitch';

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
        <SettingSwitch
          label="Require two-factor sign-in for admins"
          description="An admin without it must set it up in Profile → Security before using the admin tools."
          checked={data?.requireAdminTwoFactor ?? false}
          disabled={!data || isLoading}
          onChange={(checked) => void onChange(checked)}
        />
      </Card.Body>
    </Card.Root>
  );
}
