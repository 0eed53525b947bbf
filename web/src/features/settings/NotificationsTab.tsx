// Settings → Notifications (product §2, §8): which e-mails to send, the address, a test mail.
// A new address is used only once the link mailed to it is opened (issue 10): until then the tab
// says which address waits for confirmation and offers to resend or cancel.
import { useState } from 'react';
import { Button, Card, Field, Group, HStack, Input, Stack, Text } from '@chakra-ui/react';
import {
  useCancelNotificationEmailChangeMutation,
  useGetSettingsQuery,
  useResendNotificationEmailConfirmationMutation,
  useSendTestNotificationMutation,
  type NotificationSettings,
} from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { formatDate } from '../../lib/format';
import { FormAlert } from '../shell/FormAlert';
import { SettingSwitch } from '../shell/SettingSwitch';
import { SAVE_FAILED, type SaveSource, type SettingsForm } from './useSettingsForm';

const TOGGLES: { key: keyof NotificationSettings; label: string; description: string }[] = [
  { key: 'backupSuccess', label: 'Backup Success', description: 'An e-mail when a backup completes.' },
  { key: 'backupFailure', label: 'Backup Failure', description: 'An e-mail when a backup fails.' },
  {
    key: 'agentDisconnection',
    label: 'Agent Disconnection',
    description: 'An e-mail when an agent loses its connection.',
  },
];

type Result = { status: 'success' | 'error'; message: string } | null;

interface NotificationsTabProps {
  form: SettingsForm;
  onChange: (patch: Partial<SettingsForm>) => void;
  onSave: (source: SaveSource) => void;
  saving: boolean;
  saved: SaveSource | null;
  failed: SaveSource | null;
  /** The server's reason when the last save failed (e.g. a refused address). */
  failedMessage?: string | null;
}

const CHANGE_FAILED = 'Failed to update the notification email. Please try again.';

/**
 * The address waiting for confirmation, with resend and cancel. The outcome is shown by the
 * parent: a cancel removes this block, and its message must outlive it.
 */
function PendingEmail({
  pending,
  current,
  expiresAt,
  onResult,
}: {
  pending: string;
  current: string;
  expiresAt?: string;
  onResult: (r: Result) => void;
}) {
  const [resend, { isLoading: resending }] = useResendNotificationEmailConfirmationMutation();
  const [cancel, { isLoading: cancelling }] = useCancelNotificationEmailChangeMutation();

  const run = async (call: () => Promise<unknown>, success: string) => {
    onResult(null);
    try {
      await call();
      onResult({ status: 'success', message: success });
    } catch (err) {
      console.error('Notification email change failed', err);
      onResult({ status: 'error', message: apiErrorMessage(err, CHANGE_FAILED, CHANGE_FAILED) });
    }
  };

  return (
    <Stack gap="3" data-testid="pending-notification-email">
      <FormAlert status="warning">
        {`Waiting for confirmation of ${pending}. We sent a link to that address` +
          (expiresAt ? ` (valid until ${formatDate(expiresAt)})` : '') +
          `; until it is opened, notifications keep going to ${current}.`}
      </FormAlert>
      <HStack gap="2" wrap="wrap">
        <Button
          size="sm"
          variant="outline"
          loading={resending}
          onClick={() => void run(() => resend().unwrap(), `A new confirmation link was sent to ${pending}.`)}
        >
          Resend link
        </Button>
        <Button
          size="sm"
          variant="ghost"
          loading={cancelling}
          onClick={() => void run(() => cancel().unwrap(), `Notifications keep going to ${current}.`)}
        >
          Cancel change
        </Button>
      </HStack>
    </Stack>
  );
}

export function NotificationsTab({
  form,
  onChange,
  onSave,
  saving,
  saved,
  failed,
  failedMessage,
}: NotificationsTabProps) {
  const [sendTest, { isLoading: sending }] = useSendTestNotificationMutation();
  const [testResult, setTestResult] = useState<Result>(null);
  const [changeResult, setChangeResult] = useState<Result>(null);
  // Kept fresh by the PUT, resend and cancel answers (api/cache.ts).
  const { data: settings } = useGetSettingsQuery();

  const setToggle = (key: keyof NotificationSettings, checked: boolean) =>
    onChange({ notifications: { ...form.notifications, [key]: checked } });

  const test = async () => {
    setTestResult(null);
    try {
      await sendTest().unwrap();
      setTestResult({
        status: 'success',
        message: 'Test notification sent successfully. Please check your email.',
      });
    } catch (err) {
      console.error('Test notification failed', err);
      setTestResult({ status: 'error', message: 'Failed to send test notification. Please try again.' });
    }
  };

  return (
    <Stack gap="6" maxW="2xl">
      {(failed === 'notifications' || failed === 'email') && (
        <FormAlert status="error">{failedMessage ?? SAVE_FAILED}</FormAlert>
      )}
      <Card.Root>
        <Card.Header>
          <Card.Title>Email Notifications</Card.Title>
          <Card.Description>Choose which events send you an e-mail.</Card.Description>
        </Card.Header>
        <Card.Body gap="5">
          {TOGGLES.map((t) => (
            <SettingSwitch
              key={t.key}
              label={t.label}
              description={t.description}
              checked={form.notifications[t.key]}
              onChange={(checked) => setToggle(t.key, checked)}
            />
          ))}
        </Card.Body>
      </Card.Root>

      <Card.Root>
        <Card.Header>
          <Card.Title>Notification Email</Card.Title>
          <Card.Description>
            Where notifications are sent. A new address receives a confirmation link first.
          </Card.Description>
        </Card.Header>
        <Card.Body gap="4">
          {settings && (
            <Text fontSize="sm" color="fg.muted" data-testid="current-notification-email">
              Notifications are sent to {settings.email}.
            </Text>
          )}
          {settings?.pendingEmail && (
            <PendingEmail
              pending={settings.pendingEmail}
              current={settings.email}
              expiresAt={settings.pendingEmailExpiresAt}
              onResult={setChangeResult}
            />
          )}
          {changeResult && <FormAlert status={changeResult.status}>{changeResult.message}</FormAlert>}
          <Field.Root>
            <Field.Label>Notification Email</Field.Label>
            <Group attached w="full">
              <Input type="email" value={form.email} onChange={(e) => onChange({ email: e.target.value })} />
              <Button
                variant="outline"
                onClick={() => {
                  setChangeResult(null);
                  onSave('email');
                }}
                disabled={saving}
                minW="24"
              >
                {saved === 'email' ? 'Saved!' : 'Update'}
              </Button>
            </Group>
          </Field.Root>
          {testResult && <FormAlert status={testResult.status}>{testResult.message}</FormAlert>}
          <Button variant="outline" alignSelf="flex-start" onClick={() => void test()} loading={sending}>
            Send Test Notification
          </Button>
        </Card.Body>
      </Card.Root>

      <Button
        colorPalette="brand"
        alignSelf="flex-start"
        onClick={() => onSave('notifications')}
        loading={saving}
        minW="40"
      >
        {saved === 'notifications' ? 'Saved!' : 'Save All Changes'}
      </Button>
    </Stack>
  );
}
