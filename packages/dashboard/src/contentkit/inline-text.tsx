import type { InlineContent } from '@portico/runtime/contentkit';
import type { ReactNode } from 'react';
import { asText, useReadState } from './state-bindings';

/** `text` and `link` elements, the strings inside them, and `{ $state }` bindings shown as text. */
export function InlineText({ children }: { children: InlineContent | InlineContent[] }): ReactNode {
  if (typeof children === 'string') return children;
  if (Array.isArray(children))
    return children.map((child, i) => (
      // biome-ignore lint/suspicious/noArrayIndexKey: inline text has no identity; each render replaces the tree
      <InlineText key={i}>{child}</InlineText>
    ));
  if (!('type' in children)) return <BoundText name={children.$state} />;
  const inner = <InlineText>{children.children}</InlineText>;
  if (children.type === 'link')
    return (
      <a href={children.target.url} target="_blank" rel="noopener noreferrer">
        {inner}
      </a>
    );
  switch (children.style) {
    case 'bold':
      return <strong>{inner}</strong>;
    case 'italic':
      return <em>{inner}</em>;
    case 'strikethrough':
      return <s>{inner}</s>;
    case 'code':
      return <code>{inner}</code>;
    default:
      return inner;
  }
}

function BoundText({ name }: { name: string }) {
  const read = useReadState();
  return asText(read(name));
}
