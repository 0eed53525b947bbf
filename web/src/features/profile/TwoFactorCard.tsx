// Profile → Security: two-factor sign-in (TOTP). Set-up shows a QR code and the key as text and is
// on once a first code confirms it; the ten recovery codes are shown once, then and after a
// regeneration. Turning it off and new recovery codes need a step-up (the dialog in StepUpDialog).
import { useState, type FormEvent } from 'react';
import {
  Badge,
  Box,
  Button,
  Card,
  Field,
  HStack,
  Image,
  Input,
  SimpleGrid,
  Stack,
  Text,
} from '@chakra-ui/react';
import {
  useDisableTwoFactorMutation,
  useEnableTwoFactorMutation,
  useGetTwoFactorQuery,
  useRegenerateRecoveryCodesMutation,
  useStartTwoFactorSetupMutation,
  type StartTwoFactorSetupApiResponse,
} from '../../api/generated';
import { copyText } from '../../lib/clipboard';
import { apiErrorMessage, serverMessage } from '../../lib/errors';
import { useConfirm } from '../shell/ConfirmDialog';
import { FormAlert } from '../shell/FormAlert';

type Result = { status: 'success' | 'error'; message: string } | null;

/** The key in groups of four, as authenticator apps show it. */
const grouped = (secret: string) => secret.replace(/(.{4})/g, '$1 ').trim();

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <Stack gap="4" data-testid="recovery-codes">
      <FormAlert status="warning">
        Save these recovery codes now: they are shown only this once. Each works once, in place of a code from
        your authenticator app.
      </FormAlert>
      <SimpleGrid columns={{ base: 1, sm: 2 }} gap="2" as="ul" listStyleType="none">
        {codes.map((c) => (
          <Box as="li" key={c} fontFamily="mono" fontSize="md" px="3" py="1.5" bg="bg.muted" rounded="md">
            {c}
          </Box>
        ))}
      </SimpleGrid>
      <HStack gap="3" flexWrap="wrap">
        <Button
          variant="outline"
          onClick={() =>
            void copyText(codes.join('\n')).then((ok) => {
              if (ok) setCopied(true);
            })
          }
        >
          {copied ? 'Copied' : 'Copy codes'}
        </Button>
        <Button colorPalette="brand" onClick={onDone}>
          I have saved my recovery codes
        </Button>
      </HStack>
    </Stack>
  );
}

function SetupForm({
  setup,
  onCancel,
  onEnabled,
}: {
  setup: StartTwoFactorSetupApiResponse;
  onCancel: () => void;
  onEnabled: (codes: string[]) => void;
}) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [enable, { isLoading }] = useEnableTwoFactorMutation();

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!/^\d{6}$/.test(code.trim())) {
      setError('Enter the six-digit code from your authenticator app');
      return;
    }
    try {
      onEnabled((await enable({ code: code.trim() }).unwrap()).recoveryCodes);
    } catch (err) {
      setError(
        apiErrorMessage(err, 'That code did not work', 'The code could not be checked. Please try again.'),
      );
    }
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="5">
        <Text>
          1. Scan this QR code with an authenticator app (1Password, Google Authenticator, Authy, Microsoft
          Authenticator…).
        </Text>
        <Image
          src={setup.qrCode}
          alt="QR code for your authenticator app"
          boxSize={{ base: '180px', md: '200px' }}
          bg="white"
          p="2"
          rounded="md"
          borderWidth="1px"
        />
        <Box>
          <Text fontSize="sm" color="fg.muted">
            Can&apos;t scan it? Enter this key in the app instead:
          </Text>
          <Text fontFamily="mono" fontSize="md" wordBreak="break-all" data-testid="two-factor-secret">
            {grouped(setup.secret)}
          </Text>
        </Box>
        <Text>2. Enter the six-digit code the app shows to turn two-factor sign-in on.</Text>
        {error && <FormAlert status="error">{error}</FormAlert>}
        <Field.Root invalid={Boolean(error)} maxW="xs">
          <Field.Label>Two-factor code</Field.Label>
          <Input
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            fontFamily="mono"
            placeholder="123456"
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        </Field.Root>
        <HStack gap="3" flexWrap="wrap">
          <Button type="submit" colorPalette="brand" loading={isLoading}>
            Turn on
          </Button>
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
        </HStack>
      </Stack>
    </form>
  );
}

export function TwoFactorCard() {
  const { data: status, isLoading } = useGetTwoFactorQuery();
  const [startSetup, { isLoading: starting }] = useStartTwoFactorSetupMutation();
  const [disable, { isLoading: disabling }] = useDisableTwoFactorMutation();
  const [regenerate, { isLoading: regenerating }] = useRegenerateRecoveryCodesMutation();
  const [setup, setSetup] = useState<StartTwoFactorSetupApiResponse | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [result, setResult] = useState<Result>(null);
  const [confirm, confirmDialog] = useConfirm();

  const failed = (err: unknown, fallback: string) =>
    setResult({ status: 'error', message: serverMessage(err) ?? fallback });

  const onStart = async () => {
    setResult(null);
    try {
      setSetup(await startSetup().unwrap());
    } catch (err) {
      failed(err, 'Two-factor sign-in could not be set up. Please try again.');
    }
  };

  const onDisable = async () => {
    const ok = await confirm(
      'Turn off two-factor sign-in? Signing in will need only your password, and your recovery codes stop working.',
      { title: 'Turn off two-factor sign-in', confirmLabel: 'Turn off', destructive: true },
    );
    if (!ok) return;
    setResult(null);
    try {
      await disable().unwrap();
      setResult({ status: 'success', message: 'Two-factor sign-in is off.' });
    } catch (err) {
      failed(err, 'Two-factor sign-in could not be turned off. Please try again.');
    }
  };

  const onRegenerate = async () => {
    const ok = await confirm('Replace your recovery codes? The current ones stop working at once.', {
      title: 'New recovery codes',
      confirmLabel: 'Replace codes',
      destructive: true,
    });
    if (!ok) return;
    setResult(null);
    try {
      setCodes((await regenerate().unwrap()).recoveryCodes);
    } catch (err) {
      failed(err, 'New recovery codes could not be made. Please try again.');
    }
  };

  return (
    <Card.Root data-testid="two-factor-card">
      <Card.Header>
        <HStack justify="space-between" flexWrap="wrap" gap="2">
          <Card.Title>Two-factor sign-in</Card.Title>
          {status && (
            <Badge colorPalette={status.enabled ? 'green' : 'gray'}>{status.enabled ? 'On' : 'Off'}</Badge>
          )}
        </HStack>
        <Card.Description>
          Sign-in asks for a code from an authenticator app after your password, and deleting backups, a new
          API key or a new e-mail or password ask for it again.
        </Card.Description>
      </Card.Header>
      <Card.Body gap="4">
        {status?.enrolmentRequired && (
          <FormAlert status="warning">
            Admins must use two-factor sign-in on this site. Set it up to use the admin tools.
          </FormAlert>
        )}
        {result && <FormAlert status={result.status}>{result.message}</FormAlert>}
        {isLoading || !status ? null : codes ? (
          <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
        ) : setup && !status.enabled ? (
          <SetupForm
            setup={setup}
            onCancel={() => setSetup(null)}
            onEnabled={(c) => {
              setSetup(null);
              setCodes(c);
              setResult({ status: 'success', message: 'Two-factor sign-in is on.' });
            }}
          />
        ) : status.enabled ? (
          <Stack gap="4">
            <Text>
              Recovery codes left: <strong>{status.recoveryCodesLeft}</strong>
            </Text>
            <HStack gap="3" flexWrap="wrap">
              <Button variant="outline" onClick={() => void onRegenerate()} loading={regenerating}>
                New recovery codes
              </Button>
              <Button
                colorPalette="red"
                variant="outline"
                onClick={() => void onDisable()}
                loading={disabling}
              >
                Turn off two-factor sign-in
              </Button>
            </HStack>
          </Stack>
        ) : (
          <Button
            colorPalette="brand"
            alignSelf="flex-start"
            onClick={() => void onStart()}
            loading={starting}
          >
            Set up two-factor sign-in
          </Button>
        )}
      </Card.Body>
      {confirmDialog}
    </Card.Root>
  );
}
