import type { CardElement } from '@portico/runtime/contentkit';
import { useId } from 'react';
import { Button } from 'react-aria-components';
import { ButtonView } from './contentkit-button';
import { ContentKitChildren } from './contentkit-element';
import { InlineText } from './inline-text';
import type { Interaction } from './interaction';

/**
 * A card: a region named by its title, with its icon, its buttons beside the title and its hint
 * under it. A pressable card (`onPress`) presses through its title, a button, so the card's own
 * buttons and inputs stay separate controls.
 */
export function CardView({ element, interaction }: { element: CardElement; interaction: Interaction }) {
  const titleId = useId();
  const { title, onPress } = element;
  let heading = null;
  if (title !== undefined && onPress) {
    heading = (
      <Button id={titleId} className="ck-card-title plain link" onPress={() => interaction.press(onPress)}>
        {title}
      </Button>
    );
  } else if (title !== undefined) {
    heading = (
      <h4 id={titleId} className="ck-card-title">
        {title}
      </h4>
    );
  } else if (onPress) {
    heading = (
      <Button className="button secondary" onPress={() => interaction.press(onPress)}>
        Open
      </Button>
    );
  }
  return (
    <section className="ck-card" aria-labelledby={title !== undefined ? titleId : undefined}>
      <div className="ck-card-header">
        <CardIcon icon={element.icon} />
        <div className="ck-card-heading">
          {heading}
          {element.hint !== undefined ? (
            <p className="ck-hint">
              <InlineText>{element.hint}</InlineText>
            </p>
          ) : null}
        </div>
        {element.buttons?.length ? (
          <div className="ck-card-buttons">
            {element.buttons.map((button, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: ContentKit elements have no identity; each render replaces the tree
              <ButtonView key={i} element={button} interaction={interaction} />
            ))}
          </div>
        ) : null}
      </div>
      {element.children?.length ? (
        <div className="ck-card-body">
          <ContentKitChildren elements={element.children} interaction={interaction} />
        </div>
      ) : null}
    </section>
  );
}

/** An image icon is shown; a named icon (from a set the dashboard does not ship) is its first letter, decorative. */
function CardIcon({ icon }: { icon: CardElement['icon'] }) {
  if (icon === undefined) return null;
  if (typeof icon === 'string') {
    return (
      <span className="ck-card-icon" aria-hidden="true" data-icon={icon}>
        {icon.slice(0, 1).toUpperCase()}
      </span>
    );
  }
  return (
    <img
      className="ck-card-icon"
      src={icon.source.url}
      alt={icon.alt ?? ''}
      referrerPolicy="no-referrer"
      loading="lazy"
    />
  );
}
