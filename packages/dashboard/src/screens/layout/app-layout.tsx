import { Button } from 'react-aria-components';
import { NavLink, Outlet, useLocation } from 'react-router';
import { ErrorNote } from '../../components/error-note';
import { ServerBanner } from '../../components/server-banner';
import { type Session, useSignOut } from '../../session/session';
import { OrganizationNav } from './organization-nav';
import { SessionEndedDialog } from './session-ended-dialog';

/** The frame of every signed-in page: the navigation, who is signed in, and Sign out. */
export function AppLayout({ session }: { session: Session }) {
  const signOut = useSignOut();
  // What the last action elsewhere did, when it moved the person here (Uninstall).
  const notice = (useLocation().state as { notice?: unknown } | null)?.notice;
  const who =
    session.principal.kind === 'admin' ? 'Operator' : (session.principal.name ?? session.principal.userId ?? 'user');
  return (
    <div className="app">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to="/" className="brand">
          Portico
        </NavLink>
        <nav aria-label="Main" className="main-nav">
          <NavLink to="/" end>
            Overview
          </NavLink>
          <NavLink to="/integrations">Integrations</NavLink>
        </nav>
        <div className="who">
          {/* A name, not a link: plain text after "Signed in as". */}
          <span className="signed-in-as">
            <span className="muted">Signed in as </span>
            <strong>{who}</strong>
          </span>
          <Button className="button quiet" onPress={() => signOut.mutate()} isPending={signOut.isPending}>
            Sign out
          </Button>
        </div>
      </header>
      <OrganizationNav />
      <SessionEndedDialog session={session} />
      {signOut.error ? <ErrorNote error={signOut.error} /> : null}
      <ServerBanner />
      <main className="content" id="main" tabIndex={-1}>
        {typeof notice === 'string' ? (
          <p role="status" className="note">
            {notice}
          </p>
        ) : null}
        <Outlet />
      </main>
    </div>
  );
}
