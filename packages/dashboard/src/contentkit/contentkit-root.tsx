import type { ContentKitRoot } from '@portico/runtime/contentkit';
import { useId } from 'react';
import { Button } from 'react-aria-components';
import { ButtonView } from './contentkit-button';
import { ContentKitChildren } from './contentkit-element';
import { InlineText } from './inline-text';
import type { Interaction } from './interaction';
import { StateContext } from './state-bindings';
import './contentkit.css';

/**
 * A tree's root: a block in a page, a configuration screen's part, or a modal (its size, its
 * subtitle describing it, its submit button and its Close). `{ $state }` bindings inside read the
 * interaction's state.
 */
export function ContentKitRootView({ root, interaction }: { root: ContentKitRoot; interaction: Interaction }) {
  return (
    <StateContext.Provider value={interaction.read}>
      <RootView root={root} interaction={interaction} />
    </StateContext.Provider>
  );
}

function RootView({ root, interaction }: { root: ContentKitRoot; interaction: Interaction }) {
  const subtitleId = useId();
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
        <section
          className={`ck-root ck-modal ck-modal-${root.size ?? 'medium'}`}
          role="dialog"
          aria-label={root.title ?? 'Dialog'}
          aria-describedby={root.subtitle !== undefined ? subtitleId : undefined}
        >
          {root.title ? <h3 className="ck-title">{root.title}</h3> : null}
          {root.subtitle !== undefined ? (
            <p id={subtitleId} className="ck-subtitle">
              <InlineText>{root.subtitle}</InlineText>
            </p>
          ) : null}
          <ContentKitChildren elements={root.children} interaction={interaction} />
          {root.onClose || root.submit ? (
            <div className="row ck-modal-footer">
              {root.onClose ? (
                <Button
                  className="button"
                  isDisabled={interaction.busy}
                  onPress={() => root.onClose && interaction.press(root.onClose)}
                >
                  Close
                </Button>
              ) : null}
              {root.submit ? (
                <ButtonView element={{ style: 'primary', ...root.submit }} interaction={interaction} />
              ) : null}
            </div>
          ) : null}
        </section>
      );
  }
}
