import { Box } from '@chakra-ui/react';
import { storageBarColor } from '../../lib/plan';

/** Storage usage bar: green ≤ 70 %, amber > 70 %, red > 90 %; width capped at 100 %. */
export function StorageBar({ percent }: { percent: number }) {
  const width = Math.max(0, Math.min(100, percent));
  return (
    <Box
      h="2.5"
      w="full"
      bg="bg.emphasized"
      rounded="full"
      overflow="hidden"
      role="progressbar"
      aria-label="Storage Used"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(width)}
    >
      <Box h="full" w={`${width}%`} bg={storageBarColor(percent)} rounded="full" transition="width 0.3s" />
    </Box>
  );
}
