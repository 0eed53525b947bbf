import { Fragment, useState } from 'react';
import { LIST_NEWEST } from '@coffer/contracts';
import {
  Badge,
  Box,
  Button,
  Card,
  HStack,
  NativeSelect,
  Spinner,
  Stack,
  Table,
  Text,
} from '@chakra-ui/react';
import { formatAuditTimestamp } from '../../lib/format';
import { FormAlert } from '../shell/FormAlert';
import { Page, PageHeader } from '../shell/PageStates';
import { useGetAuditActionsQuery, useGetAuditLogsQuery, type GetAuditLogsApiArg } from '../../api/generated';
import { AuditDetails } from './AuditDetails';
import { stackedTableCss } from '../shell/responsive';
import { useCursorPages } from '../lists/useCursorPages';
import { TableHead } from '../shell/TableHead';

/** '' lists every action. */
type AuditActionFilter = NonNullable<GetAuditLogsApiArg['action']>;

/** 'BACKUP_DELETED_MANUAL' with a line-break opportunity after each underscore. */
function breakableAction(action: string) {
  return action.split('_').map((part, i, all) => (
    <Fragment key={i}>
      {part}
      {i < all.length - 1 && (
        <>
          _<wbr />
        </>
      )}
    </Fragment>
  ));
}

function actionColor(action: string): string {
  if (action.endsWith('_FAILED') || action.includes('LIMIT_EXCEEDED') || action.includes('DISCONNECTED'))
    return 'red';
  if (action.endsWith('_COMPLETED')) return 'green';
  if (action.startsWith('BACKUP_DELETED')) return 'orange';
  return 'gray';
}

export function AuditLogsPage() {
  const [action, setAction] = useState<AuditActionFilter>('');
  const pager = useCursorPages();
  const logs = useGetAuditLogsQuery(
    pager.before ? { before: pager.before, limit: LIST_NEWEST.auditLog, action } : { page: 1, action },
    { refetchOnMountOrArgChange: true },
  );
  const actions = useGetAuditActionsQuery();
  if (actions.error) console.error('Failed to fetch audit actions', actions.error);

  const pages = Math.max(1, logs.data?.pagination.pages ?? 1);
  // The server numbers a cursor page by the entries newer than it (entries written meanwhile count).
  const page = logs.currentData?.pagination.page ?? pager.depth + 1;
  const rows = logs.data?.logs ?? [];
  const lastId = logs.currentData?.logs.at(-1)?.id;

  return (
    <Page>
      <PageHeader
        title="Audit Logs"
        subtitle="A record of every action on your account"
        actions={
          <HStack gap="2">
            <Text fontSize="sm" color="fg.muted" flexShrink="0">
              Action
            </Text>
            <NativeSelect.Root size="sm" width={{ base: 'full', sm: '64' }}>
              <NativeSelect.Field
                aria-label="Filter by action"
                value={action}
                onChange={(e) => {
                  setAction(e.currentTarget.value as AuditActionFilter);
                  pager.reset();
                }}
              >
                <option value="">All actions</option>
                {(actions.data ?? []).map((a) => (
                  <option key={a} value={a}>
                    {a}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </HStack>
        }
      />

      {logs.isError && (
        <Box mb="4">
          <FormAlert status="error">Failed to fetch audit logs</FormAlert>
        </Box>
      )}

      <Card.Root>
        <Table.ScrollArea>
          <Table.Root size="sm" interactive css={stackedTableCss}>
            <TableHead columns={['Timestamp', 'Action', 'Entity', 'Details']} />
            <Table.Body>
              {logs.isLoading ? (
                <Table.Row>
                  <Table.Cell colSpan={4} textAlign="center" py="10">
                    <Spinner color="brand.solid" aria-label="Loading audit logs" />
                  </Table.Cell>
                </Table.Row>
              ) : rows.length === 0 ? (
                <Table.Row>
                  <Table.Cell colSpan={4} textAlign="center" py="10" color="fg.muted">
                    No logs found
                  </Table.Cell>
                </Table.Row>
              ) : (
                rows.map((log) => (
                  <Table.Row key={log.id} data-testid="audit-row">
                    <Table.Cell whiteSpace="nowrap" fontVariantNumeric="tabular-nums" data-label="Timestamp">
                      {formatAuditTimestamp(log.timestamp)}
                    </Table.Cell>
                    <Table.Cell data-label="Action">
                      {/* May break after an underscore: at 375 px a long name was cut off. */}
                      <Badge
                        colorPalette={actionColor(log.action)}
                        fontFamily="mono"
                        whiteSpace="normal"
                        h="auto"
                        data-testid="audit-action"
                      >
                        <span>{breakableAction(log.action)}</span>
                      </Badge>
                    </Table.Cell>
                    <Table.Cell data-label="Entity">
                      {/* Who acted, as the audit service labels it (product §4): an agent, 'User' or 'System'. */}
                      <Stack gap="0">
                        <Text>{log.entity}</Text>
                        <Text fontSize="xs" color="fg.muted" data-testid="audit-actor">
                          by {log.actor}
                        </Text>
                      </Stack>
                    </Table.Cell>
                    <Table.Cell data-label="Details">
                      <AuditDetails details={log.details} entity={log.entity} />
                    </Table.Cell>
                  </Table.Row>
                ))
              )}
            </Table.Body>
          </Table.Root>
        </Table.ScrollArea>
        <HStack justify="space-between" p="4" borderTopWidth="1px">
          <Button
            size="sm"
            variant="outline"
            disabled={pager.depth === 0 || logs.isFetching}
            onClick={pager.back}
          >
            Previous
          </Button>
          <Text fontSize="sm" color="fg.muted">
            Page {page} of {pages}
          </Text>
          <Button
            size="sm"
            variant="outline"
            disabled={page >= pages || !lastId || logs.isFetching}
            onClick={() => lastId && pager.next(lastId)}
          >
            Next
          </Button>
        </HStack>
      </Card.Root>
    </Page>
  );
}
