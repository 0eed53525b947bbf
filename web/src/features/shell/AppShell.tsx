import { Box } from '@chakra-ui/react';
import { Outlet } from 'react-router';
import { Footer } from './Footer';
import { NavBar } from './NavBar';
import { ScrollManager, SessionWatcher, TitleManager } from './RouteEffects';
import { StepUpDialog } from '../auth/StepUpDialog';
import { Toaster } from './Toaster';

export function AppShell() {
  return (
    <>
      <TitleManager />
      <ScrollManager />
      <SessionWatcher />
      <NavBar />
      <Box as="main" flex="1" display="flex" flexDirection="column">
        <Outlet />
      </Box>
      <Footer />
      <Toaster />
      <StepUpDialog />
    </>
  );
}
