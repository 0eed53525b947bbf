// Help dropdown: opens on hover or click, hides 200 ms after the pointer leaves.
import { useEffect, useRef, useState } from 'react';
import { Box, Button, Link, Stack } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { ChevronDownIcon } from './icons';

export const HELP_HIDE_DELAY_MS = 200;

const HELP_LINKS = [
  { label: 'Knowledge Base', to: '/kb' },
  { label: 'Terms of Service', to: '/terms' },
  { label: 'Privacy Policy', to: '/privacy' },
  { label: 'Contact', to: '/contact' },
];

interface HelpMenuProps {
  /** inside the mobile menu the list opens in place instead of floating */
  inline?: boolean;
  onNavigate?: () => void;
}

export function HelpMenu({ inline = false, onNavigate }: HelpMenuProps) {
  const [open, setOpen] = useState(false);
  const hideTimer = useRef<number | undefined>(undefined);

  const cancelHide = () => {
    window.clearTimeout(hideTimer.current);
    hideTimer.current = undefined;
  };
  const show = () => {
    cancelHide();
    setOpen(true);
  };
  const hideSoon = () => {
    cancelHide();
    hideTimer.current = window.setTimeout(() => setOpen(false), HELP_HIDE_DELAY_MS);
  };
  useEffect(() => () => window.clearTimeout(hideTimer.current), []);

  const close = () => {
    cancelHide();
    setOpen(false);
    onNavigate?.();
  };

  return (
    <Box
      position="relative"
      onMouseEnter={inline ? undefined : show}
      onMouseLeave={inline ? undefined : hideSoon}
      onKeyDown={(e) => {
        if (e.key === 'Escape') setOpen(false);
      }}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) hideSoon();
      }}
    >
      <Button
        variant="ghost"
        size="sm"
        px="3"
        fontWeight="medium"
        color={open ? 'fg' : 'fg.muted'}
        _hover={{ color: 'fg', bg: 'bg.muted' }}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => (open ? setOpen(false) : show())}
        width={inline ? 'full' : undefined}
        justifyContent={inline ? 'space-between' : undefined}
      >
        Help
        <ChevronDownIcon transform={open ? 'rotate(180deg)' : undefined} transition="transform 0.15s" />
      </Button>
      {open && (
        <Stack
          role="menu"
          aria-label="Help"
          gap="0"
          py="1"
          minW="48"
          bg="bg.panel"
          borderWidth="1px"
          rounded="md"
          shadow={inline ? undefined : 'lg'}
          position={inline ? 'static' : 'absolute'}
          top="calc(100% + 4px)"
          right="0"
          zIndex="dropdown"
          ml={inline ? '4' : undefined}
        >
          {HELP_LINKS.map((l) => (
            <Link
              key={l.to}
              asChild
              role="menuitem"
              px="3"
              py="2"
              fontSize="sm"
              _hover={{ bg: 'bg.muted', textDecoration: 'none' }}
            >
              <RouterLink to={l.to} onClick={close}>
                {l.label}
              </RouterLink>
            </Link>
          ))}
        </Stack>
      )}
    </Box>
  );
}
