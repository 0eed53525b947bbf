// Progress of a running backup or restore (product §4 "Progress block", §9 time estimate):
// 'Starting up...' until the agent reports progress; bar red when failed; counts abbreviated, the
// total marked 'about' while it is an estimate; percentage with one decimal, 100 % once completed;
// a countdown of the time left that ticks every second.
import { useEffect, useState } from 'react';
import { Box, HStack, Progress, Spinner, Stack, Text } from '@chakra-ui/react';
import type { JobStatus } from '../../api/generated';
import type { ProgressInfo } from '@coffer/contracts';
import {
  applyProgress,
  COUNTDOWN_TICK_MS,
  etaLabel,
  initialCountdown,
  tickCountdown,
  type Countdown,
} from '../../lib/estimate';
import { formatPercent } from '../../lib/format';
import { displayedProgress, progressCounts } from './progress';

/** The countdown for one job: fed by progress readings, ticking every second while running. */
function useCountdown(progress: ProgressInfo | null | undefined, running: boolean): number | null {
  const [countdown, setCountdown] = useState<Countdown>(initialCountdown);
  const current = progress?.current;
  const total = progress?.total;
  const percentage = progress?.percentage;

  useEffect(() => {
    if (current === undefined || total === undefined || percentage === undefined) return;
    setCountdown((c) => applyProgress(c, { current, total, percentage }, Date.now()));
  }, [current, total, percentage]);

  const ticking = running && countdown.seconds !== null;
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(
      () => setCountdown((c) => ({ ...c, seconds: tickCountdown(c.seconds) })),
      COUNTDOWN_TICK_MS,
    );
    return () => clearInterval(timer);
  }, [ticking]);

  return countdown.seconds;
}

export interface ProgressBlockProps {
  status: JobStatus;
  progress?: ProgressInfo | null;
  /** 'documents' for both; restores may pass a different noun */
  unit?: string;
}

export function ProgressBlock({ status, progress, unit = 'documents' }: ProgressBlockProps) {
  const failed = status === 'failed';
  const done = status === 'completed';
  const running = !failed && !done;
  const seconds = useCountdown(progress, running);

  if (!progress && done) {
    // Completed before any reading reached this page: the counts are unknown, the outcome is not.
    return (
      <Stack gap="1.5" minW="48" data-testid="progress-block">
        <HStack justify="flex-end" fontSize="xs">
          <Text fontWeight="semibold" fontVariantNumeric="tabular-nums">
            {formatPercent(100)}
          </Text>
        </HStack>
        <Progress.Root value={100} size="sm" colorPalette="green" aria-label="Progress">
          <Progress.Track rounded="full">
            <Progress.Range />
          </Progress.Track>
        </Progress.Root>
      </Stack>
    );
  }

  if (!progress) {
    return (
      <HStack gap="2" color="fg.muted" fontSize="sm" data-testid="progress-block">
        {running && <Spinner size="xs" />}
        <Text>{failed ? 'Failed before any progress was reported' : 'Starting up...'}</Text>
      </HStack>
    );
  }

  const shown = displayedProgress(status, progress);
  const percentage = shown.percentage;
  return (
    <Stack gap="1.5" minW="48" data-testid="progress-block">
      <HStack justify="space-between" fontSize="xs" gap="3">
        <Text color="fg.muted" truncate>
          {shown.collection ? (
            <>
              <Box as="span" fontFamily="mono" color="fg">
                {shown.collection}
              </Box>{' '}
              ·{' '}
            </>
          ) : null}
          {progressCounts(shown, unit)}
        </Text>
        <Text fontWeight="semibold" fontVariantNumeric="tabular-nums">
          {formatPercent(percentage)}
        </Text>
      </HStack>
      <Progress.Root
        value={percentage}
        size="sm"
        colorPalette={failed ? 'red' : done ? 'green' : 'blue'}
        aria-label="Progress"
      >
        <Progress.Track rounded="full">
          <Progress.Range />
        </Progress.Track>
      </Progress.Root>
      {running && (
        <Text fontSize="xs" color="fg.muted">
          {etaLabel(seconds, percentage)}
        </Text>
      )}
    </Stack>
  );
}
