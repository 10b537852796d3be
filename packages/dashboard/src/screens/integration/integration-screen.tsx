import { useParams, useSearchParams } from 'react-router';
import { useIntegration } from '../../api/queries';
import { LoadError } from '../../components/load-error';
import { Loading } from '../../components/loading';
import { Markdown } from '../../components/markdown';
import { usePageTitle } from '../../components/use-page-title';
import { InstallPanel } from './install-panel';

/** An integration's page: what it is, what it asks for, and Install. */
export function IntegrationScreen() {
  const { name = '' } = useParams();
  const [search] = useSearchParams();
  const share = search.get('share') ?? undefined;
  const integration = useIntegration(name, share);
  usePageTitle(integration.data?.title ?? (integration.error ? 'Integration' : undefined));
  if (integration.isPending) return <Loading />;
  if (integration.error) return <LoadError error={integration.error} what="Integration" />;
  const page = integration.data;
  return (
    <article>
      <header className="page-head">
        {page.icon ? <img className="icon large" src={page.icon} alt="" /> : null}
        <div className="grow">
          <h1>{page.title}</h1>
          <p>{page.description}</p>
          <p className="muted">
            By {page.organizationTitle} · version {page.version} · {page.visibility}
          </p>
        </div>
      </header>
      <InstallPanel integration={page} share={share} />
      {page.summary ? (
        <section aria-labelledby="summary-heading">
          <h2 id="summary-heading">About</h2>
          <Markdown>{page.summary}</Markdown>
        </section>
      ) : null}
      {page.previewImages.length > 0 ? (
        <section aria-labelledby="previews-heading">
          <h2 id="previews-heading">Previews</h2>
          <div className="previews">
            {page.previewImages.map((url, i) => (
              <img key={url} src={url} alt={`Preview ${i + 1} of ${page.title}`} />
            ))}
          </div>
        </section>
      ) : null}
      <section aria-labelledby="scopes-heading">
        <h2 id="scopes-heading">What it may access</h2>
        {page.scopeGrants.length === 0 ? (
          <p className="muted">It asks for no scope: it receives no content or visitor events.</p>
        ) : (
          <ul>
            {page.scopeGrants.map((grant) => (
              <li key={grant.scope}>
                <code>{grant.scope}</code>: {grant.grants}
              </li>
            ))}
          </ul>
        )}
      </section>
      {page.categories?.length ? (
        <section aria-labelledby="categories-heading">
          <h2 id="categories-heading">Categories</h2>
          <ul className="chips">
            {page.categories.map((category) => (
              <li key={category} className="chip">
                {category}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {page.externalLinks?.length ? (
        <section aria-labelledby="links-heading">
          <h2 id="links-heading">Links</h2>
          <ul>
            {page.externalLinks.map((link) => (
              <li key={link.url}>
                <a href={link.url} target="_blank" rel="noopener noreferrer">
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {page.blocks?.length ? (
        <section aria-labelledby="blocks-heading">
          <h2 id="blocks-heading">Blocks</h2>
          <ul>
            {page.blocks.map((block) => (
              <li key={block.id}>
                <strong>{block.title}</strong> — {block.description}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </article>
  );
}
