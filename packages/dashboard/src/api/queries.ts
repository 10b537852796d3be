/**
 * What the pages read, through the generated client and the query cache. Keys name the resource;
 * mutations invalidate what they change, so no page keeps its own copy of server state.
 */
import { type InfiniteData, useInfiniteQuery, useQueries, useQuery } from '@tanstack/react-query';
import { api, call, callWithHeaders, type Schemas } from './client';

export type OrganizationEntry = Schemas['OrganizationEntry'];
export type OrganizationPage = Schemas['OrganizationPage'];
export type PlacePage = Schemas['PlacePage'];
export type DirectoryEntry = Schemas['DirectoryEntry'];
export type IntegrationPage = Schemas['IntegrationPage'];
export type InstallationPage = Schemas['InstallationPage'];
export type ConfigurationField = Schemas['ConfigurationField'];
export type Delivery = Schemas['Delivery'];
export type Dispatch = Schemas['Dispatch'];
export type Endpoint = Schemas['Endpoint'];
export type UserEntry = Schemas['UserEntry'];
export type TroubledEndpoint = Schemas['TroubledEndpoint'];

export const keys = {
  organizations: ['organizations'] as const,
  organization: (org: string) => ['organization', org] as const,
  place: (kind: 'space' | 'site', id: string) => [kind, id] as const,
  directory: (share?: string) => ['directory', share ?? ''] as const,
  integration: (name: string, share?: string) => ['integration', name, share ?? ''] as const,
  installation: (id: string) => ['installation', id] as const,
  deliveries: (id: string, filter: DeliveryFilter) => ['deliveries', id, filter] as const,
  dispatches: (id: string, filter: DispatchFilter) => ['dispatches', id, filter] as const,
  users: ['users'] as const,
  troubledEndpoints: ['troubled-endpoints'] as const,
  scopeRequests: ['scope-requests'] as const,
};

export interface DispatchFilter {
  /** Whether the system events (renders, setup events) are listed too. */
  system: boolean;
}

export interface DeliveryFilter {
  status?: 'pending' | 'delivered' | 'failed';
  eventId?: string;
}

// The options of the queries a page starts with, shared by the hooks and by the preload of a
// page's data at startup (screens/route-preload.ts), so both use one cache entry.
export const organizationsQuery = () => ({
  queryKey: keys.organizations,
  queryFn: () => call(api.GET('/v1/orgs')),
});

export const organizationQuery = (org: string) => ({
  queryKey: keys.organization(org),
  queryFn: () => call(api.GET('/v1/orgs/{org}', { params: { path: { org } } })),
});

export const installationQuery = (id: string) => ({
  queryKey: keys.installation(id),
  queryFn: () =>
    call(
      api.GET('/v1/installations/{id}', { params: { path: { id }, query: { view: 'page' } } }),
    ) as Promise<InstallationPage>,
});

export const integrationQuery = (name: string, share?: string) => ({
  queryKey: keys.integration(name, share),
  queryFn: () =>
    call(
      api.GET('/v1/integrations/{name}', {
        params: { path: { name }, query: share ? { share } : {} },
      }),
    ) as Promise<IntegrationPage>,
});

export const useOrganizations = () => useQuery(organizationsQuery());

export const useOrganization = (org: string, enabled = true) =>
  useQuery({ ...organizationQuery(org), enabled: enabled && org !== '' });

export const usePlace = (kind: 'space' | 'site', id: string) =>
  useQuery({
    queryKey: keys.place(kind, id),
    queryFn: () =>
      kind === 'space'
        ? call(api.GET('/v1/spaces/{id}', { params: { path: { id } } }))
        : call(api.GET('/v1/sites/{id}', { params: { path: { id } } })),
  });

export const useDirectory = (share?: string) =>
  useQuery({
    queryKey: keys.directory(share),
    queryFn: () => call(api.GET('/v1/integrations', { params: { query: share ? { share } : {} } })),
  });

export const useIntegration = (name: string, share?: string) => useQuery(integrationQuery(name, share));

export const useInstallation = (id: string) => useQuery(installationQuery(id));

/** One page of the delivery log, and the cursor of the next (older) one. */
export interface DeliveryPage {
  deliveries: Delivery[];
  nextCursor?: string | undefined;
}
export type DeliveryPages = InfiniteData<DeliveryPage, string | undefined>;

/** The delivery log, newest first, 50 at a time (`X-Next-Cursor` leads to the older ones). */
export const useDeliveries = (id: string, filter: DeliveryFilter, live: boolean) =>
  useInfiniteQuery({
    ...deliveriesQuery(id, filter),
    // Without the live stream, ask again now and then.
    refetchInterval: live ? false : 5_000,
  });

export const deliveriesQuery = (id: string, filter: DeliveryFilter) => ({
  queryKey: keys.deliveries(id, filter),
  initialPageParam: undefined as string | undefined,
  queryFn: async ({ pageParam }: { pageParam: string | undefined }): Promise<DeliveryPage> => {
    const { data, headers } = await callWithHeaders(
      api.GET('/v1/installations/{id}/deliveries', {
        params: {
          path: { id },
          query: {
            limit: 50,
            // One row per event and URL: its latest delivery decides its status (and the status filter).
            latest: 'true',
            ...(filter.status ? { status: filter.status } : {}),
            ...(filter.eventId ? { eventId: filter.eventId } : {}),
            ...(pageParam ? { cursor: pageParam } : {}),
          },
        },
      }),
    );
    return { deliveries: data, nextCursor: headers.get('x-next-cursor') ?? undefined };
  },
  getNextPageParam: (last: DeliveryPage) => last.nextCursor,
});

/** Every delivery of one event (the first and its redeliveries), newest first. */
export const useEventDeliveries = (id: string, eventId: string, enabled: boolean) =>
  useQuery({
    queryKey: ['deliveries', id, 'event', eventId],
    queryFn: () =>
      call(api.GET('/v1/installations/{id}/deliveries', { params: { path: { id }, query: { eventId, limit: 200 } } })),
    enabled,
  });

/** One page of the Events log, and the cursor of the next (older) one. */
export interface DispatchPage {
  dispatches: Dispatch[];
  nextCursor?: string | undefined;
}
export type DispatchPages = InfiniteData<DispatchPage, string | undefined>;

/** The Events log, newest first, 50 at a time; the server leaves out system events unless asked. */
export const useDispatches = (id: string, filter: DispatchFilter, live: boolean) =>
  useInfiniteQuery({ ...dispatchesQuery(id, filter), refetchInterval: live ? false : 5_000 });

export const dispatchesQuery = (id: string, filter: DispatchFilter) => ({
  queryKey: keys.dispatches(id, filter),
  initialPageParam: undefined as string | undefined,
  queryFn: async ({ pageParam }: { pageParam: string | undefined }): Promise<DispatchPage> => {
    const { data, headers } = await callWithHeaders(
      api.GET('/v1/installations/{id}/dispatches', {
        params: {
          path: { id },
          query: { limit: 50, system: filter.system ? 'true' : 'false', ...(pageParam ? { cursor: pageParam } : {}) },
        },
      }),
    );
    return { dispatches: data, nextCursor: headers.get('x-next-cursor') ?? undefined };
  },
  getNextPageParam: (last: DispatchPage) => last.nextCursor,
});

/** Whether the installation has any system event (the empty log then says they are hidden). */
export const useAnySystemEvent = (id: string, enabled: boolean) =>
  useQuery({
    queryKey: ['dispatches', id, 'any'],
    queryFn: async () =>
      (await call(api.GET('/v1/installations/{id}/dispatches', { params: { path: { id }, query: { limit: 1 } } })))
        .length > 0,
    enabled,
  });

/**
 * Where each integration is installed at organization level, among the signed-in person's
 * organizations: integration name → [{ organization, title, installationId }].
 */
export function useInstalledIntegrations() {
  const organizations = useOrganizations();
  const pages = useQueries({
    queries: (organizations.data ?? []).map((org) => ({
      queryKey: keys.organization(org.id),
      queryFn: () => call(api.GET('/v1/orgs/{org}', { params: { path: { org: org.id } } })),
    })),
  });
  const installed = new Map<string, { organization: string; title: string; installationId: string }[]>();
  for (const page of pages) {
    if (!page.data) continue;
    for (const installation of page.data.installations) {
      const list = installed.get(installation.integration) ?? [];
      list.push({ organization: page.data.id, title: page.data.title, installationId: installation.id });
      installed.set(installation.integration, list);
    }
  }
  return { installed, pending: organizations.isPending || pages.some((page) => page.isPending) };
}

/** Every user with their memberships (the operator console; the admin token only). */
export const useUsers = () => useQuery({ queryKey: keys.users, queryFn: () => call(api.GET('/v1/users')) });

/** Endpoints of every organization that are disabled or failing (the operator console), read again now and then. */
export const useTroubledEndpoints = () =>
  useQuery({
    queryKey: keys.troubledEndpoints,
    queryFn: () => call(api.GET('/v1/endpoints', { params: { query: {} } })),
    refetchInterval: 15_000,
  });

/** What integrations' newer versions ask for beyond their organizations' grants (the operator console), read again now and then. */
export const useScopeRequests = () =>
  useQuery({
    queryKey: keys.scopeRequests,
    queryFn: () => call(api.GET('/v1/scope-requests')),
    refetchInterval: 15_000,
  });
