/**
 * What a page opened cold needs, asked for at once instead of one step after another. Without it,
 * the installation page waited for the session, then its code, then the installation, then the
 * organization and the logs. Here, as the app starts (beside the session, before anything
 * renders), the screen's code and its data are asked for together, and what the installation
 * names (its organization and integration) as soon as it arrives. The screens read the same
 * cache entries (api/queries.ts); a request made without a session answers 401 and the sign-in
 * screen shows, as it would have anyway.
 */
import type { QueryClient } from '@tanstack/react-query';
import {
  deliveriesQuery,
  dispatchesQuery,
  type InstallationPage,
  installationQuery,
  integrationQuery,
  organizationQuery,
  organizationsQuery,
} from '../api/queries';
import { codeInFragment, sessionQuery } from '../session/session';

/** The installation screen's code (app.tsx loads it lazily through the same import). */
export const loadInstallationScreen = () => import('./installation/installation-screen');

export function preloadRoute(client: QueryClient, pathname: string, hash: string): void {
  // A sign-in link signs in first: a request before it would answer 401 and could arrive after it.
  if (codeInFragment(hash) !== undefined) return;
  void client.prefetchQuery(sessionQuery);
  // Every signed-in page shows the organizations (the navigation under the header).
  void client.prefetchQuery(organizationsQuery());
  const installation = /^\/installations\/([^/]+)\/?$/.exec(pathname)?.[1];
  if (installation !== undefined) preloadInstallation(client, decodeURIComponent(installation));
  const org = /^\/orgs\/([^/]+)\/?$/.exec(pathname)?.[1];
  if (org !== undefined) void client.prefetchQuery(organizationQuery(decodeURIComponent(org)));
}

function preloadInstallation(client: QueryClient, id: string) {
  void loadInstallationScreen();
  void client.prefetchInfiniteQuery(deliveriesQuery(id, {}));
  void client.prefetchInfiniteQuery(dispatchesQuery(id, { system: false }));
  void client.prefetchQuery(installationQuery(id)).then(() => {
    const page = client.getQueryData<InstallationPage>(installationQuery(id).queryKey);
    if (!page) return;
    void client.prefetchQuery(organizationQuery(page.organization));
    void client.prefetchQuery(integrationQuery(page.integration));
  });
}
