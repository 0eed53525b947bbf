// Settings → General (product §2, §5): backup frequency and retention, limited by the user's plan.
import { useEffect, useRef } from 'react';
import { Button, Card, Field, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { clampGfs, formatFrequency, formatRetention } from '@coffer/contracts';
import type { Plan } from '../../api/generated';
import {
  FREQUENCY_OPTIONS,
  RETENTION_OPTIONS,
  isFrequencyDisabled,
  isRetentionDisabled,
} from '../../lib/schedule';
import { FormAlert } from '../shell/FormAlert';
import { GfsRetentionFields } from './GfsRetentionFields';
import { SAVE_FAILED, type SettingsForm } from './useSettingsForm';

interface GeneralTabProps {
  form: SettingsForm;
  plan: Plan | undefined;
  onChange: (patch: Partial<SettingsForm>) => void;
  onSave: () => void;
  saving: boolean;
  saved: boolean;
  failed: boolean;
}

export function GeneralTab({ form, plan, onChange, onSave, saving, saved, failed }: GeneralTabProps) {
  // GFS chosen before the plan arrived: its suggestion is brought within the plan once it does.
  const clampWhenPlanArrives = useRef(false);
  useEffect(() => {
    if (!plan || !clampWhenPlanArrives.current) return;
    clampWhenPlanArrives.current = false;
    if (form.retentionMode === 'gfs') onChange({ gfs: clampGfs(form.gfs, plan.gfsLimits) });
  }, [plan, form.retentionMode, form.gfs, onChange]);

  return (
    <Card.Root maxW="2xl">
      <Card.Header>
        <Card.Title>Backup Schedule</Card.Title>
        <Card.Description>How often automatic backups run and how long they are kept.</Card.Description>
      </Card.Header>
      <Card.Body>
        <Stack gap="5">
          {failed && <FormAlert status="error">{SAVE_FAILED}</FormAlert>}
          <Field.Root>
            <Field.Label>Backup Frequency</Field.Label>
            <NativeSelect.Root>
              <NativeSelect.Field
                value={form.frequency}
                onChange={(e) => onChange({ frequency: e.currentTarget.value as SettingsForm['frequency'] })}
              >
                {FREQUENCY_OPTIONS.map((o) => (
                  <option
                    key={o.value}
                    value={o.value}
                    disabled={isFrequencyDisabled(o, plan?.frequencyLimit)}
                  >
                    {o.label}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
            {plan && (
              <Field.HelperText>
                Your {plan.name} plan allows backups up to {formatFrequency(plan.frequencyLimit)}.
              </Field.HelperText>
            )}
          </Field.Root>
          <Field.Root>
            <Field.Label>Retention Rule</Field.Label>
            <NativeSelect.Root>
              <NativeSelect.Field
                value={form.retentionMode}
                data-testid="retention-mode"
                onChange={(e) => {
                  const mode = e.currentTarget.value === 'gfs' ? 'gfs' : 'days';
                  // The suggestion shown before any save may be beyond a small plan: bring it within.
                  clampWhenPlanArrives.current = mode === 'gfs' && !plan;
                  onChange({
                    retentionMode: mode,
                    gfs: mode === 'gfs' && plan ? clampGfs(form.gfs, plan.gfsLimits) : form.gfs,
                  });
                }}
              >
                <option value="days">Keep for a number of days</option>
                <option value="gfs">GFS: hourly to yearly backups</option>
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          {form.retentionMode === 'gfs' && (
            <GfsRetentionFields
              gfs={form.gfs}
              limits={plan?.gfsLimits}
              onChange={(gfs) => onChange({ gfs })}
            />
          )}
          <Field.Root>
            <Field.Label>
              {form.retentionMode === 'gfs' ? 'Keep Failed Backups For' : 'Retention Period'}
            </Field.Label>
            <NativeSelect.Root>
              <NativeSelect.Field
                value={String(form.retention)}
                onChange={(e) => onChange({ retention: Number(e.currentTarget.value) })}
              >
                {/* a saved value outside the list (set elsewhere) stays visible */}
                {!RETENTION_OPTIONS.some((o) => o.hours === form.retention) && (
                  <option value={String(form.retention)}>{formatRetention(form.retention)}</option>
                )}
                {RETENTION_OPTIONS.map((o) => (
                  <option
                    key={o.hours}
                    value={String(o.hours)}
                    disabled={isRetentionDisabled(o, plan?.retentionLimit)}
                  >
                    {o.label}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
            {form.retentionMode === 'gfs' ? (
              <Field.HelperText>
                With GFS, failed backups are kept this long, and the retention lock protects each new backup
                for this long.
              </Field.HelperText>
            ) : (
              plan && (
                <Field.HelperText>
                  Your {plan.name} plan keeps backups for up to {formatRetention(plan.retentionLimit)}. Older
                  backups are deleted automatically.
                </Field.HelperText>
              )
            )}
          </Field.Root>
          <Text fontSize="sm" color="fg.muted">
            Options your plan does not include are disabled; upgrade on your profile to unlock them.
          </Text>
          <Button colorPalette="brand" alignSelf="flex-start" onClick={onSave} loading={saving} minW="32">
            {saved ? 'Saved!' : 'Save Changes'}
          </Button>
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
