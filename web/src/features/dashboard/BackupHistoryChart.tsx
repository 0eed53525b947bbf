// Dashboard: the selected database's backup history (issue 20, "Seeing the history"): size as bars,
// duration as a line on its own axis, failures as red dashed lines. Chakra's charts (on recharts),
// so colours and type follow the theme; the axes stay narrow enough for a 375 px screen.
import { Chart, useChart } from '@chakra-ui/charts';
import { Card, HStack, Stack, Text } from '@chakra-ui/react';
import {
  Bar,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ReferenceLine,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { Backup } from '../../api/generated';
import { formatBackupDate, formatBytes } from '../../lib/format';
import { formatSeconds, historyPoints } from './history';

const SIZE_COLOR = 'teal.solid';
const DURATION_COLOR = 'purple.solid';
// Axis labels stay on one line in the narrow axes: 0 without a unit.
const shortDate = (iso: string) =>
  new Date(iso).toLocaleDateString('en-US', { month: 'short', day: 'numeric' });

export function BackupHistoryChart({
  backups,
  databaseName,
}: {
  backups: readonly Backup[];
  databaseName: string;
}) {
  const points = historyPoints(backups, databaseName);
  const chart = useChart({
    data: points,
    series: [
      { name: 'size', label: 'Size', color: SIZE_COLOR, yAxisId: 'size' },
      { name: 'duration', label: 'Duration', color: DURATION_COLOR, yAxisId: 'duration' },
    ],
  });
  const failures = points.filter((p) => p.failed);
  if (!databaseName) return null;

  return (
    <Card.Root data-testid="backup-history">
      <Card.Header>
        <Card.Title>Backup history: {databaseName}</Card.Title>
        <Card.Description>
          Size and duration of the latest {points.length || ''} backups; red dashed lines mark failures.
        </Card.Description>
      </Card.Header>
      <Card.Body>
        {points.length === 0 ? (
          <Text color="fg.muted" data-testid="backup-history-empty">
            No finished backups of this database yet.
          </Text>
        ) : (
          <Stack gap="3">
            <Chart.Root
              chart={chart}
              h={{ base: '56', md: '72' }}
              aspectRatio="auto"
              data-testid="backup-history-chart"
            >
              <ComposedChart
                data={chart.data}
                // Sized by the box around it (recharts 3's own measuring; Chart.Root sets the height).
                responsive
                style={{ width: '100%', height: '100%' }}
                margin={{ top: 8, right: 0, bottom: 0, left: 0 }}
              >
                <CartesianGrid stroke={chart.color('border.muted')} vertical={false} />
                <XAxis
                  dataKey={chart.key('at')}
                  tickFormatter={shortDate}
                  tickLine={false}
                  axisLine={false}
                  minTickGap={24}
                />
                <YAxis
                  yAxisId="size"
                  width={56}
                  tickLine={false}
                  axisLine={false}
                  tickFormatter={(v: number) => (v ? formatBytes(v, 0) : '0')}
                />
                <YAxis
                  yAxisId="duration"
                  orientation="right"
                  width={52}
                  tickLine={false}
                  axisLine={false}
                  tickFormatter={(v: number) => (v ? formatSeconds(v) : '0')}
                />
                <Tooltip
                  cursor={{ fill: chart.color('bg.muted') }}
                  content={
                    <Chart.Tooltip
                      labelFormatter={(label) => formatBackupDate(String(label))}
                      formatter={(value: number, name: string) =>
                        name === 'Size' || name === 'size' ? formatBytes(value) : formatSeconds(value)
                      }
                    />
                  }
                />
                <Legend content={<Chart.Legend />} />
                {failures.map((p) => (
                  <ReferenceLine
                    key={p.id}
                    yAxisId="size"
                    x={p.at}
                    stroke={chart.color('red.solid')}
                    strokeDasharray="4 3"
                    className="backup-history-failure"
                  />
                ))}
                <Bar
                  yAxisId="size"
                  dataKey={chart.key('size')}
                  name="Size"
                  fill={chart.color(SIZE_COLOR)}
                  radius={[3, 3, 0, 0]}
                  isAnimationActive={false}
                />
                <Line
                  yAxisId="duration"
                  dataKey={chart.key('duration')}
                  name="Duration"
                  stroke={chart.color(DURATION_COLOR)}
                  strokeWidth={2}
                  dot={{ r: 2 }}
                  isAnimationActive={false}
                />
              </ComposedChart>
            </Chart.Root>
            <HStack gap="4" flexWrap="wrap" fontSize="sm" color="fg.muted">
              <Text data-testid="backup-history-summary">
                {points.length - failures.length} completed, {failures.length} failed
              </Text>
            </HStack>
          </Stack>
        )}
      </Card.Body>
    </Card.Root>
  );
}
