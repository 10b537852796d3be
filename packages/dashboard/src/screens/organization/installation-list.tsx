import { Link } from 'react-router';
import type { InstallationPage } from '../../api/queries';
import { countOf } from '../../components/count-of';
import { ScopeRequest } from '../../components/scope-request';
import { StatusText } from '../../components/status-text';

/** Installations as links to their pages, with their status. */
export function InstallationList({
  installations,
  empty,
  role,
  organizationTitle,
}: {
  installations: InstallationPage[];
  empty: string;
  /** The signed-in person's role, when the list is an organization's: a pending permission request shows there. */
  role?: 'admin' | 'member' | undefined;
  organizationTitle?: string;
}) {
  if (installations.length === 0) return <p className="muted">{empty}</p>;
  return (
    <ul className="cards">
      {installations.map((installation) => (
        <li key={installation.id} className="card">
          {installation.integrationIcon ? (
            <img className="icon" src={installation.integrationIcon} alt="" />
          ) : (
            <span className="icon letter" aria-hidden="true">
              {installation.integrationTitle.charAt(0)}
            </span>
          )}
          <div>
            <h3>
              <Link to={`/installations/${encodeURIComponent(installation.id)}`}>{installation.integrationTitle}</Link>
            </h3>
            <StatusText status={installation.status} label={installation.integrationTitle} />
            {installation.status === 'pending' && installation.errors.length > 0 ? (
              <p className="muted">{countOf(installation.errors.length, 'setting')} missing</p>
            ) : null}
            {organizationTitle !== undefined ? (
              <ScopeRequest compact installation={installation} role={role} organizationTitle={organizationTitle} />
            ) : null}
          </div>
        </li>
      ))}
    </ul>
  );
}
