// Settings → General: grandfather-father-son retention (issue 20). The five counts, bounded by the
// plan, and a preview of which current backups the setting would delete, computed by the server
// with the rule its retention sweep applies (POST /api/settings/retention/preview).
import { useState } from 'react';
import { Badge, Button, Field, Input, List, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { GFS_PERIODS, type GfsPeriod } from '@coffer/contracts';
import {
  usePreviewRetentionMutation,
  type GfsCounts,
  type PreviewRetentionApiResponse,
} from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { capitalize, formatBackupDate, formatBytes } from '../../lib/format';
import { FormAlert } from '../shell/FormAlert';

const PREVIEW_FAILED = 'Could not compute the preview. Please try again.';
/** Rows listed before "and N more": the count says the rest. */
const LISTED = 20;
const PERIOD_HELP: Record<GfsPeriod, string> = {
  hourly: 'hours',
  daily: 'days',
  weekly: 'weeks (from Monday)',
  monthly: 'months',
  yearly: 'years',
};

const sameCounts = (a: GfsCounts, b: GfsCounts) => GFS_PERIODS.every((p) => a[p] === b[p]);

export function GfsRetentionFields({
  gfs,
  limits,
  onChange,
}: {
  gfs: GfsCounts;
  limits: GfsCounts | undefined;
  onChange: (gfs: GfsCounts) => void;
}) {
  const [preview, { isLoading }] = usePreviewRetentionMutation();
  const [result, setResult] = useState<{ counts: GfsCounts; answer: PreviewRetentionApiResponse } | null>(
    null,
  );
  const [error, setError] = useState<string | null>(null);
  // A preview of other counts than the ones shown would mislead: it goes when they change.
  const shown = result && sameCounts(result.counts, gfs) ? result.answer : null;

  const run = async () => {
    setError(null);
    try {
      setResult({ counts: { ...gfs }, answer: await preview({ gfs }).unwrap() });
    } catch (err) {
      console.error('Retention preview failed', err);
      setResult(null);
      setError(apiErrorMessage(err, PREVIEW_FAILED, PREVIEW_FAILED));
    }
  };

  const deleted = shown?.backups.filter((b) => !b.keep) ?? [];
  const locked =
    shown?.backups.filter((b) => b.keep && b.reasons.length === 1 && b.reasons[0] === 'locked') ?? [];

  return (
    <Stack gap="4" data-testid="gfs-fields">
      <Text fontSize="sm" color="fg.muted">
        Keep the newest backup of each of the last N hours, days, weeks, months and years that have one. The
        newest completed backup of each database, and its newest verified one, are always kept.
      </Text>
      <SimpleGrid columns={{ base: 2, sm: 3, md: 5 }} gap="3">
        {GFS_PERIODS.map((p) => {
          const limit = limits?.[p];
          const over = limit !== undefined && gfs[p] > limit;
          return (
            <Field.Root key={p} invalid={over}>
              <Field.Label>{capitalize(p)}</Field.Label>
              <Input
                type="number"
                inputMode="numeric"
                min={0}
                max={limit}
                value={String(gfs[p])}
                data-testid={`gfs-${p}`}
                aria-label={`${capitalize(p)} backups to keep`}
                onChange={(e) => {
                  const n = Math.max(0, Math.floor(Number(e.currentTarget.value) || 0));
                  onChange({ ...gfs, [p]: n });
                }}
              />
              <Field.HelperText>
                {limit === undefined ? PERIOD_HELP[p] : limit === 0 ? 'not on your plan' : `up to ${limit}`}
              </Field.HelperText>
            </Field.Root>
          );
        })}
      </SimpleGrid>
      {error && <FormAlert status="error">{error}</FormAlert>}
      <Button
        variant="outline"
        alignSelf="flex-start"
        onClick={() => void run()}
        loading={isLoading}
        data-testid="gfs-preview-button"
      >
        Preview what would be deleted
      </Button>
      {shown && (
        <Stack gap="2" data-testid="gfs-preview">
          <Text fontWeight="medium" data-testid="gfs-preview-summary">
            {deleted.length === 0
              ? `None of your ${shown.backups.length} current backups would be deleted.`
              : `${deleted.length} of your ${shown.backups.length} current backups would be deleted when you save:`}
          </Text>
          {deleted.length > 0 && (
            <List.Root gap="1" fontSize="sm" ps="4" maxH="64" overflowY="auto">
              {deleted.slice(0, LISTED).map((b) => (
                <List.Item key={b._id} data-testid="gfs-preview-row" title={b.rule}>
                  {b.databaseName} · {formatBackupDate(b.timestamp)}
                  {b.status === 'failed' ? (
                    <Badge ms="2" colorPalette="red" size="sm">
                      failed
                    </Badge>
                  ) : (
                    ` · ${formatBytes(b.size)}`
                  )}
                </List.Item>
              ))}
            </List.Root>
          )}
          {deleted.length > LISTED && (
            <Text fontSize="sm" color="fg.muted">
              and {deleted.length - LISTED} more.
            </Text>
          )}
          {locked.length > 0 && (
            <Text fontSize="sm" color="fg.muted" data-testid="gfs-preview-locked">
              {locked.length} more {locked.length === 1 ? 'is' : 'are'} kept by your retention lock until{' '}
              {locked.length === 1 ? 'its date' : 'their dates'}, then deleted.
            </Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}
