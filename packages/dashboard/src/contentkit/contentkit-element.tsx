/** One ContentKit element (spec 2.4) as HTML: every element type of @portico/runtime's ContentKit. */
import type { CodeBlockElement, ContentKitElement } from '@portico/runtime/contentkit';
import { Markdown } from '../components/markdown';
import { ButtonView } from './contentkit-button';
import { CardView } from './contentkit-card';
import { InputView } from './contentkit-input';
import { CheckboxView, RadioView, SelectView, SwitchView, TextInputView } from './contentkit-inputs';
import { StepperView } from './contentkit-stepper';
import { WebframeView } from './contentkit-webframe';
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
      return <ButtonView element={element} interaction={interaction} />;
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
    case 'card':
      return <CardView element={element} interaction={interaction} />;
    case 'input':
      return <InputView element={element} interaction={interaction} />;
    case 'hint':
      return (
        <p className="ck-hint">
          <InlineText>{element.children}</InlineText>
        </p>
      );
    case 'radio':
      return <RadioView element={element} interaction={interaction} />;
    case 'checkbox':
      return <CheckboxView element={element} interaction={interaction} />;
    case 'stepper':
      return <StepperView element={element} interaction={interaction} />;
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
      return <WebframeView element={element} interaction={interaction} />;
    case 'codeblock':
      return (
        <div className="ck-codeblock">
          {element.state !== undefined ? (
            <EditableCode element={element} stateKey={element.state} interaction={interaction} />
          ) : (
            <CodeBlock content={element.content} syntax={element.syntax} lineNumbers={element.lineNumbers === true} />
          )}
          {element.footer ? (
            <div className="row ck-code-footer">
              <ContentKitChildren elements={element.footer} interaction={interaction} />
            </div>
          ) : null}
        </div>
      );
  }
}

/**
 * Code the person edits (a codeblock with `state`): the text is kept under that state key, and
 * `onContentChange` is sent once the editing pauses (the field loses focus), with the state.
 */
function EditableCode({
  element,
  stateKey,
  interaction,
}: {
  element: CodeBlockElement;
  stateKey: string;
  interaction: Interaction;
}) {
  const value = interaction.value(stateKey, element.content);
  const text = typeof value === 'string' ? value : String(value ?? '');
  return (
    <textarea
      className="input ck-code"
      aria-label={element.syntax ? `Code (${element.syntax})` : 'Code'}
      data-syntax={element.syntax}
      spellCheck={false}
      rows={Math.min(20, Math.max(3, text.split('\n').length))}
      value={text}
      onChange={(event) => interaction.setValue(stateKey, event.target.value)}
      onBlur={() => {
        if (element.onContentChange && text !== element.content) interaction.press(element.onContentChange);
      }}
    />
  );
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
