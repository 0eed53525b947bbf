// Settings → Notifications (spec §2, §8): which e-mails to send, the address, a test mail.
import { useState } from 'react';
import { Button, Card, Field, Group, Input, Stack, Switch, Text } from '@chakra-ui/react';
import { useSendTestNotificationMutation, type NotificationSettings } from '../../api/generated';
import { FormAlert } from '../shell/FormAlert';
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
}

export function NotificationsTab({ form, onChange, onSave, saving, saved, failed }: NotificationsTabProps) {
  const [sendTest, { isLoading: sending }] = useSendTestNotificationMutation();
  const [testResult, setTestResult] = useState<Result>(null);

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
        <FormAlert status="error">{SAVE_FAILED}</FormAlert>
      )}
      <Card.Root>
        <Card.Header>
          <Card.Title>Email Notifications</Card.Title>
          <Card.Description>Choose which events send you an e-mail.</Card.Description>
        </Card.Header>
        <Card.Body gap="5">
          {TOGGLES.map((t) => (
            <Switch.Root
              key={t.key}
              checked={form.notifications[t.key]}
              onCheckedChange={(d) => setToggle(t.key, d.checked)}
              colorPalette="brand"
              display="flex"
              justifyContent="space-between"
              alignItems="flex-start"
              gap="4"
              w="full"
            >
              <Stack gap="0">
                <Switch.Label fontWeight="medium">{t.label}</Switch.Label>
                <Text fontSize="sm" color="fg.muted">
                  {t.description}
                </Text>
              </Stack>
              <Switch.HiddenInput />
              <Switch.Control>
                <Switch.Thumb />
              </Switch.Control>
            </Switch.Root>
          ))}
        </Card.Body>
      </Card.Root>

      <Card.Root>
        <Card.Header>
          <Card.Title>Notification Email</Card.Title>
          <Card.Description>Where notifications are sent.</Card.Description>
        </Card.Header>
        <Card.Body gap="4">
          <Field.Root>
            <Field.Label>Notification Email</Field.Label>
            <Group attached w="full">
              <Input type="email" value={form.email} onChange={(e) => onChange({ email: e.target.value })} />
              <Button variant="outline" onClick={() => onSave('email')} disabled={saving} minW="24">
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
