import { Link } from 'react-router';
import { useOrganizations } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { Loading } from '../../components/loading';
import { usePageTitle } from '../../components/use-page-title';
import { useSession } from '../../session/session';
import { OperatorConsole } from '../operator/operator-console';

/** The operator's console for the admin token; for a person, the organizations they belong to. */
export function HomeScreen() {
  const operator = useSession().data?.principal.kind === 'admin';
  usePageTitle(operator ? 'Operator console' : 'Home');
  return operator ? <OperatorConsole /> : <Organizations />;
}

function Organizations() {
  const organizations = useOrganizations();
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
