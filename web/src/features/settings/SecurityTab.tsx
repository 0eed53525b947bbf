// Settings → Security (product §2, §4, §8): API key (Show/Hide, Regenerate), service endpoint.
import { useEffect, useRef, useState } from 'react';
import { Button, Card, Field, Group, Input, Stack, Text } from '@chakra-ui/react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { copyText } from '../../lib/clipboard';
import { patchSessionUser } from '../auth/sessionActions';
import { useGetProfileQuery, useRegenerateApiKeyMutation } from '../../api/generated';
import { useConfirm } from '../shell/ConfirmDialog';
import { FormAlert } from '../shell/FormAlert';

/** A regenerated key stays revealed this long (product §9). */
export const REVEAL_MS = 30_000;
export const COPY_CONFIRM_MS = 2000;

type Result = { status: 'success' | 'error'; message: string } | null;

export function SecurityTab() {
  const dispatch = useAppDispatch();
  const sessionKey = useAppSelector((s) => s.auth.user?.apiKey);
  const { data: profile } = useGetProfileQuery();
  const [regenerate, { isLoading }] = useRegenerateApiKeyMutation();
  const [fresh, setFresh] = useState<string | null>(null);
  const [visible, setVisible] = useState(false);
  const [result, setResult] = useState<Result>(null);
  const [copied, setCopied] = useState(false);
  const [confirm, confirmDialog] = useConfirm();
  const revealTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const copyTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (revealTimer.current) clearTimeout(revealTimer.current);
      if (copyTimer.current) clearTimeout(copyTimer.current);
    },
    [],
  );

  const apiKey = fresh ?? profile?.apiKey ?? sessionKey ?? '';
  const endpoint = window.location.origin;

  const onRegenerate = async () => {
    const ok = await confirm(
      'Are you sure you want to regenerate your API key? This will invalidate your current key and require reconfiguring all your agents.',
      { title: 'Regenerate API key', confirmLabel: 'Regenerate', destructive: true },
    );
    if (!ok) return;
    setResult(null);
    try {
      const res = await regenerate().unwrap();
      setFresh(res.apiKey);
      dispatch(patchSessionUser({ apiKey: res.apiKey }));
      setResult({
        status: 'success',
        message: "API key has been regenerated. You'll need to update your agents with the new key.",
      });
      setVisible(true);
      if (revealTimer.current) clearTimeout(revealTimer.current);
      revealTimer.current = setTimeout(() => setVisible(false), REVEAL_MS);
    } catch (err) {
      console.error('Failed to regenerate API key', err);
      setResult({ status: 'error', message: 'Failed to regenerate API key. Please try again.' });
    }
  };

  const onCopy = async () => {
    if (!(await copyText(endpoint))) return;
    setCopied(true);
    if (copyTimer.current) clearTimeout(copyTimer.current);
    copyTimer.current = setTimeout(() => setCopied(false), COPY_CONFIRM_MS);
  };

  return (
    <Stack gap="6" maxW="2xl">
      <Card.Root>
        <Card.Header>
          <Card.Title>API Key</Card.Title>
          <Card.Description>Your agents authenticate with this key. Keep it secret.</Card.Description>
        </Card.Header>
        <Card.Body gap="4">
          {result && <FormAlert status={result.status}>{result.message}</FormAlert>}
          <Field.Root>
            <Field.Label>API Key</Field.Label>
            <Group attached w="full">
              <Input
                readOnly
                type={visible ? 'text' : 'password'}
                value={apiKey}
                fontFamily="mono"
                data-testid="settings-api-key"
              />
              <Button variant="outline" onClick={() => setVisible((v) => !v)} minW="20">
                {visible ? 'Hide' : 'Show'}
              </Button>
            </Group>
          </Field.Root>
          <Button
            colorPalette="red"
            variant="outline"
            alignSelf="flex-start"
            onClick={() => void onRegenerate()}
            loading={isLoading}
          >
            Regenerate API Key
          </Button>
        </Card.Body>
      </Card.Root>

      <Card.Root>
        <Card.Header>
          <Card.Title>Service Endpoint</Card.Title>
          <Card.Description>The address your agents connect to.</Card.Description>
        </Card.Header>
        <Card.Body gap="3">
          <Field.Root>
            <Field.Label>Service Endpoint</Field.Label>
            <Group attached w="full">
              <Input readOnly value={endpoint} fontFamily="mono" />
              <Button variant="outline" onClick={() => void onCopy()} minW="20">
                Copy
              </Button>
            </Group>
          </Field.Root>
          {copied && (
            <Text fontSize="sm" color="fg.success" role="status">
              Copied to clipboard!
            </Text>
          )}
        </Card.Body>
      </Card.Root>

      <Card.Root variant="subtle">
        <Card.Body>
          <Text fontWeight="semibold" mb="1">
            Encryption keys
          </Text>
          <Text fontSize="sm" color="fg.muted">
            Encryption keys are managed locally on the agent and never leave your server. Coffer stores only
            encrypted backups and cannot read them. Export a copy of the key with{' '}
            <Text as="span" fontFamily="mono">
              coffer-agent key export
            </Text>{' '}
            and keep it safe.
          </Text>
        </Card.Body>
      </Card.Root>
      {confirmDialog}
    </Stack>
  );
}
