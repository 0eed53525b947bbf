import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ChakraProvider } from '@chakra-ui/react';
import { Provider as ReduxProvider } from 'react-redux';
import { RouterProvider } from 'react-router';
import { store } from './app/store';
import { system } from './app/theme';
import { router } from './app/router';
import { restoreSession } from './features/auth/sessionActions';

// Read the saved session before the first render so guards see the right state at once.
store.dispatch(restoreSession());

const root = document.getElementById('root');
if (!root) throw new Error('#root element missing from index.html');

createRoot(root).render(
  <StrictMode>
    <ReduxProvider store={store}>
      <ChakraProvider value={system}>
        <RouterProvider router={router} />
      </ChakraProvider>
    </ReduxProvider>
  </StrictMode>,
);
