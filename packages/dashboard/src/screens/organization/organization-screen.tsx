import { Link, useParams } from 'react-router';
import { useOrganization } from '../../api/queries';
import { LoadError } from '../../components/load-error';
import { Loading } from '../../components/loading';
import { usePageTitle } from '../../components/use-page-title';
import { useSession } from '../../session/session';
import { AddMemberForm, CreatePlaceForm } from '../operator/organization-forms';
import { AlertUrlPanel } from './alert-url-panel';
import { InstallationList } from './installation-list';

/** One organization: its spaces, sites, members, organization-level installations and alert URL. */
export function OrganizationScreen() {
  const { org = '' } = useParams();
  const page = useOrganization(org);
  const operator = useSession().data?.principal.kind === 'admin';
  usePageTitle(page.data?.title ?? (page.error ? 'Organization' : undefined));
  if (page.isPending) return <Loading />;
  if (page.error) return <LoadError error={page.error} what="Organization" />;
  const { data } = page;
  return (
    <section>
      <h1>{data.title}</h1>
      <p className="muted">
        {operator
          ? 'You are the operator: you manage every organization, and add its spaces, sites and members here.'
          : `Your role: ${data.role === 'admin' ? 'admin' : 'member (organization admins install, configure, pause and uninstall)'}`}
      </p>
      <h2>Installations</h2>
      <InstallationList
        installations={data.installations}
        empty="No integration is installed in this organization."
        role={data.role}
        organizationTitle={data.title}
      />
      <p>
        <Link to="/integrations">Install an integration</Link>
      </p>
      <AlertUrlPanel org={data.id} isAdmin={data.role === 'admin'} />
      <div className="columns">
        <section aria-labelledby="spaces-heading">
          <h2 id="spaces-heading">Spaces</h2>
          <PlaceLinks kind="spaces" places={data.spaces} />
          {operator ? <CreatePlaceForm org={data.id} kind="spaces" /> : null}
        </section>
        <section aria-labelledby="sites-heading">
          <h2 id="sites-heading">Sites</h2>
          <PlaceLinks kind="sites" places={data.sites} />
          {operator ? <CreatePlaceForm org={data.id} kind="sites" /> : null}
        </section>
        <section aria-labelledby="members-heading">
          <h2 id="members-heading">Members</h2>
          <ul>
            {data.members.map((member) => (
              <li key={member.id}>
                {member.name} <span className="muted">({member.role})</span>
              </li>
            ))}
          </ul>
          {operator ? <AddMemberForm org={data.id} /> : null}
        </section>
      </div>
    </section>
  );
}

function PlaceLinks({ kind, places }: { kind: 'spaces' | 'sites'; places: { id: string; title: string }[] }) {
  if (places.length === 0) return <p className="muted">None yet.</p>;
  return (
    <ul>
      {places.map((place) => (
        <li key={place.id}>
          <Link to={`/${kind}/${encodeURIComponent(place.id)}`}>{place.title}</Link>
        </li>
      ))}
    </ul>
  );
}
