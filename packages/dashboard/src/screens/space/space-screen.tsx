import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useParams } from 'react-router';
import { usePlace } from '../../api/queries';
import { LoadError } from '../../components/load-error';
import { Loading } from '../../components/loading';
import { usePageTitle } from '../../components/use-page-title';
import { ComponentFrame } from '../../contentkit/component-frame';
import { InstallationList } from '../organization/installation-list';
import { OrganizationLink } from '../organization/organization-link';
import { AddToPlace } from './add-to-place';
import { type InsertedBlock, InsertMenu } from './insert-menu';

/** A space: its installations, and a page preview where Insert adds the blocks of the integrations active here. */
export function SpaceScreen() {
  const { id = '' } = useParams();
  const space = usePlace('space', id);
  usePageTitle(space.data?.title ?? (space.error ? 'Space' : undefined));
  const [inserted, setInserted] = useState<InsertedBlock[]>([]);
  if (space.isPending) return <Loading />;
  if (space.error) return <LoadError error={space.error} what="Space" />;
  const page = space.data;
  return (
    <article>
      <h1>{page.title}</h1>
      <p className="muted">
        A space of <OrganizationLink id={page.organization} />
      </p>
      <section aria-labelledby="preview-heading">
        <div className="row">
          <h2 id="preview-heading" className="grow">
            Page preview
          </h2>
          <InsertMenu
            installations={page.installations}
            onInsert={(block) => setInserted((before) => [...before, block])}
          />
        </div>
        <section className="page-preview" aria-label="Page preview">
          <p>
            <strong>Getting started</strong>
          </p>
          <p className="muted">
            A page of this space. Insert a block to see it here, as readers will. This is a preview: what you insert
            here is not saved, and goes when you leave or reload the page.
          </p>
          {inserted.map((block) => (
            <div key={block.key} className="stack inserted-block">
              <ComponentFrame installationId={block.installationId} componentId={block.blockId} title={block.title} />
              <div>
                <Button
                  className="button quiet"
                  aria-label={`Remove ${block.title}`}
                  onPress={() => setInserted((before) => before.filter((b) => b.key !== block.key))}
                >
                  Remove
                </Button>
              </div>
            </div>
          ))}
        </section>
      </section>
      <h2>Installations</h2>
      <InstallationList
        installations={page.installations}
        empty="No integration is installed in this space yet: add one below."
      />
      <AddToPlace kind="space" place={page.id} title={page.title} org={page.organization} />
    </article>
  );
}
