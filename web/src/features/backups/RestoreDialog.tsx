// Restore confirmation dialog (product §2, §5): three steps, the last one asks for the database name
// typed exactly; then POST /api/backups/{id}/restore. Opened again for a backup the agent refused
// because it holds no documents (`emptyBackup`), step 3 also asks the user to confirm exactly that,
// and the request carries the confirmation the agent needs (confirm: ['empty-backup']).
// Step 1 also offers where to restore and which collections (issue 20, RestoreChoices): the
// default is the spec's restore into the backup's own database, and the typed confirmation is the
// name of the chosen target.
import { useMemo, useRef, useState, type FormEvent } from 'react';
import {
  Alert,
  Box,
  Button,
  Checkbox,
  Dialog,
  Field,
  HStack,
  Input,
  List,
  Portal,
  Stack,
  Text,
} from '@chakra-ui/react';
import {
  useGetSystemStatusQuery,
  useRestoreBackupMutation,
  type Backup,
  type Restore,
} from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { formatBackupDate } from '../../lib/format';
import { restoreConfirmMatches, restoreMismatchMessage } from './status';
import { RestoreChoices } from './RestoreChoices';
import { restoreRequestFields, restoreTargets, type RestoreTarget } from './restoreTargets';

interface RestoreDialogProps {
  /** the backup to restore; the dialog is open while set */
  backup:
    | (Pick<Backup, '_id' | 'databaseName' | 'timestamp' | 'createdAt'> &
        Partial<Pick<Backup, 'agentId' | 'keyFingerprint' | 'collections'>>)
    | null;
  /** the database to restore into (the backup's own) */
  databaseName: string;
  onClose: () => void;
  onStarted?: (restore: Restore, message: string) => void;
  /** The agent refused this backup because it holds no documents: step 3 asks to confirm that. */
  emptyBackup?: boolean;
}

type Step = 1 | 2 | 3;

export function RestoreDialog({ backup, databaseName, onClose, onStarted, emptyBackup }: RestoreDialogProps) {
  // Keep showing the last backup while the dialog animates out.
  const last = useRef({ backup, databaseName, emptyBackup });
  if (backup) last.current = { backup, databaseName, emptyBackup };
  const shown = last.current;
  return (
    <Dialog.Root
      open={backup !== null}
      onOpenChange={(e) => {
        if (!e.open) onClose();
      }}
      role="alertdialog"
      placement="center"
      size="md"
      closeOnInteractOutside={false}
      lazyMount
      unmountOnExit
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content data-testid="restore-dialog">
            {/* keyed so each opening starts at step 1 with an empty field */}
            {shown.backup && (
              <RestoreSteps
                key={shown.backup._id}
                backup={shown.backup}
                databaseName={shown.databaseName}
                onClose={onClose}
                onStarted={onStarted}
                emptyBackup={shown.emptyBackup}
              />
            )}
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

function RestoreSteps({
  backup,
  databaseName,
  onClose,
  onStarted,
  emptyBackup,
}: Omit<RestoreDialogProps, 'backup'> & { backup: NonNullable<RestoreDialogProps['backup']> }) {
  const [step, setStep] = useState<Step>(1);
  const [typed, setTyped] = useState('');
  const [emptyConfirmed, setEmptyConfirmed] = useState(false);
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [restore, { isLoading }] = useRestoreBackupMutation();
  const { data: status } = useGetSystemStatusQuery();
  const targets = useMemo(() => restoreTargets(backup, status?.agents ?? []), [backup, status]);
  const [picked, setPicked] = useState<RestoreTarget | undefined>(undefined);
  const target = picked ?? targets.find((t) => t.isSource);
  const allCollections = useMemo(() => (backup.collections ?? []).map((c) => c.name), [backup]);
  const [chosen, setChosen] = useState<string[] | undefined>(undefined);
  const chosenNow = chosen ?? allCollections;
  const partial = chosenNow.length < allCollections.length;
  // The name the user types and every warning names: where the data goes.
  const targetName = target?.databaseName ?? databaseName;
  const choiceOk = (!target || target.available) && (allCollections.length === 0 || chosenNow.length > 0);
  const matches = restoreConfirmMatches(typed, targetName) && (!emptyBackup || emptyConfirmed);
  const backupDate = formatBackupDate(backup.timestamp || backup.createdAt);

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    setTouched(true);
    if (!matches || isLoading) return;
    setError(null);
    try {
      const body = {
        databaseName,
        ...(emptyBackup ? { confirm: ['empty-backup' as const] } : {}),
        ...restoreRequestFields(backup, target, chosen, allCollections),
      };
      const res = await restore({ id: backup._id, body }).unwrap();
      onStarted?.(res.restore, res.message);
      onClose();
    } catch (err) {
      setError(apiErrorMessage(err, 'Failed to initiate restore', 'An unexpected error occurred'));
    }
  };

  const cancel = (
    <Button variant="outline" onClick={onClose} disabled={isLoading}>
      Cancel
    </Button>
  );

  return (
    <>
      <Dialog.Header flexDirection="column" alignItems="flex-start" gap="1">
        <Text fontSize="xs" fontWeight="semibold" color="fg.muted" textTransform="uppercase">
          Step {step} of 3
        </Text>
        <Dialog.Title>
          {step === 1 ? 'Restore database' : step === 2 ? 'What will be replaced' : 'Final confirmation'}
        </Dialog.Title>
      </Dialog.Header>

      {step === 1 && (
        <>
          <Dialog.Body>
            <Stack gap="4">
              <Alert.Root status="error">
                <Alert.Indicator />
                <Alert.Content>
                  <Alert.Title>This action is irreversible</Alert.Title>
                  <Alert.Description>
                    Restoring replaces {partial ? 'the chosen collections' : 'ALL current data'} in{' '}
                    <strong>{targetName}</strong> with the backup of <strong>{databaseName}</strong> from{' '}
                    {backupDate}.
                  </Alert.Description>
                </Alert.Content>
              </Alert.Root>
              <Box>
                <Text fontWeight="medium" mb="2">
                  Before you continue:
                </Text>
                <List.Root gap="1.5" ps="5" fontSize="sm" color="fg.muted">
                  <List.Item>Make sure you have a current backup of the database.</List.Item>
                  <List.Item>
                    Consider restoring into a duplicate database first to test the result.
                  </List.Item>
                  <List.Item>Inform your users: the database is unavailable while it is restored.</List.Item>
                </List.Root>
              </Box>
              <RestoreChoices
                targets={targets}
                target={target}
                onTarget={(t) => {
                  setPicked(t);
                  setTyped('');
                }}
                collections={allCollections}
                chosen={chosenNow}
                onChosen={setChosen}
              />
            </Stack>
          </Dialog.Body>
          <Dialog.Footer>
            {cancel}
            <Button colorPalette="red" onClick={() => setStep(2)} disabled={!choiceOk}>
              I understand, continue
            </Button>
          </Dialog.Footer>
        </>
      )}

      {step === 2 && (
        <>
          <Dialog.Body>
            <Stack gap="4">
              <Alert.Root status="warning">
                <Alert.Indicator />
                <Alert.Content>
                  <Alert.Title>
                    {partial ? 'The chosen collections will be dropped' : 'All collections will be dropped'}
                  </Alert.Title>
                  <Alert.Description>
                    {partial ? (
                      <>
                        {chosenNow.join(', ')} in <strong>{targetName}</strong>{' '}
                        {chosenNow.length === 1 ? 'is' : 'are'} dropped and replaced from this backup; the
                        other collections are left as they are.
                      </>
                    ) : (
                      <>
                        Every collection in <strong>{targetName}</strong> is dropped and replaced with the
                        collections from this backup.
                      </>
                    )}
                  </Alert.Description>
                </Alert.Content>
              </Alert.Root>
              <Box>
                <Text fontWeight="medium" mb="2">
                  You will lose everything made after {backupDate}:
                </Text>
                <List.Root gap="1.5" ps="5" fontSize="sm" color="fg.muted">
                  <List.Item>Documents created, changed or deleted since the backup</List.Item>
                  <List.Item>Indexes created or changed since the backup</List.Item>
                  <List.Item>Configuration changes made since the backup</List.Item>
                </List.Root>
              </Box>
            </Stack>
          </Dialog.Body>
          <Dialog.Footer>
            {cancel}
            <Button colorPalette="red" onClick={() => setStep(3)}>
              Continue with restore
            </Button>
          </Dialog.Footer>
        </>
      )}

      {step === 3 && (
        <form onSubmit={submit}>
          <Dialog.Body>
            <Stack gap="4">
              <Alert.Root status="error">
                <Alert.Indicator />
                <Alert.Content>
                  <Alert.Title>Final warning</Alert.Title>
                  <Alert.Description>
                    There is no undo. The current data of <strong>{targetName}</strong>
                    {target && !target.isSource ? ` on ${target.agentName}` : ''} will be gone.
                  </Alert.Description>
                </Alert.Content>
              </Alert.Root>
              {error && (
                <Alert.Root status="error" role="alert">
                  <Alert.Indicator />
                  <Alert.Title fontWeight="normal">{error}</Alert.Title>
                </Alert.Root>
              )}
              {emptyBackup && (
                <Checkbox.Root
                  checked={emptyConfirmed}
                  onCheckedChange={(e) => setEmptyConfirmed(e.checked === true)}
                  colorPalette="red"
                  alignItems="flex-start"
                  data-testid="confirm-empty-backup"
                >
                  <Checkbox.HiddenInput />
                  <Checkbox.Control mt="0.5" />
                  <Checkbox.Label fontWeight="normal">
                    This backup holds no documents. I confirm that restoring it deletes every document in{' '}
                    <strong>{targetName}</strong>.
                  </Checkbox.Label>
                </Checkbox.Root>
              )}
              <Field.Root invalid={touched && typed !== '' && !restoreConfirmMatches(typed, targetName)}>
                <Field.Label>
                  Type{' '}
                  <Box as="span" fontFamily="mono" fontWeight="bold">
                    {targetName}
                  </Box>{' '}
                  to confirm
                </Field.Label>
                <Input
                  value={typed}
                  onChange={(e) => setTyped(e.target.value)}
                  onBlur={() => setTouched(true)}
                  autoComplete="off"
                  spellCheck={false}
                  fontFamily="mono"
                  placeholder={targetName}
                  autoFocus
                />
                <Field.ErrorText>{restoreMismatchMessage(targetName)}</Field.ErrorText>
              </Field.Root>
            </Stack>
          </Dialog.Body>
          <Dialog.Footer>
            <HStack gap="3">
              {cancel}
              <Button type="submit" colorPalette="red" disabled={!matches || isLoading}>
                {isLoading ? 'Processing...' : 'Restore database'}
              </Button>
            </HStack>
          </Dialog.Footer>
        </form>
      )}
    </>
  );
}
