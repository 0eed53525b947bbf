// Agent Setup Wizard (product §2): six steps in a modal — Welcome, Platform, Installation method,
// Download (skipped for the automated installer), Install and configure, Verify.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import {
  Alert,
  Badge,
  Box,
  Button,
  CloseButton,
  Code,
  Dialog,
  HStack,
  List,
  Portal,
  Progress,
  RadioCard,
  Stack,
  Switch,
  Text,
} from '@chakra-ui/react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { baseApi } from '../../api/baseApi';
import { useCopied } from './CopyableCommand';
import { useGetProfileQuery } from '../../api/generated';
import {
  AGENT_BINARY,
  downloadPath,
  effectiveMethod,
  installCommand,
  LINUX_PACKAGES,
  MASKED_API_KEY,
  packageCommand,
  nextStep,
  previousStep,
  reachabilityHint,
  STEP_TRANSITION_MS,
  WIZARD_STEPS,
  type AgentPlatform,
  type InstallMethod,
  type LinuxPackage,
} from './wizardCommands';

interface AgentSetupWizardProps {
  open: boolean;
  onClose: () => void;
}

export function AgentSetupWizard({ open, onClose }: AgentSetupWizardProps) {
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(e) => {
        if (!e.open) onClose();
      }}
      size="lg"
      placement="center"
      scrollBehavior="inside"
      // a fresh wizard (step 1) on every opening
      lazyMount
      unmountOnExit
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content data-testid="setup-wizard">
            <WizardSteps onClose={onClose} />
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

const STEP_TITLES = [
  'Welcome',
  'Choose your platform',
  'Installation method',
  'Download the agent',
  'Install and configure',
  'Verify the connection',
] as const;

function WizardSteps({ onClose }: { onClose: () => void }) {
  const dispatch = useAppDispatch();
  const [step, setStep] = useState(1);
  const [fading, setFading] = useState(false);
  const [platform, setPlatform] = useState<AgentPlatform>('linux');
  const [chosenMethod, setMethod] = useState<InstallMethod>('automated');
  const method = effectiveMethod(platform, chosenMethod);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const go = (to: number) => {
    if (to === step || fading) return;
    setFading(true);
    timer.current = setTimeout(() => {
      setStep(to);
      setFading(false);
    }, STEP_TRANSITION_MS);
  };

  const checkStatus = () => {
    dispatch(baseApi.util.invalidateTags(['SystemStatus']));
    onClose();
  };

  let body: ReactNode;
  switch (step) {
    case 1:
      body = <WelcomeStep />;
      break;
    case 2:
      body = <PlatformStep platform={platform} onChange={setPlatform} />;
      break;
    case 3:
      body = <MethodStep platform={platform} method={method} onChange={setMethod} />;
      break;
    case 4:
      body = <DownloadStep platform={platform} />;
      break;
    case 5:
      body = <InstallStep platform={platform} method={method} />;
      break;
    default:
      body = <VerifyStep onCheck={checkStatus} />;
  }

  return (
    <>
      <Dialog.Header flexDirection="column" alignItems="stretch" gap="3">
        <Dialog.Title>Agent Setup Wizard</Dialog.Title>
        <Stack gap="1.5">
          <HStack justify="space-between" fontSize="sm">
            <Text fontWeight="medium">{STEP_TITLES[step - 1]}</Text>
            <Text color="fg.muted" data-testid="wizard-step">
              Step {step} of {WIZARD_STEPS}
            </Text>
          </HStack>
          <Progress.Root
            value={(step / WIZARD_STEPS) * 100}
            size="xs"
            colorPalette="brand"
            aria-label="Setup progress"
          >
            <Progress.Track rounded="full">
              <Progress.Range transition="width 0.2s" />
            </Progress.Track>
          </Progress.Root>
        </Stack>
      </Dialog.Header>
      <Dialog.Body>
        <Box opacity={fading ? 0 : 1} transition={`opacity ${STEP_TRANSITION_MS}ms ease`} minH="64">
          {body}
        </Box>
      </Dialog.Body>
      <Dialog.Footer justifyContent="space-between">
        <Button variant="outline" onClick={() => go(previousStep(step, method))} disabled={step === 1}>
          Previous
        </Button>
        {step < WIZARD_STEPS ? (
          <Button colorPalette="brand" onClick={() => go(nextStep(step, method))}>
            Next
          </Button>
        ) : (
          <Button colorPalette="brand" variant="outline" onClick={onClose}>
            Close
          </Button>
        )}
      </Dialog.Footer>
      <Dialog.CloseTrigger asChild>
        <CloseButton size="sm" />
      </Dialog.CloseTrigger>
    </>
  );
}

function WelcomeStep() {
  return (
    <Stack gap="4">
      <Text>
        The Coffer agent runs on your own server, next to MongoDB. It dumps your databases with the native
        MongoDB tools, encrypts every backup with AES-256 <em>before</em> it leaves the server and uploads
        only the encrypted file.
      </Text>
      <Text color="fg.muted" fontSize="sm">
        Your connection strings and your encryption key never leave that server.
      </Text>
      <Box>
        <Text fontWeight="medium" mb="2">
          You will need:
        </Text>
        <List.Root ps="5" gap="1" fontSize="sm" color="fg.muted">
          <List.Item>A Linux or Windows server that can reach your MongoDB database</List.Item>
          <List.Item>Administrator (sudo) rights to install the agent</List.Item>
          <List.Item>About five minutes</List.Item>
        </List.Root>
        <Text fontSize="sm" color="fg.muted" mt="2">
          Nothing else to install: the agent brings its own mongodump and mongorestore.
        </Text>
      </Box>
    </Stack>
  );
}

function PlatformStep({
  platform,
  onChange,
}: {
  platform: AgentPlatform;
  onChange: (p: AgentPlatform) => void;
}) {
  return (
    <RadioCard.Root
      value={platform}
      onValueChange={(d) => d.value && onChange(d.value as AgentPlatform)}
      colorPalette="brand"
    >
      <RadioCard.Label>Where will the agent run?</RadioCard.Label>
      <Stack direction={{ base: 'column', sm: 'row' }} gap="3" mt="2">
        <RadioCard.Item value="linux" flex="1">
          <RadioCard.ItemHiddenInput />
          <RadioCard.ItemControl>
            <RadioCard.ItemContent>
              <RadioCard.ItemText>Linux</RadioCard.ItemText>
              <RadioCard.ItemDescription>Ubuntu, Debian, CentOS</RadioCard.ItemDescription>
            </RadioCard.ItemContent>
            <RadioCard.ItemIndicator />
          </RadioCard.ItemControl>
        </RadioCard.Item>
        <RadioCard.Item value="windows" flex="1">
          <RadioCard.ItemHiddenInput />
          <RadioCard.ItemControl>
            <RadioCard.ItemContent>
              <RadioCard.ItemText>Windows</RadioCard.ItemText>
              <RadioCard.ItemDescription>Windows Server 2019+</RadioCard.ItemDescription>
            </RadioCard.ItemContent>
            <RadioCard.ItemIndicator />
          </RadioCard.ItemControl>
        </RadioCard.Item>
      </Stack>
    </RadioCard.Root>
  );
}

function MethodStep({
  platform,
  method,
  onChange,
}: {
  platform: AgentPlatform;
  method: InstallMethod;
  onChange: (m: InstallMethod) => void;
}) {
  if (platform === 'windows') {
    return (
      <Stack gap="4">
        <RadioCard.Root value="manual" colorPalette="brand">
          <RadioCard.Label>How do you want to install the agent?</RadioCard.Label>
          <RadioCard.Item value="manual" mt="2">
            <RadioCard.ItemHiddenInput />
            <RadioCard.ItemControl>
              <RadioCard.ItemContent>
                <RadioCard.ItemText>Manual installation</RadioCard.ItemText>
                <RadioCard.ItemDescription>
                  Download the agent and run the setup commands yourself.
                </RadioCard.ItemDescription>
              </RadioCard.ItemContent>
              <RadioCard.ItemIndicator />
            </RadioCard.ItemControl>
          </RadioCard.Item>
        </RadioCard.Root>
        <Text fontSize="sm" color="fg.muted">
          On Windows the agent is installed manually; the single-command installer is for Linux.
        </Text>
      </Stack>
    );
  }
  return (
    <RadioCard.Root
      value={method}
      onValueChange={(d) => d.value && onChange(d.value as InstallMethod)}
      colorPalette="brand"
    >
      <RadioCard.Label>How do you want to install the agent?</RadioCard.Label>
      <Stack gap="3" mt="2">
        <RadioCard.Item value="automated">
          <RadioCard.ItemHiddenInput />
          <RadioCard.ItemControl>
            <RadioCard.ItemContent>
              <HStack gap="2">
                <RadioCard.ItemText>Automated installation</RadioCard.ItemText>
                <Badge colorPalette="green" size="sm">
                  Recommended
                </Badge>
              </HStack>
              <RadioCard.ItemDescription>
                One command downloads, installs and configures the agent as a system service.
              </RadioCard.ItemDescription>
            </RadioCard.ItemContent>
            <RadioCard.ItemIndicator />
          </RadioCard.ItemControl>
        </RadioCard.Item>
        <RadioCard.Item value="manual">
          <RadioCard.ItemHiddenInput />
          <RadioCard.ItemControl>
            <RadioCard.ItemContent>
              <RadioCard.ItemText>Manual installation</RadioCard.ItemText>
              <RadioCard.ItemDescription>
                Download the agent binary and run the setup commands yourself.
              </RadioCard.ItemDescription>
            </RadioCard.ItemContent>
            <RadioCard.ItemIndicator />
          </RadioCard.ItemControl>
        </RadioCard.Item>
      </Stack>
    </RadioCard.Root>
  );
}

function DownloadStep({ platform }: { platform: AgentPlatform }) {
  return (
    <Stack gap="4">
      <Text>
        Download the agent for {platform === 'windows' ? 'Windows' : 'Linux'} and save it on the server that
        can reach your database.
      </Text>
      <Button asChild colorPalette="brand" alignSelf="flex-start">
        <a href={downloadPath(platform)} target="_blank" rel="noopener noreferrer">
          Download {AGENT_BINARY[platform]}
        </a>
      </Button>
      <Text fontSize="sm" color="fg.muted">
        The download opens in a new tab. Keep the file in the folder you will run the next commands from.
      </Text>
    </Stack>
  );
}

function InstallStep({ platform, method }: { platform: AgentPlatform; method: InstallMethod }) {
  const session = useAppSelector((s) => s.auth.user);
  const { data: profile } = useGetProfileQuery();
  const apiKey = profile?.apiKey || session?.apiKey || '';
  const [root, setRoot] = useState(false);
  const command = installCommand(platform, method, window.location.origin, { root });

  return (
    <Stack gap="4">
      <Text>
        {method === 'automated'
          ? 'Run this command on your server. It installs the agent, connects it to your account and starts it as a service.'
          : platform === 'windows'
            ? 'Open PowerShell as Administrator and run these lines. They go to your Downloads folder and fetch the installer, which checks the agent you downloaded against the checksums Coffer publishes (or downloads it), creates your encryption key and installs the agent as a Windows service.'
            : `In the folder where you saved ${AGENT_BINARY.linux}, run these commands one at a time. They check the download against the checksums Coffer publishes, install the agent, create your encryption key, then run the installer for the systemd service (it keeps the configuration you just made).`}
      </Text>
      <CommandBlock
        command={command}
        prompt={platform === 'windows' ? '> ' : root ? '# ' : '$ '}
        testId="install-command"
      />
      {platform === 'linux' && (
        <Switch.Root
          checked={root}
          onCheckedChange={(d) => setRoot(d.checked)}
          colorPalette="brand"
          size="sm"
          data-testid="root-shell"
        >
          <Switch.HiddenInput />
          <Switch.Control>
            <Switch.Thumb />
          </Switch.Control>
          <Switch.Label fontSize="sm">I am root and this server has no sudo</Switch.Label>
        </Switch.Root>
      )}
      {platform === 'linux' && <PackageOptions root={root} />}
      <Stack gap="1">
        <Text fontSize="sm" fontWeight="medium">
          Your API key
        </Text>
        <Text fontSize="sm" color="fg.muted" data-testid="wizard-api-key-hint">
          {platform === 'linux' && method === 'manual' ? <Code>init</Code> : 'The installer'} asks for it:
          paste it there. It stays out of the command line, where other users of the server could see it.
        </Text>
        <Code fontSize="sm" px="2" py="1" alignSelf="flex-start" data-testid="wizard-api-key">
          {apiKey || MASKED_API_KEY}
        </Code>
      </Stack>
      {method === 'manual' && (
        <Text fontSize="sm" color="fg.muted">
          {platform === 'windows' ? (
            <>
              When it finishes, the installer shows how to add your first database with <Code>db add</Code>.
            </>
          ) : (
            <>
              <Code>db add</Code> asks for the connection string of <Code>production-db</Code>.
            </>
          )}{' '}
          Connection strings are stored on this server only and never sent to Coffer.
        </Text>
      )}
      <Alert.Root status="warning">
        <Alert.Indicator />
        <Alert.Content>
          <Alert.Title>Keep a copy of your encryption key</Alert.Title>
          <Alert.Description>
            The agent creates your encryption key on this server and Coffer never sees it: without it your
            backups cannot be decrypted. Export it with <Code>coffer-agent key export</Code> and store it
            somewhere safe.
          </Alert.Description>
        </Alert.Content>
      </Alert.Root>
    </Stack>
  );
}

/** Commands, one block per command with its prompt, copied whole with one button. */
function CommandBlock({
  command,
  prompt,
  testId,
  copyLabel = 'Copy command',
}: {
  command: string;
  prompt: string;
  testId: string;
  copyLabel?: string;
}) {
  const { copied, copy } = useCopied(command);
  return (
    <Box position="relative" bg="gray.900" color="gray.100" rounded="md" p="4" pr="24">
      <Code
        as="pre"
        display="block"
        bg="transparent"
        color="inherit"
        whiteSpace="pre-wrap"
        overflowWrap="anywhere"
        fontSize="sm"
        data-testid={testId}
      >
        {/* One block per command with a prompt and a hanging indent: a command that wraps in a
            narrow box reads as one command, not as several (the prompt is not copied). */}
        {command.split('\n').map((line, i) => (
          <Box
            as="span"
            key={i}
            display="block"
            ps="1.5em"
            textIndent="-1.5em"
            _notLast={{ mb: '2' }}
            _before={{
              content: JSON.stringify(prompt),
              color: 'gray.500',
            }}
            data-testid={`${testId}-line`}
          >
            {line}
          </Box>
        ))}
      </Code>
      <Button
        size="xs"
        position="absolute"
        top="3"
        right="3"
        variant="subtle"
        onClick={() => void copy()}
        aria-label={copyLabel}
      >
        {copied ? 'Copied' : 'Copy'}
      </Button>
    </Box>
  );
}

/**
 * Beside the spec's command: the agent as a package from this server's APT or YUM repository, or
 * as a container (docs/agent-install.md). None is chosen at first, so the step reads as before.
 */
function PackageOptions({ root }: { root: boolean }) {
  const [option, setOption] = useState<LinuxPackage | null>(null);
  return (
    <Stack gap="3">
      <RadioCard.Root
        value={option}
        onValueChange={(d) => d.value && setOption(d.value as LinuxPackage)}
        colorPalette="brand"
        size="sm"
      >
        <RadioCard.Label>Or install it another way</RadioCard.Label>
        <Stack direction={{ base: 'column', sm: 'row' }} gap="2" mt="1">
          {LINUX_PACKAGES.map(({ value, label }) => (
            <RadioCard.Item key={value} value={value} flex="1" data-testid={`package-option-${value}`}>
              <RadioCard.ItemHiddenInput />
              <RadioCard.ItemControl>
                <RadioCard.ItemText>{label}</RadioCard.ItemText>
                <RadioCard.ItemIndicator />
              </RadioCard.ItemControl>
            </RadioCard.Item>
          ))}
        </Stack>
      </RadioCard.Root>
      {option && (
        <>
          <Text fontSize="sm" color="fg.muted">
            {option === 'docker'
              ? `The agent's image keeps its configuration and encryption key on the volume coffer-agent; the first line writes your API key into coffer.env without showing it.`
              : 'The package comes from this server, signed with the Coffer release key. It installs the agent, its database tools and the service; init then connects it to your account.'}
          </Text>
          <CommandBlock
            command={packageCommand(option, window.location.origin, { root })}
            prompt={root && option !== 'docker' ? '# ' : '$ '}
            testId="package-command"
            copyLabel="Copy package commands"
          />
        </>
      )}
    </Stack>
  );
}

function VerifyStep({ onCheck }: { onCheck: () => void }) {
  return (
    <Stack gap="4" align="flex-start">
      <Text>
        Once the agent is running it connects to Coffer and appears under System Status on your dashboard,
        with its version and platform.
      </Text>
      <Text fontSize="sm" color="fg.muted" data-testid="wizard-reachability">
        {reachabilityHint(window.location.origin)}
      </Text>
      <Button colorPalette="brand" onClick={onCheck}>
        Check Agent Status
      </Button>
    </Stack>
  );
}
