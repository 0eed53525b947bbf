import { Spinner, Center } from '@chakra-ui/react';
import { useSearchParams } from 'react-router';
import { FormAlert } from '../shell/FormAlert';
import { BackToDashboard, PageTabs } from '../shell/PageTabs';
import { Page, PageHeader } from '../shell/PageStates';
import { AccountTab } from './AccountTab';
import { BillingTab } from './BillingTab';
import { useGetProfileQuery } from '../../api/generated';
import { SecurityTab } from './SecurityTab';

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
      <BackToDashboard />
      <PageHeader title="My Profile" subtitle="Manage your account, security and plan" />
      {isLoading ? (
        <Center py="16">
          <Spinner size="lg" color="brand.solid" aria-label="Loading profile" />
        </Center>
      ) : !profile ? (
        <FormAlert status="error">Your profile could not be loaded. Please reload the page.</FormAlert>
      ) : (
        <PageTabs
          value={tab}
          onSelect={selectTab}
          tabs={[
            {
              value: 'account',
              label: 'Account',
              content: <AccountTab key={profile._id} profile={profile} />,
            },
            { value: 'security', label: 'Security', content: <SecurityTab profile={profile} /> },
            { value: 'billing', label: 'Billing & Plan', content: <BillingTab profile={profile} /> },
          ]}
        />
      )}
    </Page>
  );
}
