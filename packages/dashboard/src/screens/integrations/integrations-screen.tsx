import { Link, useSearchParams } from 'react-router';
import { useDirectory, useInstalledIntegrations } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { Loading } from '../../components/loading';
import { usePageTitle } from '../../components/use-page-title';

/**
 * What the signed-in person may install: public integrations, their organizations' private ones,
 * and an unlisted one only through its share link (`?share=TOKEN`).
 */
export function IntegrationsScreen() {
  const [search] = useSearchParams();
  const share = search.get('share') ?? undefined;
  const directory = useDirectory(share);
  usePageTitle('Integrations');
  const { installed } = useInstalledIntegrations();
  return (
    <section>
      <h1>Integrations</h1>
      {directory.isPending ? <Loading /> : null}
      {directory.error ? <ErrorNote error={directory.error} /> : null}
      {directory.data?.length === 0 ? <p className="muted">No integration is available to you yet.</p> : null}
      <ul className="cards" aria-label="Integrations you may install">
        {directory.data?.map((entry) => (
          <li key={entry.name} className="card">
            {entry.icon ? (
              <img className="icon" src={entry.icon} alt="" />
            ) : (
              <span className="icon letter" aria-hidden="true">
                {entry.title.charAt(0)}
              </span>
            )}
            <div>
              <h2>
                <Link
                  to={`/integrations/${encodeURIComponent(entry.name)}${share ? `?share=${encodeURIComponent(share)}` : ''}`}
                >
                  {entry.title}
                </Link>
              </h2>
              <p>{entry.description}</p>
              {(installed.get(entry.name) ?? []).map((place) => (
                <p key={place.installationId} className="installed-note">
                  Installed in {place.title} ·{' '}
                  <Link
                    to={`/installations/${encodeURIComponent(place.installationId)}`}
                    aria-label={`Open ${entry.title} in ${place.title}`}
                  >
                    Open
                  </Link>
                </p>
              ))}
              <ul className="chips" aria-label="Categories">
                {entry.categories.map((category) => (
                  <li key={category} className="chip">
                    {category}
                  </li>
                ))}
                {entry.visibility !== 'public' ? <li className="chip">{entry.visibility}</li> : null}
              </ul>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
