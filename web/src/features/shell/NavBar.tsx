// Top navigation: visitor or signed-in menu, Help dropdown, and a collapsible menu on small screens.
import { useState } from 'react';
import { Box, Button, Container, Flex, HStack, IconButton, Link, Stack, Text } from '@chakra-ui/react';
import { NavLink, Link as RouterLink, useLocation } from 'react-router';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { logOut } from '../auth/sessionActions';
import { HelpMenu } from './HelpMenu';
import { CloseIcon, LogoMark, MenuIcon } from './icons';

interface NavItem {
  label: string;
  to: string;
}

const VISITOR_LINKS: NavItem[] = [
  { label: 'Home', to: '/' },
  { label: 'About', to: '/about' },
  { label: 'Features', to: '/features' },
  { label: 'Pricing', to: '/#pricing' },
];

const MEMBER_LINKS: NavItem[] = [
  { label: 'Dashboard', to: '/dashboard' },
  { label: 'Settings', to: '/settings' },
  { label: 'Profile', to: '/profile' },
  { label: 'Audit Logs', to: '/audit-logs' },
];

const ADMIN_LINK: NavItem = { label: 'Admin', to: '/admin' };

function NavItemLink({ item, onNavigate }: { item: NavItem; onNavigate?: () => void }) {
  return (
    <Link
      asChild
      px="3"
      py="2"
      rounded="md"
      fontSize="sm"
      fontWeight="medium"
      color="fg.muted"
      _hover={{ color: 'fg', bg: 'bg.muted', textDecoration: 'none' }}
      _currentPage={{ color: 'brand.fg', bg: 'brand.subtle' }}
    >
      {/* '/#pricing' is a plain link so it is not marked current on every home visit */}
      {item.to.includes('#') ? (
        <RouterLink to={item.to} onClick={onNavigate}>
          {item.label}
        </RouterLink>
      ) : (
        <NavLink to={item.to} end onClick={onNavigate}>
          {item.label}
        </NavLink>
      )}
    </Link>
  );
}

export function NavBar() {
  const { isLoggedIn, isAdmin } = useAppSelector((s) => s.auth);
  const dispatch = useAppDispatch();
  const location = useLocation();
  const [mobileOpen, setMobileOpen] = useState(false);
  // Close the mobile menu whenever the route changes (adjusting state during render, not in an effect).
  const [lastPath, setLastPath] = useState(location.pathname);
  if (lastPath !== location.pathname) {
    setLastPath(location.pathname);
    setMobileOpen(false);
  }

  const links = isLoggedIn ? MEMBER_LINKS : VISITOR_LINKS;
  // Product §2 Navigation: the Help dropdown comes before Admin.
  const afterHelp = isLoggedIn && isAdmin ? [ADMIN_LINK] : [];
  const closeMobile = () => setMobileOpen(false);
  const logout = () => {
    closeMobile();
    void dispatch(logOut());
  };

  const actions = isLoggedIn ? (
    <Button size="sm" variant="outline" onClick={logout}>
      Log out
    </Button>
  ) : (
    <>
      <Button asChild size="sm" variant="ghost">
        <RouterLink to="/login" onClick={closeMobile}>
          Log in
        </RouterLink>
      </Button>
      <Button asChild size="sm" colorPalette="brand">
        <RouterLink to="/register" onClick={closeMobile}>
          Sign up
        </RouterLink>
      </Button>
    </>
  );

  return (
    <Box as="header" position="sticky" top="0" zIndex="sticky" bg="bg.panel" borderBottomWidth="1px">
      <Container maxW="7xl">
        <Flex h="16" align="center" justify="space-between" gap="4">
          <Link asChild _hover={{ textDecoration: 'none' }}>
            <RouterLink to={isLoggedIn ? '/dashboard' : '/'} aria-label="Coffer home">
              <HStack gap="2">
                <LogoMark color="brand.solid" />
                <Text fontWeight="bold" fontSize="lg" letterSpacing="tight">
                  Coffer
                </Text>
              </HStack>
            </RouterLink>
          </Link>

          <HStack as="nav" aria-label="Main" gap="1" hideBelow="md" flex="1" justify="center">
            {links.map((item) => (
              <NavItemLink key={item.to} item={item} />
            ))}
            <HelpMenu />
            {afterHelp.map((item) => (
              <NavItemLink key={item.to} item={item} />
            ))}
          </HStack>

          <HStack gap="2" hideBelow="md">
            {actions}
          </HStack>

          <IconButton
            hideFrom="md"
            variant="ghost"
            aria-label={mobileOpen ? 'Close menu' : 'Open menu'}
            aria-expanded={mobileOpen}
            aria-controls="mobile-menu"
            onClick={() => setMobileOpen((o) => !o)}
          >
            {mobileOpen ? <CloseIcon /> : <MenuIcon />}
          </IconButton>
        </Flex>
      </Container>

      {mobileOpen && (
        <Box id="mobile-menu" hideFrom="md" borderTopWidth="1px" bg="bg.panel">
          <Container maxW="7xl" py="3">
            <Stack as="nav" aria-label="Mobile" gap="1">
              {links.map((item) => (
                <NavItemLink key={item.to} item={item} onNavigate={closeMobile} />
              ))}
              <HelpMenu inline onNavigate={closeMobile} />
              {afterHelp.map((item) => (
                <NavItemLink key={item.to} item={item} onNavigate={closeMobile} />
              ))}
              <HStack pt="2" gap="2">
                {actions}
              </HStack>
            </Stack>
          </Container>
        </Box>
      )}
    </Box>
  );
}
