import { Stack, Switch, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** An on/off setting: its name and what it does on the left, the switch on the right. */
export function SettingSwitch({
  label,
  description,
  checked,
  disabled,
  onChange,
}: {
  label: string;
  description: ReactNode;
  checked: boolean;
  disabled?: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <Switch.Root
      checked={checked}
      disabled={disabled}
      onCheckedChange={(d) => onChange(d.checked)}
      colorPalette="brand"
      display="flex"
      justifyContent="space-between"
      alignItems="flex-start"
      gap="4"
      w="full"
    >
      <Stack gap="0">
        <Switch.Label fontWeight="medium">{label}</Switch.Label>
        <Text fontSize="sm" color="fg.muted">
          {description}
        </Text>
      </Stack>
      <Switch.HiddenInput />
      <Switch.Control>
        <Switch.Thumb />
      </Switch.Control>
    </Switch.Root>
  );
}
