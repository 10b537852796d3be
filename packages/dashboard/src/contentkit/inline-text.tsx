import type { TextElement } from '@portico/runtime/contentkit';
import type { ReactNode } from 'react';

type Inline = string | TextElement;

/** `text` elements and the strings inside them and inside links. */
export function InlineText({ children }: { children: Inline | Inline[] }): ReactNode {
  if (typeof children === 'string') return children;
  if (Array.isArray(children))
    return children.map((child, i) => (
      // biome-ignore lint/suspicious/noArrayIndexKey: inline text has no identity; each render replaces the tree
      <InlineText key={i}>{child}</InlineText>
    ));
  const inner = <InlineText>{children.children}</InlineText>;
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
