// Step 1 of the restore dialog, beyond the spec (issue 20, restore anywhere): where to restore
// (the backup's own database by default, another database of the account, or a database on another
// agent that holds the backup's key) and which collections (all by default).
import { Box, Checkbox, Code, Field, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { KEY_IMPORT_STEPS, targetLabel, type RestoreTarget } from './restoreTargets';

export function RestoreChoices(props: {
  targets: RestoreTarget[];
  target: RestoreTarget | undefined;
  onTarget: (t: RestoreTarget) => void;
  /** The backup's collections, as its agent reported them (empty: not known). */
  collections: string[];
  chosen: string[];
  onChosen: (names: string[]) => void;
}) {
  const { targets, target, collections, chosen } = props;
  const withoutKey = targets.filter((t) => t.reason && t.reason.startsWith('does not hold'));
  const toggle = (name: string, on: boolean) =>
    props.onChosen(
      on ? collections.filter((c) => c === name || chosen.includes(c)) : chosen.filter((c) => c !== name),
    );
  return (
    <Stack gap="4" data-testid="restore-choices">
      {targets.length > 1 && (
        <Field.Root>
          <Field.Label>Restore into</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field
              aria-label="Restore into"
              data-testid="restore-target"
              value={target?.value ?? ''}
              onChange={(e) => {
                const t = targets.find((x) => x.value === e.currentTarget.value);
                if (t) props.onTarget(t);
              }}
            >
              {targets.map((t) => (
                <option key={t.value} value={t.value} disabled={!t.available}>
                  {targetLabel(t)}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
          <Field.HelperText>
            Another database of your account, on this server or on another agent (a new server after a
            disaster). Only agents holding the encryption key this backup was made with can restore it.
          </Field.HelperText>
        </Field.Root>
      )}
      {withoutKey.length > 0 && (
        <Box fontSize="sm" color="fg.muted" data-testid="key-import-help">
          <Text mb="1">
            To restore on an agent that does not hold the key, copy the key to its server (the service never
            sees it):
          </Text>
          <Stack gap="1.5">
            {KEY_IMPORT_STEPS.map((s) => (
              <Box key={s.command}>
                <Text fontSize="xs">{s.where}</Text>
                <Code display="block" whiteSpace="pre-wrap" fontSize="xs" p="1">
                  {s.command}
                </Code>
              </Box>
            ))}
          </Stack>
        </Box>
      )}
      {collections.length > 0 && (
        // Not a Field: each checkbox has its own input, which a Field would give one shared id.
        <Stack gap="1.5" role="group" aria-labelledby="restore-collections-title">
          <Text id="restore-collections-title" fontWeight="medium" fontSize="sm">
            {`Collections (${chosen.length} of ${collections.length})`}
          </Text>
          <Stack gap="1.5" maxH="40" overflowY="auto" data-testid="restore-collections" w="full">
            {collections.map((name) => (
              <Checkbox.Root
                key={name}
                size="sm"
                checked={chosen.includes(name)}
                onCheckedChange={(e) => toggle(name, e.checked === true)}
              >
                <Checkbox.HiddenInput />
                <Checkbox.Control />
                <Checkbox.Label fontFamily="mono" fontWeight="normal">
                  {name}
                </Checkbox.Label>
              </Checkbox.Root>
            ))}
          </Stack>
          <Text fontSize="xs" color="fg.muted">
            Unchecked collections are left as they are in the target database.
          </Text>
        </Stack>
      )}
    </Stack>
  );
}
