// /admin (product §2 Admin dashboard): summary cards, the searchable user list and the detail panel
// of the user picked from it. The admin guard (RequireAdmin) keeps everyone else out.
import { useEffect, useRef, useState } from 'react';
import { Box, Button, Card, Grid, Input, Stack, Table, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import {
  useAdminBackupStatsQuery,
  useAdminListPlansQuery,
  useAdminListUsersQuery,
  type AdminUser,
  type Plan,
} from '../../api/generated';
import { useAppSelector } from '../../app/hooks';
import { Page, PageHeader } from '../shell/PageStates';
import { stackedTableCss } from '../shell/responsive';
import { AdminErrorAlert } from './AdminErrorAlert';
import { AdminSummaryCards } from './AdminSummaryCards';
import { SecurityPolicyCard } from './SecurityPolicyCard';
import { UserDetailPanel } from './UserDetailPanel';
import { StatusBadge } from './StatusBadge';
import { ADMIN_ERRORS, adminError, planName, searchUsers, userCounts } from './users';

function UserRows({
  users,
  plans,
  selectedId,
  selfId,
  onSelect,
}: {
  users: AdminUser[];
  plans: Plan[] | undefined;
  selectedId: string | null;
  selfId: string | undefined;
  onSelect: (id: string) => void;
}) {
  return users.map((u) => {
    const selected = u._id === selectedId;
    return (
      <Table.Row
        key={u._id}
        data-testid="admin-user-row"
        aria-selected={selected}
        bg={selected ? 'bg.muted' : undefined}
        cursor="pointer"
        onClick={() => onSelect(u._id)}
      >
        {/* Name and e-mail wrap (the scroll area keeps cells on one line): at 1280 px a long
            address pushed Status and Manage out of the card. */}
        <Table.Cell data-label="Name" fontWeight="medium" whiteSpace="normal">
          <Text>
            {u.name || '—'}
            {u._id === selfId && (
              <Text as="span" color="fg.muted" fontWeight="normal">
                {' '}
                (you)
              </Text>
            )}
          </Text>
        </Table.Cell>
        <Table.Cell data-label="Email" whiteSpace="normal" minW="32">
          <Text overflowWrap="anywhere">{u.email}</Text>
        </Table.Cell>
        <Table.Cell data-label="Role">
          <Text>{u.role}</Text>
        </Table.Cell>
        <Table.Cell data-label="Plan">
          <Text data-testid="admin-user-plan">{planName(u.plan, plans)}</Text>
        </Table.Cell>
        <Table.Cell data-label="Status">
          <StatusBadge user={u} />
        </Table.Cell>
        <Table.Cell textAlign={{ md: 'end' }}>
          <Button
            size="xs"
            variant={selected ? 'solid' : 'outline'}
            colorPalette="brand"
            aria-label={`Manage ${u.email}`}
            onClick={(e) => {
              e.stopPropagation();
              onSelect(u._id);
            }}
          >
            Manage
          </Button>
        </Table.Cell>
      </Table.Row>
    );
  });
}

export function AdminPage() {
  const users = useAdminListUsersQuery(undefined, { refetchOnMountOrArgChange: true });
  const stats = useAdminBackupStatsQuery(undefined, { refetchOnMountOrArgChange: true });
  const plans = useAdminListPlansQuery();
  const selfId = useAppSelector((s) => s.auth.user?.id);
  const [search, setSearch] = useState('');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const panelRef = useRef<HTMLDivElement>(null);

  const loadErrors = [
    users.error && adminError(ADMIN_ERRORS.users, users.error),
    stats.error && adminError(ADMIN_ERRORS.stats, stats.error),
    plans.error && adminError(ADMIN_ERRORS.plans, plans.error),
  ].filter((e) => !!e);

  useEffect(() => {
    if (users.error) console.error(ADMIN_ERRORS.users, users.error);
    if (stats.error) console.error(ADMIN_ERRORS.stats, stats.error);
    if (plans.error) console.error(ADMIN_ERRORS.plans, plans.error);
  }, [users.error, stats.error, plans.error]);

  const all = users.data ?? [];
  const rows = searchUsers(all, search, plans.data);
  const selected = all.find((u) => u._id === selectedId);

  // Below the two-column layout the panel sits under the list, often off screen: bring it into view.
  useEffect(() => {
    const panel = panelRef.current;
    if (!selectedId || !panel) return;
    const { top, bottom } = panel.getBoundingClientRect();
    if (top >= window.innerHeight || bottom <= 0)
      panel.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [selectedId]);

  return (
    <Page>
      <PageHeader
        title="Admin Dashboard"
        subtitle="Manage users, their plans and their agents"
        actions={
          // The article editor had no way in but its address.
          <Button asChild variant="outline">
            <RouterLink to="/admin/kb">Manage Knowledge Base</RouterLink>
          </Button>
        }
      />
      {loadErrors.length > 0 && (
        <Stack gap="2" mb="6">
          {loadErrors.map((e) => (
            <AdminErrorAlert key={e.title} error={e} />
          ))}
        </Stack>
      )}
      <AdminSummaryCards counts={users.data ? userCounts(users.data) : undefined} stats={stats.data} />
      <SecurityPolicyCard />

      <Grid
        templateColumns={{ base: 'minmax(0, 1fr)', lg: 'minmax(0, 3fr) minmax(0, 2fr)' }}
        gap="6"
        alignItems="start"
      >
        <Card.Root>
          <Card.Header>
            <Card.Title>Users</Card.Title>
            <Input
              type="search"
              mt="2"
              placeholder="Search name, email, role, plan or status..."
              aria-label="Search users"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
            />
          </Card.Header>
          <Card.Body pt="0">
            <Table.ScrollArea>
              <Table.Root size="sm" css={stackedTableCss} data-testid="admin-users-table">
                <Table.Header>
                  <Table.Row>
                    <Table.ColumnHeader>Name</Table.ColumnHeader>
                    <Table.ColumnHeader>Email</Table.ColumnHeader>
                    <Table.ColumnHeader>Role</Table.ColumnHeader>
                    <Table.ColumnHeader>Plan</Table.ColumnHeader>
                    <Table.ColumnHeader>Status</Table.ColumnHeader>
                    <Table.ColumnHeader />
                  </Table.Row>
                </Table.Header>
                <Table.Body>
                  {users.isLoading ? (
                    <Table.Row>
                      <Table.Cell colSpan={6} textAlign="center" py="10" color="fg.muted">
                        Loading users...
                      </Table.Cell>
                    </Table.Row>
                  ) : rows.length === 0 ? (
                    <Table.Row>
                      <Table.Cell colSpan={6} textAlign="center" py="10" color="fg.muted">
                        No users found
                      </Table.Cell>
                    </Table.Row>
                  ) : (
                    <UserRows
                      users={rows}
                      plans={plans.data}
                      selectedId={selectedId}
                      selfId={selfId}
                      onSelect={setSelectedId}
                    />
                  )}
                </Table.Body>
              </Table.Root>
            </Table.ScrollArea>
          </Card.Body>
          {users.data && (
            <Box px="4" py="3" borderTopWidth="1px">
              <Text fontSize="sm" color="fg.muted">
                {rows.length} of {all.length} users
              </Text>
            </Box>
          )}
        </Card.Root>

        <Box ref={panelRef} scrollMarginTop="20">
          {selected ? (
            <UserDetailPanel
              key={selected._id}
              user={selected}
              plans={plans.data}
              isSelf={selected._id === selfId}
              onDeleted={() => setSelectedId(null)}
            />
          ) : (
            <Card.Root>
              <Card.Body>
                <Text color="fg.muted">Select a user to see their details.</Text>
              </Card.Body>
            </Card.Root>
          )}
        </Box>
      </Grid>
    </Page>
  );
}
