import { SimpleGrid } from '@chakra-ui/react';
import { Page, PageHeader } from '../shell/PageStates';
import { SystemStatusCard } from './SystemStatusCard';

export function DashboardPage() {
  return (
    <Page>
      <PageHeader title="Dashboard" subtitle="Manage and monitor your MongoDB backups" />
      <SimpleGrid columns={{ base: 1, lg: 3 }} gap="6">
        {/* The setup wizard is a later step; the button stays disabled until it exists. */}
        <SystemStatusCard />
      </SimpleGrid>
    </Page>
  );
}
