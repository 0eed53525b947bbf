// Settings → Databases (product §2): which databases may be backed up. Databases are only ever added by
// the agent; connection strings never reach the server. A refused toggle shows the server's reason
// (the plan limit); a toggle that changes which other databases are active says which (issue 10).
import { useState } from 'react';
import {
  Badge,
  Button,
  Card,
  Center,
  Code,
  List,
  NativeSelect,
  Spinner,
  Stack,
  Table,
  Text,
} from '@chakra-ui/react';
import { VERIFY_MODE_LABELS, VERIFY_MODES } from '@coffer/contracts';
import {
  useGetDatabasesQuery,
  useUpdateDatabaseMutation,
  useUpdateDatabaseVerifyMutation,
  type Database,
} from '../../api/generated';
import { serverMessage } from '../../lib/errors';
import { FormAlert } from '../shell/FormAlert';
import { stackedTableCss } from '../shell/responsive';
import { toggleOutcome } from './databaseChanges';
import { TableHead } from '../shell/TableHead';

export const DATABASE_UPDATE_FAILED = 'Failed to update database. Please try again.';

/** Verified backups, per database (issue 20): the agent restores into a scratch database and compares. */
export const VERIFY_OPTIONS = VERIFY_MODES.map((value) => ({ value, label: VERIFY_MODE_LABELS[value] }));

export function DatabasesTab() {
  const { data, isLoading, error } = useGetDatabasesQuery();
  const [update, { isLoading: updating, originalArgs }] = useUpdateDatabaseMutation();
  const [setVerify, { isLoading: savingVerify }] = useUpdateDatabaseVerifyMutation();
  const [failure, setFailure] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  if (error) console.error('Failed to load databases', error);
  const databases = data ?? [];

  const toggle = async (db: Database) => {
    setFailure(null);
    setOutcome(null);
    const before = databases;
    try {
      const after = await update({ id: db._id, body: { isActive: !db.isActive } }).unwrap();
      setOutcome(toggleOutcome(before, after, db._id));
    } catch (err) {
      console.error('Failed to update database', err);
      setFailure(serverMessage(err) ?? DATABASE_UPDATE_FAILED);
    }
  };

  const changeVerify = async (db: Database, verify: Database['verify']) => {
    setFailure(null);
    setOutcome(null);
    try {
      await setVerify({ id: db._id, body: { verify } }).unwrap();
    } catch (err) {
      console.error('Failed to update verification', err);
      setFailure(serverMessage(err) ?? DATABASE_UPDATE_FAILED);
    }
  };

  return (
    <Stack gap="6" maxW="4xl">
      <Card.Root>
        <Card.Header>
          <Card.Title>Databases</Card.Title>
          <Card.Description>Choose which of your databases are backed up.</Card.Description>
        </Card.Header>
        <Card.Body gap="4">
          {failure && <FormAlert status="error">{failure}</FormAlert>}
          {outcome && <FormAlert status="info">{outcome}</FormAlert>}
          {isLoading ? (
            <Center py="8">
              <Spinner color="brand.solid" aria-label="Loading databases" />
            </Center>
          ) : databases.length === 0 ? (
            <Center py="8" borderWidth="1px" borderStyle="dashed" rounded="md">
              <Text color="fg.muted">No databases configured</Text>
            </Center>
          ) : (
            <Table.Root size="sm" data-testid="databases-table" css={stackedTableCss}>
              <TableHead columns={['Name', 'Status', 'Verification']} actions="Action" />
              <Table.Body>
                {databases.map((db) => (
                  <Table.Row key={db._id} data-testid="database-row">
                    <Table.Cell fontWeight="medium" fontFamily="mono" data-label="Name">
                      {db.name}
                    </Table.Cell>
                    <Table.Cell data-label="Status">
                      <Badge colorPalette={db.isActive ? 'green' : 'gray'}>
                        {db.isActive ? 'Active' : 'Disabled'}
                      </Badge>
                    </Table.Cell>
                    <Table.Cell data-label="Verification">
                      <NativeSelect.Root size="xs" maxW="48" disabled={savingVerify}>
                        <NativeSelect.Field
                          aria-label={`Verification of ${db.name}`}
                          value={db.verify}
                          onChange={(e) => void changeVerify(db, e.currentTarget.value as Database['verify'])}
                        >
                          {VERIFY_OPTIONS.map((o) => (
                            <option key={o.value} value={o.value}>
                              {o.label}
                            </option>
                          ))}
                        </NativeSelect.Field>
                        <NativeSelect.Indicator />
                      </NativeSelect.Root>
                    </Table.Cell>
                    <Table.Cell textAlign="end" data-label="Action">
                      <Button
                        size="xs"
                        variant="outline"
                        colorPalette={db.isActive ? 'red' : 'brand'}
                        loading={updating && originalArgs?.id === db._id}
                        disabled={updating}
                        onClick={() => void toggle(db)}
                      >
                        {db.isActive ? 'Disable' : 'Enable'}
                      </Button>
                    </Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          )}
        </Card.Body>
      </Card.Root>

      <Card.Root variant="subtle">
        <Card.Body>
          <Stack gap="3">
            <Text fontWeight="semibold">Adding databases</Text>
            <List.Root ps="5" gap="2" fontSize="sm" color="fg.muted">
              <List.Item>
                Databases can only be added through the agent, with its setup command on your server:{' '}
                <Code>coffer-agent db add &lt;name&gt; --uri -</Code>
              </List.Item>
              <List.Item>
                Connection strings stay local to the agent and are never stored on the Coffer server.
              </List.Item>
              <List.Item>
                Verification: after a backup, the agent restores that very file into a scratch database it
                creates and drops, and checks every collection's document count, indexes and content digest
                against what it backed up. To restore the scratch copy on another server:{' '}
                <Code>coffer-agent db verify-target &lt;name&gt; --uri -</Code>
              </List.Item>
            </List.Root>
          </Stack>
        </Card.Body>
      </Card.Root>
    </Stack>
  );
}
