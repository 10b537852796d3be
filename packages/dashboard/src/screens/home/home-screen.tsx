import { Link } from 'react-router';
import { useOrganizations } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { Loading } from '../../components/loading';
import { usePageTitle } from '../../components/use-page-title';

/** The organizations the signed-in person belongs to (the operator: all of them). */
export function HomeScreen() {
  const organizations = useOrganizations();
  usePageTitle('Home');
  return (
    <section>
      <h1>Overview</h1>
      {organizations.isPending ? <Loading /> : null}
      {organizations.error ? <ErrorNote error={organizations.error} /> : null}
      {organizations.data?.length === 0 ? (
        <p className="note">
          You belong to no organization yet. The operator adds people to organizations; then its spaces, sites and
          installations appear here.
        </p>
      ) : null}
      <ul className="cards">
        {organizations.data?.map((org) => (
          <li key={org.id} className="card">
            <div>
              <h2>
                <Link to={`/orgs/${encodeURIComponent(org.id)}`}>{org.title}</Link>
              </h2>
              <p className="muted">
                {org.id} · your role: {org.role}
              </p>
            </div>
          </li>
        ))}
      </ul>
      <p>
        <Link to="/integrations">Browse the integrations</Link> to install one.
      </p>
    </section>
  );
}
