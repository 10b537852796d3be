/** The pages: everything but sign-in needs a session; a `#code=` fragment signs in first. */
import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { ErrorNote } from './components/error-note';
import { Loading } from './components/loading';
import { HomeScreen } from './screens/home/home-screen';
import { IntegrationsScreen } from './screens/integrations/integrations-screen';
import { AppLayout } from './screens/layout/app-layout';
import { NotFoundScreen } from './screens/layout/not-found-screen';
import { OrganizationScreen } from './screens/organization/organization-screen';
import { loadInstallationScreen } from './screens/route-preload';
import { SignInScreen } from './screens/sign-in/sign-in-screen';
import { useCodeFromFragment } from './screens/sign-in/use-code-from-fragment';
import { SiteScreen } from './screens/space/site-screen';
import { useSession } from './session/session';

// Screens with heavy parts (the form generator, Markdown, the ContentKit renderer) load when first opened.
const InstallationScreen = lazy(() => loadInstallationScreen().then((m) => ({ default: m.InstallationScreen })));
const IntegrationScreen = lazy(() =>
  import('./screens/integration/integration-screen').then((m) => ({ default: m.IntegrationScreen })),
);
const SpaceScreen = lazy(() => import('./screens/space/space-screen').then((m) => ({ default: m.SpaceScreen })));

export function App() {
  const fragment = useCodeFromFragment();
  const session = useSession();
  if (fragment.pending || session.isPending) return <Loading label="Signing in" />;
  if (session.isError)
    return (
      <main className="sign-in">
        <h1>Portico cannot be reached</h1>
        <ErrorNote error={session.error} />
        <p className="muted">Check that the Portico server is running, then reload this page.</p>
      </main>
    );
  if (session.data === null) return <SignInScreen error={fragment.error} />;
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        <Route element={<AppLayout session={session.data} />}>
          <Route index element={<HomeScreen />} />
          <Route path="orgs/:org" element={<OrganizationScreen />} />
          <Route path="integrations" element={<IntegrationsScreen />} />
          <Route path="integrations/:name" element={<IntegrationScreen />} />
          <Route path="installations/:id" element={<InstallationScreen />} />
          <Route path="spaces/:id" element={<SpaceScreen />} />
          <Route path="sites/:id" element={<SiteScreen />} />
          <Route path="*" element={<NotFoundScreen />} />
        </Route>
      </Routes>
    </Suspense>
  );
}
