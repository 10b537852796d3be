/** `createComponent()` (spec 2.4, 6.3): a UI component with state, actions and a render function. */
import type { ContentKitAction, ContentKitComplete, ContentKitRoot } from './contentkit.js';
import type { ContentKitContext, Context } from './types.js';

export type State = Record<string, unknown>;
export type Props = Record<string, unknown>;

/** What `action` and `render` receive: the component's props and its current state. */
export interface ComponentElement<P extends Props = Props, S extends State = State> {
  componentId: string;
  props: P;
  state: S;
  /** Where the component is rendered, when the platform says. */
  context?: ContentKitContext;
}

/** What an action answers: a new state (or `{}` to keep it), or the end of the interaction. */
export type ActionResult<S extends State = State> = { state?: S; type?: undefined } | ContentKitComplete;

export interface ComponentDefinition<P extends Props = Props, S extends State = State> {
  componentId: string;
  /** The state of a new instance of the component (default `{}`). */
  initialState?: (props: P) => S;
  /**
   * Handles a user interaction named by `action.action`; returns `{ state }` to change the state,
   * `{}` to keep it, or `{ type: 'complete', returnValue? }` to end the interaction (a modal closes).
   */
  action?: (
    element: ComponentElement<P, S>,
    action: ContentKitAction,
    context: Context,
  ) => Promise<ActionResult<S>> | ActionResult<S>;
  /** The UI as ContentKit; the state is in `element.state`. */
  render: (element: ComponentElement<P, S>, context: Context) => Promise<ContentKitRoot> | ContentKitRoot;
}

export interface Component<P extends Props = Props, S extends State = State> extends ComponentDefinition<P, S> {
  readonly kind: 'portico-component';
}

export function createComponent<P extends Props = Props, S extends State = State>(
  definition: ComponentDefinition<P, S>,
): Component<P, S> {
  if (typeof definition.componentId !== 'string' || definition.componentId.trim() === '') {
    throw new TypeError('createComponent: `componentId` must be a non-empty string');
  }
  if (typeof definition.render !== 'function') {
    throw new TypeError(`createComponent(${definition.componentId}): \`render\` must be a function`);
  }
  return { ...definition, kind: 'portico-component' };
}
