import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { queryClient } from './api/query-client';
import { App } from './app';
import { preloadRoute } from './screens/route-preload';
import './styles.css';

// The page's code and data are asked for now, beside the session, not one after another.
preloadRoute(queryClient, window.location.pathname, window.location.hash);

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <App />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
