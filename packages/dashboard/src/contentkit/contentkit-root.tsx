import type { ContentKitRoot } from '@portico/runtime/contentkit';
import { Button } from 'react-aria-components';
import { ContentKitChildren } from './contentkit-element';
import type { Interaction } from './interaction';

/** A tree's root: a block in a page, a configuration screen's part, or a modal with its Close. */
export function ContentKitRootView({ root, interaction }: { root: ContentKitRoot; interaction: Interaction }) {
  switch (root.type) {
    case 'block':
      return (
        <section className="ck-root ck-block" aria-label={root.title}>
          {root.title ? <h3 className="ck-title">{root.title}</h3> : null}
          <ContentKitChildren elements={root.children} interaction={interaction} />
        </section>
      );
    case 'configuration':
      return (
        <div className="ck-root ck-configuration">
          <ContentKitChildren elements={root.children} interaction={interaction} />
        </div>
      );
    case 'modal':
      return (
        <section className="ck-root ck-modal" role="dialog" aria-label={root.title ?? 'Dialog'}>
          {root.title ? <h3 className="ck-title">{root.title}</h3> : null}
          <ContentKitChildren elements={root.children} interaction={interaction} />
          {root.onClose ? (
            <div className="row">
              <Button
                className="button"
                isDisabled={interaction.busy}
                onPress={() => root.onClose && interaction.press(root.onClose)}
              >
                Close
              </Button>
            </div>
          ) : null}
        </section>
      );
  }
}
