import { Button, Spinner, Center, Tabs } from '@chakra-ui/react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { FormAlert } from '../shell/FormAlert';
import { ArrowLeftIcon } from '../shell/icons';
import { Page, PageHeader } from '../shell/PageStates';
import { AccountTab } from './AccountTab';
import { BillingTab } from './BillingTab';
import { useGetProfileQuery } from '../../api/generated';
import { SecurityTab } from './SecurityTab';
import { scrollingTabListProps } from '../shell/responsive';

const TABS = ['account', 'security', 'billing'] as const;
type ProfileTab = (typeof TABS)[number];

function isProfileTab(value: string | null): value is ProfileTab {
  return (TABS as readonly string[]).includes(value ?? '');
}

export function ProfilePage() {
  const { data: profile, isLoading, error } = useGetProfileQuery();
  const [params, setParams] = useSearchParams();
  const requested = params.get('tab');
  const tab: ProfileTab = isProfileTab(requested) ? requested : 'account';
  if (error) console.error('Failed to load profile', error);

  const selectTab = (value: string) => {
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (value === 'account') next.delete('tab');
        else next.set('tab', value);
        return next;
      },
      { replace: true },
    );
  };

  return (
    <Page maxW="5xl">
      <Button asChild variant="ghost" size="sm" mb="4" ml="-2">
        <RouterLink to="/dashboard">
          <ArrowLeftIcon /> Back to Dashboard
        </RouterLink>
      </Button>
      <PageHeader title="My Profile" subtitle="Manage your account, security and plan" />
      {isLoading ? (
        <Center py="16">
          <Spinner size="lg" color="brand.solid" aria-label="Loading profile" />
        </Center>
      ) : !profile ? (
        <FormAlert status="error">Your profile could not be loaded. Please reload the page.</FormAlert>
      ) : (
        <Tabs.Root
          value={tab}
          onValueChange={(d) => selectTab(d.value)}
          variant="line"
          colorPalette="brand"
          lazyMount
        >
          <Tabs.List mb="6" {...scrollingTabListProps}>
            <Tabs.Trigger value="account">Account</Tabs.Trigger>
            <Tabs.Trigger value="security">Security</Tabs.Trigger>
            <Tabs.Trigger value="billing">Billing &amp; Plan</Tabs.Trigger>
          </Tabs.List>
          <Tabs.Content value="account">
            <AccountTab key={profile._id} profile={profile} />
          </Tabs.Content>
          <Tabs.Content value="security">
            <SecurityTab profile={profile} />
          </Tabs.Content>
          <Tabs.Content value="billing">
            <BillingTab profile={profile} />
          </Tabs.Content>
        </Tabs.Root>
      )}
    </Page>
  );
}
