import { Link } from 'react-router';
import { useScopeRequests } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';

/**
 * Integrations' requests for more permissions than their organizations granted (DESIGN.md
 * "Granted scopes", `GET /v1/scope-requests`): per organization installation, what it was granted
 * and what the newer version asks for, with a link to the installation, where an admin (or the
 * operator) accepts or uninstalls. What was granted keeps working meanwhile.
 */
export function PermissionRequestsPanel() {
  const requests = useScopeRequests();
  return (
    <section aria-labelledby="permission-requests-heading" className="panel">
      <h2 id="permission-requests-heading" tabIndex={-1}>
        Permission requests
      </h2>
      <p className="muted">
        A new version of an integration that asks for more than an organization granted runs with what was granted until
        an admin of that organization accepts.
      </p>
      {requests.error ? <ErrorNote error={requests.error} /> : null}
      {requests.data?.length === 0 ? <p className="muted">No integration asks for new permissions.</p> : null}
      <ul className="cards single">
        {requests.data?.map((request) => (
          <li key={request.installationId} className="card">
            <div className="stack grow">
              <p>
                <strong>{request.integration}</strong> (version {request.version}) in {request.organization} ·{' '}
                <Link to={`/installations/${encodeURIComponent(request.installationId)}`}>
                  Review
                  <span className="visually-hidden">
                    {' '}
                    the request of {request.integration} in {request.organization}
                  </span>
                </Link>
              </p>
              <p className="break">
                Asks for new permissions: <code>{request.requested.join(', ')}</code>
              </p>
              <p className="muted break">
                Granted: {request.granted.length > 0 ? request.granted.join(', ') : 'nothing'}
              </p>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
