import { useEffect, useRef } from 'react';
import { Button, Center, Text } from '@chakra-ui/react';

interface LoadMoreProps {
  /** what the list holds, for the button: "backups" */
  what: string;
  loading: boolean;
  failed: boolean;
  onLoadMore: () => void;
}

/**
 * The end of a list with older rows: loads them when it scrolls into view, and offers a button
 * for the same (keyboard users, browsers without IntersectionObserver, a failed attempt).
 */
export function LoadMore({ what, loading, failed, onLoadMore }: LoadMoreProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || failed || typeof IntersectionObserver === 'undefined') return;
    const seen = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) onLoadMore();
    });
    seen.observe(el);
    return () => seen.disconnect();
  }, [onLoadMore, failed]);
  return (
    <Center ref={ref} pt="4" flexDirection="column" gap="2" data-testid="load-more">
      {failed && (
        <Text fontSize="sm" color="fg.error">
          Older {what} could not be loaded. Try again.
        </Text>
      )}
      <Button size="sm" variant="outline" loading={loading} onClick={onLoadMore}>
        Load older {what}
      </Button>
    </Center>
  );
}
