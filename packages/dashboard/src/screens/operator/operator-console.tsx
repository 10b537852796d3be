import { EndpointsPanel } from './endpoints-panel';
import { OrganizationsPanel } from './organizations-panel';
import { PermissionRequestsPanel } from './permission-requests-panel';
import { UsersPanel } from './users-panel';

const SECTIONS = [
  { id: 'organizations-heading', title: 'Organizations' },
  { id: 'users-heading', title: 'Users' },
  { id: 'endpoints-heading', title: 'Endpoints' },
  { id: 'permission-requests-heading', title: 'Permission requests' },
];

/**
 * The operator's overview (the admin token): organizations (their spaces, sites and members on
 * their pages), users and their sign-in links, the endpoints in trouble across organizations, and
 * permission requests, each a section one press away.
 */
export function OperatorConsole() {
  return (
    <section>
      <h1>Operator console</h1>
      <p className="muted">
        Signed in with the admin token: you see every organization, as an admin of each. Usually your docs product syncs
        organizations, spaces, sites and users in through the API; here you add them by hand.
      </p>
      <nav aria-label="Console sections" className="section-nav">
        <ul>
          {SECTIONS.map((section) => (
            <li key={section.id}>
              <a href={`#${section.id}`}>{section.title}</a>
            </li>
          ))}
        </ul>
      </nav>
      <OrganizationsPanel />
      <UsersPanel />
      <EndpointsPanel />
      <PermissionRequestsPanel />
    </section>
  );
}
