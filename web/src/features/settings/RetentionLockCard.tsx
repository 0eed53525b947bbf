// Settings → General: the account's retention lock (issue 19, docs/architecture.md "Retention
// lock"). On takes effect at once; off only after a delay announced by mail, which the owner can
// cancel here until it takes effect.
import { useState } from 'react';
import { Button, Card, HStack, Stack, Text } from '@chakra-ui/react';
import { useGetSettingsQuery, useSetRetentionLockMutation } from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { formatDate, formatDurationHours } from '../../lib/format';
import { FormAlert } from '../shell/FormAlert';
import { SettingSwitch } from '../shell/SettingSwitch';

const FAILED = 'Failed to change the retention lock. Please try again.';

export function RetentionLockCard() {
  // Kept fresh by the PUT's answer (api/cache.ts).
  const { data: settings } = useGetSettingsQuery();
  const [setLock, { isLoading }] = useSetRetentionLockMutation();
  const [error, setError] = useState<string | null>(null);
  const lock = settings?.retentionLock;
  if (!lock) return null;
  const delay = formatDurationHours(lock.offDelaySeconds / 3600);

  const change = async (enabled: boolean) => {
    setError(null);
    try {
      await setLock({ enabled }).unwrap();
    } catch (err) {
      console.error('Retention lock change failed', err);
      setError(apiErrorMessage(err, FAILED, FAILED));
    }
  };

  return (
    <Card.Root maxW="2xl" id="retention-lock" data-testid="retention-lock">
      <Card.Header>
        <Card.Title>Retention lock</Card.Title>
        <Card.Description>
          Backups no stolen login can destroy: while the lock is on, no backup can be deleted before its
          retention date, not by you, an administrator, the API or automatic clean-up.
        </Card.Description>
      </Card.Header>
      <Card.Body>
        <Stack gap="4">
          {error && <FormAlert status="error">{error}</FormAlert>}
          <SettingSwitch
            // A turn-off request leaves the lock on: the new key makes the switch show the server's
            // state again rather than the position the click left it in.
            key={`${lock.enabled}:${lock.offAt ?? ''}`}
            label="Lock backups until their retention date"
            description="Each backup made while the lock is on keeps the date it got (its time plus the retention period then), even if you shorten the retention or turn the lock off later."
            checked={lock.enabled}
            disabled={isLoading}
            onChange={(checked) => void change(checked)}
          />
          {lock.offAt ? (
            <Stack gap="3" data-testid="retention-lock-pending">
              <FormAlert status="warning">
                {`The lock turns off on ${formatDate(lock.offAt)}. Until then it stays on; we mailed you about it.`}
              </FormAlert>
              <HStack>
                <Button size="sm" variant="outline" loading={isLoading} onClick={() => void change(true)}>
                  Keep the lock on
                </Button>
              </HStack>
            </Stack>
          ) : (
            <Text fontSize="sm" color="fg.muted">
              {lock.enabled
                ? `Turning it off takes effect ${delay} after you ask, announced by e-mail, so a turn-off you did not ask for can be cancelled in time.`
                : `Turning it on takes effect at once. Turning it off later takes ${delay}.`}
            </Text>
          )}
          <Text fontSize="sm" color="fg.muted">
            If your account is deleted, locked backups are kept until their date and then removed.
          </Text>
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
