/** One ContentKit element (spec 2.4) as HTML: every element type of @portico/runtime's ContentKit. */
import type { ContentKitElement } from '@portico/runtime/contentkit';
import { Button } from 'react-aria-components';
import { Markdown } from '../components/markdown';
import { SelectView, SwitchView, TextInputView } from './contentkit-inputs';
import { InlineText } from './inline-text';
import type { Interaction } from './interaction';

export function ContentKitChildren({
  elements,
  interaction,
}: {
  elements: ContentKitElement[];
  interaction: Interaction;
}) {
  return elements.map((element, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: ContentKit elements have no identity; each render replaces the tree
    <ContentKitElementView key={i} element={element} interaction={interaction} />
  ));
}

export function ContentKitElementView({
  element,
  interaction,
}: {
  element: ContentKitElement;
  interaction: Interaction;
}) {
  switch (element.type) {
    case 'text':
      return (
        <p className="ck-text">
          <InlineText>{element}</InlineText>
        </p>
      );
    case 'markdown':
      return <Markdown>{element.content}</Markdown>;
    case 'button':
      return (
        <Button
          className={`button ${element.style ?? 'secondary'}`}
          isDisabled={element.disabled === true || interaction.busy}
          onPress={() => interaction.press(element.onPress)}
        >
          {element.label}
        </Button>
      );
    case 'hstack':
    case 'vstack':
      return (
        <div className={`ck-${element.type}${element.align ? ` ck-align-${element.align}` : ''}`}>
          <ContentKitChildren elements={element.children} interaction={interaction} />
        </div>
      );
    case 'box':
      return (
        <div className="ck-box" style={element.grow ? { flexGrow: element.grow } : undefined}>
          <ContentKitChildren elements={element.children} interaction={interaction} />
        </div>
      );
    case 'divider':
      return <hr className={`ck-divider ${element.size ?? 'small'}`} />;
    case 'textinput':
      return <TextInputView element={element} interaction={interaction} />;
    case 'select':
      return <SelectView element={element} interaction={interaction} />;
    case 'switch':
      return <SwitchView element={element} interaction={interaction} />;
    case 'link':
      return (
        <a href={element.target.url} target="_blank" rel="noopener noreferrer">
          <InlineText>{element.children}</InlineText>
        </a>
      );
    case 'image':
      return (
        <img
          className="ck-media"
          src={element.source.url}
          alt={element.alt ?? ''}
          style={{ aspectRatio: element.aspectRatio }}
          loading="lazy"
          referrerPolicy="no-referrer"
        />
      );
    case 'webframe':
      // Sandboxed: its scripts run, but in an opaque origin (no cookies, no access to this page).
      return (
        <iframe
          className="ck-media"
          src={element.source.url}
          title={`Embedded page from ${hostOf(element.source.url)}`}
          sandbox="allow-scripts allow-popups"
          referrerPolicy="no-referrer"
          style={{ aspectRatio: element.aspectRatio ?? 16 / 9 }}
        />
      );
    case 'codeblock':
      return <CodeBlock content={element.content} syntax={element.syntax} lineNumbers={element.lineNumbers === true} />;
  }
}

function CodeBlock({
  content,
  syntax,
  lineNumbers,
}: {
  content: string;
  syntax?: string | undefined;
  lineNumbers: boolean;
}) {
  const lines = content.split('\n');
  return (
    <pre className={lineNumbers ? 'ck-code numbered' : 'ck-code'} data-syntax={syntax}>
      {lineNumbers ? (
        <span className="line-numbers" aria-hidden="true">
          {lines.map((_, i) => `${i + 1}\n`).join('')}
        </span>
      ) : null}
      <code>{content}</code>
    </pre>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
