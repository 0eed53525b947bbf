import { Button, Tabs } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { ArrowLeftIcon } from './icons';
import { scrollingTabListProps } from './responsive';

export interface PageTab {
  value: string;
  label: string;
  content: ReactNode;
}

/** A page's tabs (Profile, Settings): triggers that scroll sideways on phones, each tab mounted when first opened. */
export function PageTabs({
  value,
  onSelect,
  tabs,
}: {
  value: string;
  onSelect: (value: string) => void;
  tabs: PageTab[];
}) {
  return (
    <Tabs.Root
      value={value}
      onValueChange={(d) => onSelect(d.value)}
      variant="line"
      colorPalette="brand"
      lazyMount
    >
      <Tabs.List mb="6" {...scrollingTabListProps}>
        {tabs.map((t) => (
          <Tabs.Trigger key={t.value} value={t.value}>
            {t.label}
          </Tabs.Trigger>
        ))}
      </Tabs.List>
      {tabs.map((t) => (
        <Tabs.Content key={t.value} value={t.value}>
          {t.content}
        </Tabs.Content>
      ))}
    </Tabs.Root>
  );
}

/** The way back from a page the account menu opens (Profile, Settings). */
export function BackToDashboard() {
  return (
    <Button asChild variant="ghost" size="sm" mb="4" ml="-2">
      <RouterLink to="/dashboard">
        <ArrowLeftIcon /> Back to Dashboard
      </RouterLink>
    </Button>
  );
}
