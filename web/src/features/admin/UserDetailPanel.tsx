// The admin console's detail panel for one user (product §2, §4): e-mail, role, status, plan,
// ban/unban with an optional reason, the user's agents, Delete User. Every failure shows the
// inline message of product §8 with the server's reason, e.g. when an admin tries to ban themselves.
import { useState, type FormEvent, type ReactNode } from 'react';
import {
  Box,
  Button,
  Card,
  Field,
  Heading,
  HStack,
  Input,
  NativeSelect,
  Separator,
  Stack,
  Text,
} from '@chakra-ui/react';
import {
  useAdminDeleteAgentMutation,
  useAdminDeleteUserMutation,
  useAdminListUserAgentsQuery,
  useAdminSetBanMutation,
  useAdminUpdateUserMutation,
  type AdminAgent,
  type AdminUpdateUserApiArg,
  type AdminUser,
  type Agent,
  type Plan,
} from '../../api/generated';
import { formatDate, formatLongDate } from '../../lib/format';
import { agentDotColor, agentStatusLabel } from '../agents/agentStatus';
import { useConfirm } from '../shell/ConfirmDialog';
import { AdminErrorAlert } from './AdminErrorAlert';
import { StatusBadge } from './StatusBadge';
import {
  ADMIN_ERRORS,
  adminError,
  banBody,
  DEFAULT_BAN_REASON,
  DELETE_USER_CONFIRMATION,
  emailToSave,
  type AdminError,
} from './users';

type UserField = keyof AdminUpdateUserApiArg['body'];

const FIELD_ERRORS: Record<UserField, string> = {
  plan: ADMIN_ERRORS.plan,
  role: ADMIN_ERRORS.role,
  status: ADMIN_ERRORS.status,
  email: ADMIN_ERRORS.email,
};

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack gap="3">
      <Heading as="h3" size="sm">
        {title}
      </Heading>
      {children}
    </Stack>
  );
}

function SelectField({
  label,
  value,
  disabled,
  onChange,
  children,
}: {
  label: string;
  value: string;
  disabled?: boolean;
  onChange: (value: string) => void;
  children: ReactNode;
}) {
  return (
    <Field.Root disabled={disabled}>
      <Field.Label>{label}</Field.Label>
      <NativeSelect.Root>
        <NativeSelect.Field value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          {children}
        </NativeSelect.Field>
        <NativeSelect.Indicator />
      </NativeSelect.Root>
    </Field.Root>
  );
}

function AgentRow({ agent, busy, onDelete }: { agent: AdminAgent; busy: boolean; onDelete: () => void }) {
  const status = agent.status as Agent['status'];
  return (
    <Stack
      direction={{ base: 'column', sm: 'row' }}
      justify="space-between"
      align={{ sm: 'center' }}
      gap="2"
      borderWidth="1px"
      rounded="md"
      p="3"
      data-testid="admin-agent-row"
    >
      <Box minW="0">
        <HStack gap="2">
          <Box w="2" h="2" rounded="full" bg={agentDotColor(status)} flexShrink="0" aria-hidden />
          <Text fontWeight="medium" overflowWrap="anywhere">
            {agent.name}
          </Text>
          <Text fontSize="sm" color="fg.muted">
            {agentStatusLabel(status)}
          </Text>
        </HStack>
        <Text fontSize="sm" color="fg.muted" overflowWrap="anywhere">
          {agent.hostname} · {agent.platform || 'unknown platform'} · v{agent.version || '?'}
        </Text>
        {agent.lastSeen && (
          <Text fontSize="xs" color="fg.muted">
            Last seen {formatDate(agent.lastSeen)}
          </Text>
        )}
      </Box>
      <Button
        size="xs"
        variant="outline"
        colorPalette="red"
        loading={busy}
        aria-label={`Delete agent ${agent.name}`}
        onClick={onDelete}
        alignSelf={{ base: 'flex-start', sm: 'center' }}
      >
        Delete
      </Button>
    </Stack>
  );
}

function UserAgents({ userId, onError }: { userId: string; onError: (e: AdminError) => void }) {
  const agents = useAdminListUserAgentsQuery(userId, { refetchOnMountOrArgChange: true });
  const [deleteAgent] = useAdminDeleteAgentMutation();
  const [confirm, confirmDialog] = useConfirm();
  const [busy, setBusy] = useState<string | null>(null);

  const remove = async (agent: AdminAgent) => {
    const ok = await confirm(
      `Delete the agent '${agent.name}'? It is disconnected at once and can no longer run backups; existing backups are kept.`,
      { title: 'Delete agent', confirmLabel: 'Delete', destructive: true },
    );
    if (!ok) return;
    setBusy(agent._id);
    try {
      await deleteAgent(agent._id).unwrap();
    } catch (err) {
      console.error(ADMIN_ERRORS.agent, err);
      onError(adminError(ADMIN_ERRORS.agent, err));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Section title="Agents">
      {confirmDialog}
      {agents.error ? (
        <AdminErrorAlert error={adminError(ADMIN_ERRORS.load, agents.error)} />
      ) : agents.isLoading ? (
        <Text color="fg.muted">Loading agents...</Text>
      ) : !agents.data?.length ? (
        <Text color="fg.muted">No agents</Text>
      ) : (
        <Stack gap="2">
          {agents.data.map((a) => (
            <AgentRow key={a._id} agent={a} busy={busy === a._id} onDelete={() => void remove(a)} />
          ))}
        </Stack>
      )}
    </Section>
  );
}

export function UserDetailPanel({
  user,
  plans,
  isSelf,
  onDeleted,
}: {
  user: AdminUser;
  plans: Plan[] | undefined;
  isSelf: boolean;
  onDeleted: () => void;
}) {
  const [updateUser] = useAdminUpdateUserMutation();
  const [setBan, ban] = useAdminSetBanMutation();
  const [deleteUser, deletion] = useAdminDeleteUserMutation();
  const [confirm, confirmDialog] = useConfirm();
  const [error, setError] = useState<AdminError | null>(null);
  const [pending, setPending] = useState<UserField | null>(null);
  const [email, setEmail] = useState(user.email);
  const [reason, setReason] = useState('');

  const update = async (field: UserField, value: string) => {
    setError(null);
    setPending(field);
    try {
      await updateUser({ id: user._id, body: { [field]: value } }).unwrap();
      if (field === 'email') setEmail(value);
    } catch (err) {
      console.error(FIELD_ERRORS[field], err);
      setError(adminError(FIELD_ERRORS[field], err));
    } finally {
      setPending(null);
    }
  };

  const saveEmail = (e: FormEvent) => {
    e.preventDefault();
    const next = emailToSave(email, user.email);
    if (next) void update('email', next);
  };

  const changeBan = async (isBanned: boolean) => {
    setError(null);
    try {
      await setBan({ id: user._id, body: banBody(isBanned, reason) }).unwrap();
      setReason('');
    } catch (err) {
      console.error(ADMIN_ERRORS.ban, err);
      setError(adminError(ADMIN_ERRORS.ban, err));
    }
  };

  const remove = async () => {
    const ok = await confirm(DELETE_USER_CONFIRMATION, {
      title: `Delete ${user.email}?`,
      confirmLabel: 'Delete User',
      destructive: true,
    });
    if (!ok) return;
    setError(null);
    try {
      await deleteUser(user._id).unwrap();
      onDeleted();
    } catch (err) {
      console.error(ADMIN_ERRORS.user, err);
      setError(adminError(ADMIN_ERRORS.user, err));
    }
  };

  const planKnown = plans?.some((p) => p._id === user.plan);
  const bannedOn = formatLongDate(user.bannedAt);

  return (
    <Card.Root data-testid="admin-user-detail">
      {confirmDialog}
      <Card.Header>
        <HStack justify="space-between" align="start" gap="3" flexWrap="wrap">
          <Box minW="0">
            <Card.Title overflowWrap="anywhere">
              {user.name || user.email}
              {isSelf && (
                <Text as="span" color="fg.muted" fontWeight="normal">
                  {' '}
                  (you)
                </Text>
              )}
            </Card.Title>
            <Card.Description overflowWrap="anywhere">{user.email}</Card.Description>
          </Box>
          <StatusBadge user={user} />
        </HStack>
        <Text fontSize="xs" color="fg.muted">
          Joined {formatDate(user.createdAt)}
        </Text>
      </Card.Header>
      <Card.Body>
        <Stack gap="6">
          {error && <AdminErrorAlert error={error} />}

          <form onSubmit={saveEmail}>
            <Field.Root>
              <Field.Label>Email</Field.Label>
              <Stack direction={{ base: 'column', sm: 'row' }} gap="2" w="full">
                <Input type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
                <Button
                  type="submit"
                  colorPalette="brand"
                  flexShrink="0"
                  loading={pending === 'email'}
                  disabled={!emailToSave(email, user.email)}
                >
                  Save Email
                </Button>
              </Stack>
            </Field.Root>
          </form>

          <Stack direction={{ base: 'column', sm: 'row' }} gap="4">
            <SelectField
              label="Role"
              value={user.role}
              disabled={pending === 'role'}
              onChange={(v) => void update('role', v)}
            >
              <option value="user">user</option>
              <option value="admin">admin</option>
            </SelectField>
            <SelectField
              label="Status"
              value={user.status === 'inactive' ? 'inactive' : 'active'}
              disabled={pending === 'status'}
              onChange={(v) => void update('status', v)}
            >
              <option value="active">active</option>
              <option value="inactive">inactive</option>
            </SelectField>
          </Stack>
          <SelectField
            label="Plan"
            value={user.plan}
            disabled={pending === 'plan' || !plans}
            onChange={(v) => void update('plan', v)}
          >
            {!planKnown && <option value={user.plan}>{user.plan}</option>}
            {plans?.map((p) => (
              <option key={p._id} value={p._id}>
                {p.name}
              </option>
            ))}
          </SelectField>

          <Separator />
          <Section title="Ban">
            {user.isBanned ? (
              <Stack gap="3" align="start">
                <Text data-testid="admin-ban-details">
                  Banned{bannedOn ? ` on ${bannedOn}` : ''}: {user.banReason || 'No reason provided'}
                </Text>
                <Button variant="outline" loading={ban.isLoading} onClick={() => void changeBan(false)}>
                  Unban User
                </Button>
              </Stack>
            ) : (
              <Stack direction={{ base: 'column', sm: 'row' }} gap="2" align={{ sm: 'end' }}>
                <Field.Root>
                  <Field.Label>Ban reason (optional)</Field.Label>
                  <Input
                    value={reason}
                    placeholder={DEFAULT_BAN_REASON}
                    maxLength={500}
                    onChange={(e) => setReason(e.target.value)}
                  />
                </Field.Root>
                <Button
                  colorPalette="red"
                  flexShrink="0"
                  loading={ban.isLoading}
                  onClick={() => void changeBan(true)}
                >
                  Ban User
                </Button>
              </Stack>
            )}
          </Section>

          <Separator />
          <UserAgents userId={user._id} onError={setError} />

          <Separator />
          <Section title="Danger zone">
            <Text fontSize="sm" color="fg.muted">
              Deleting the account signs the user out and stops them signing in again.
            </Text>
            <Button
              colorPalette="red"
              alignSelf="flex-start"
              loading={deletion.isLoading}
              onClick={() => void remove()}
            >
              Delete User
            </Button>
          </Section>
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
