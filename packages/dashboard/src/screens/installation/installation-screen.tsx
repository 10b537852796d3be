import { lazy, Suspense } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { type OrganizationPage, useInstallation, useIntegration, useOrganization } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { LoadError } from '../../components/load-error';
import { Loading } from '../../components/loading';
import { ScopeRequest } from '../../components/scope-request';
import { usePageTitle } from '../../components/use-page-title';
import { ConfigurationForm } from './configuration-form';
import { DeliveriesRegion } from './deliveries-region';
import { DispatchLog } from './dispatch-log';
import { EndpointHealth } from './endpoint-health';
import { ManagePermissionProvider } from './manage-permission';
import { PlacesPanel } from './places-panel';
import { type Section, SectionNav } from './section-nav';
import { SigningSecretPanel } from './signing-secret-panel';
import { StatusPanel } from './status-panel';
import { useLiveStream } from './use-live-stream';

// The integration's own screens (the ContentKit renderer) come after the page's first content.
const ComponentFrame = lazy(() =>
  import('../../contentkit/component-frame').then((m) => ({ default: m.ComponentFrame })),
);

/**
 * An installation: its status, the configuration screen (the generated form, then the
 * integration's components that are not blocks), its places, and its events and deliveries.
 */
export function InstallationScreen() {
  const { id = '' } = useParams();
  const installation = useInstallation(id);
  const organization = useOrganization(installation.data?.organization ?? '', installation.data !== undefined);
  const live = useLiveStream(id);
  const navigate = useNavigate();
  const data = installation.data;
  usePageTitle(
    data
      ? `${data.integrationTitle} in ${placeTitle(organization.data, data.target)}`
      : installation.error
        ? 'Installation'
        : undefined,
  );
  if (installation.isPending) return <Loading />;
  if (installation.error) return <LoadError error={installation.error} what="Installation" />;
  const page = installation.data;
  const title = placeTitle(organization.data, page.target);
  const where =
    page.target.type === 'organization' ? (
      <Link to={`/orgs/${encodeURIComponent(page.organization)}`}>{title}</Link>
    ) : (
      <>
        the {page.target.type} <Link to={`/${page.target.type}s/${encodeURIComponent(page.target.id)}`}>{title}</Link>{' '}
        of{' '}
        <Link to={`/orgs/${encodeURIComponent(page.organization)}`}>
          {organization.data?.title ?? page.organization}
        </Link>
      </>
    );
  const webhook = page.integration === 'webhook' && page.target.type !== 'organization';
  const delivers = webhook || page.endpoints.length > 0;
  // In-page sections, each with its own URL (#id): the logs come last, one press away from the top.
  const sections: Section[] = [
    { id: 'overview', title: 'Overview' },
    { id: 'settings', title: 'Settings' },
    ...(delivers
      ? [
          { id: 'signing-secret', title: 'Signing secret' },
          { id: 'deliveries', title: 'Deliveries' },
        ]
      : []),
    { id: 'events', title: 'Events' },
  ];
  return (
    <ManagePermissionProvider
      role={organization.data?.role}
      organizationTitle={organization.data?.title ?? page.organization}
    >
      <article>
        <header className="page-head">
          {page.integrationIcon ? <img className="icon large" src={page.integrationIcon} alt="" /> : null}
          <div className="grow">
            <h1>{page.integrationTitle}</h1>
            <p className="muted">
              Installed in {where}
              {page.parentId ? (
                <>
                  {' '}
                  · <Link to={`/installations/${encodeURIComponent(page.parentId)}`}>organization installation</Link>
                </>
              ) : null}{' '}
              · <Link to={`/integrations/${encodeURIComponent(page.integration)}`}>about the integration</Link>
            </p>
          </div>
        </header>
        <SectionNav sections={sections} ready={organization.data !== undefined || organization.isError} />
        <div id="overview" tabIndex={-1} className="page-section">
          <ScopeRequest
            installation={page}
            role={organization.data?.role}
            organizationTitle={organization.data?.title ?? page.organization}
            onUninstalled={() => navigate(`/orgs/${encodeURIComponent(page.organization)}`)}
          />
          <StatusPanel installation={page} role={organization.data?.role} />
          {delivers ? <EndpointHealth installation={page} /> : null}
        </div>
        <div id="settings" tabIndex={-1} className="page-section">
          <section aria-labelledby="configuration-heading">
            <h2 id="configuration-heading">Configuration</h2>
            <ConfigurationForm key={page.id} installation={page} />
            <ScreenComponents
              installationId={page.id}
              integration={page.integration}
              level={page.target.type === 'organization' ? 'account' : 'site'}
              paused={page.status === 'paused'}
            />
          </section>
          {page.target.type === 'organization' ? <PlacesPanel installation={page} /> : null}
        </div>
        {delivers ? (
          <>
            <div id="signing-secret" tabIndex={-1} className="page-section">
              <SigningSecretPanel installationId={page.id} />
            </div>
            <div id="deliveries" tabIndex={-1} className="page-section">
              <DeliveriesRegion installationId={page.id} live={live} />
            </div>
          </>
        ) : null}
        <div id="events" tabIndex={-1} className="page-section">
          <DispatchLog installationId={page.id} live={live} />
        </div>
      </article>
    </ManagePermissionProvider>
  );
}

/**
 * The integration's components that are not blocks: they belong to the configuration screen (a
 * GitBook-dialect configuration component, to the screens of its level only).
 */
function ScreenComponents({
  installationId,
  integration,
  level,
  paused,
}: {
  installationId: string;
  integration: string;
  level: 'account' | 'site';
  paused: boolean;
}) {
  const details = useIntegration(integration);
  const components =
    details.data?.components.filter(
      (component) =>
        !component.block && (component.configurationLevel === undefined || component.configurationLevel === level),
    ) ?? [];
  if (details.error) return <ErrorNote error={details.error} />;
  if (components.length === 0) return null;
  if (paused) return <p className="muted">The integration's screens are not shown while it is paused.</p>;
  return (
    <div className="stack">
      {components.map((component) => (
        <section key={component.id} aria-labelledby={`component-${component.id}`}>
          <h3 className="component-title" id={`component-${component.id}`}>
            {titleOf(component)}
          </h3>
          <Suspense fallback={<Loading />}>
            <ComponentFrame installationId={installationId} componentId={component.id} title={titleOf(component)} />
          </Suspense>
        </section>
      ))}
    </div>
  );
}

/** A component's title; one without its own (named by its id) reads as words: `webhook-configuration` → Webhook configuration. */
function titleOf(component: { id: string; title: string }): string {
  if (component.title !== component.id) return component.title;
  const words = component.id.replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The title of the place an installation is in (its id until the organization is read). */
function placeTitle(organization: OrganizationPage | undefined, target: { type: string; id: string }): string {
  if (target.type === 'organization') return organization?.title ?? target.id;
  const places = target.type === 'space' ? organization?.spaces : organization?.sites;
  return places?.find((place) => place.id === target.id)?.title ?? target.id;
}
