// Settings (product §2): General, Agents, Databases, Security, Notifications, chosen with ?tab=…;
// ?agent={id} opens Agents with that agent selected and is then removed from the address.
import { useEffect, useState } from 'react';
import { Center, Spinner, Stack } from '@chakra-ui/react';
import { useSearchParams } from 'react-router';
import { useAppSelector } from '../../app/hooks';
import { useGetProfileQuery, useGetUserPlanQuery, useGetSettingsQuery } from '../../api/generated';
import { BackToDashboard, PageTabs } from '../shell/PageTabs';
import { Page, PageHeader } from '../shell/PageStates';
import { AgentsTab } from './AgentsTab';
import { DatabasesTab } from './DatabasesTab';
import { GeneralTab } from './GeneralTab';
import { NotificationsTab } from './NotificationsTab';
import { RetentionLockCard } from './RetentionLockCard';
import { SecurityTab } from './SecurityTab';
import { formFromSettings, useSaveSettings, type SettingsForm } from './useSettingsForm';

export const SETTINGS_TABS = ['general', 'agents', 'databases', 'security', 'notifications'] as const;
export type SettingsTab = (typeof SETTINGS_TABS)[number];

export function isSettingsTab(value: string | null): value is SettingsTab {
  return (SETTINGS_TABS as readonly string[]).includes(value ?? '');
}

export function SettingsPage() {
  const [params, setParams] = useSearchParams();
  const agentParam = params.get('agent');
  const requested = params.get('tab');
  const tab: SettingsTab = agentParam ? 'agents' : isSettingsTab(requested) ? requested : 'general';
  const [selectedAgent, setSelectedAgent] = useState<string | null>(agentParam);

  // ?agent=… selects the agent once, then leaves the address (the Agents tab stays open).
  useEffect(() => {
    if (!agentParam) return;
    setSelectedAgent(agentParam);
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.delete('agent');
        next.set('tab', 'agents');
        return next;
      },
      { replace: true },
    );
  }, [agentParam, setParams]);

  const selectTab = (value: string) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.delete('agent');
        if (value === 'general') next.delete('tab');
        else next.set('tab', value);
        return next;
      },
      { replace: true },
    );

  const sessionEmail = useAppSelector((s) => s.auth.user?.email ?? '');
  const { data: profile } = useGetProfileQuery();
  const { data: plan, error: planError } = useGetUserPlanQuery();
  const settingsQuery = useGetSettingsQuery();
  if (planError) console.error('Failed to fetch plan', planError);
  if (settingsQuery.error) console.error('Failed to load settings', settingsQuery.error);

  // The form starts from the saved settings (or the defaults when they cannot be read).
  const [form, setForm] = useState<SettingsForm | null>(null);
  const settingsSettled = settingsQuery.data !== undefined || settingsQuery.isError;
  if (form === null && settingsSettled) {
    setForm(formFromSettings(settingsQuery.data, profile?.email ?? sessionEmail));
  }
  const patch = (p: Partial<SettingsForm>) => setForm((f) => (f ? { ...f, ...p } : f));
  const { save, saving, saved, failed, failedMessage } = useSaveSettings();

  const formPending = (
    <Center py="16">
      <Spinner color="brand.solid" aria-label="Loading settings" />
    </Center>
  );

  return (
    <Page maxW="6xl">
      <BackToDashboard />
      <PageHeader
        title="Settings"
        subtitle="Configure backups, agents, databases, security and notifications"
      />
      <PageTabs
        value={tab}
        onSelect={selectTab}
        tabs={[
          {
            value: 'general',
            label: 'General',
            content: form ? (
              <Stack gap="6">
                <GeneralTab
                  form={form}
                  plan={plan}
                  onChange={patch}
                  onSave={() => void save(form, 'general')}
                  saving={saving}
                  saved={saved === 'general'}
                  failed={failed === 'general'}
                />
                <RetentionLockCard />
              </Stack>
            ) : (
              formPending
            ),
          },
          {
            value: 'agents',
            label: 'Agents',
            content: (
              <AgentsTab
                selectedId={selectedAgent}
                onSelect={setSelectedAgent}
                onSetupNew={() => selectTab('security')}
              />
            ),
          },
          { value: 'databases', label: 'Databases', content: <DatabasesTab /> },
          { value: 'security', label: 'Security', content: <SecurityTab /> },
          {
            value: 'notifications',
            label: 'Notifications',
            content: form ? (
              <NotificationsTab
                form={form}
                onChange={patch}
                onSave={(source) => void save(form, source)}
                saving={saving}
                saved={saved}
                failed={failed}
                failedMessage={failedMessage}
              />
            ) : (
              formPending
            ),
          },
        ]}
      />
    </Page>
  );
}
