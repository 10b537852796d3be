/**
 * A rendered component and its round trips: the first render, then one render per action with the
 * state the integration answered last (and the values typed into its inputs since), so state is
 * kept between presses. `{ $state }` bindings read that state in the browser, with no round trip.
 * The tree is checked before it is shown. An action that answers `{ type: 'complete' }` ends the
 * interaction: its modal closes and the component starts again from its first render.
 */
import {
  type ContentKitAction,
  type ContentKitRoot,
  isContentKitComplete,
  validateContentKit,
} from '@portico/runtime/contentkit';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, call } from '../api/client';
import { keys } from '../api/queries';
import { initialValues } from './initial-values';
import { resolveAction } from './state-bindings';

type State = Record<string, unknown>;
type Rendered = { element: unknown; state: State } | { type: 'complete'; returnValue?: unknown };
type Tree = { element: unknown; state: State };

export interface ComponentView {
  root?: ContentKitRoot;
  /** Why there is nothing to show: the server's refusal, or what is wrong with the tree. */
  error?: unknown;
  loading: boolean;
  busy: boolean;
  /** How many interactions ended with `complete` (each one is announced). */
  completions: number;
  id: string;
  value(key: string, initial: unknown): unknown;
  read(key: string): unknown;
  setValue(key: string, value: unknown): void;
  press(action: ContentKitAction): void;
}

export class InvalidTreeError extends Error {}

export function useComponent(installationId: string, componentId: string, initialProps: State = {}): ComponentView {
  const id = useId();
  // A block's props, as `@editor.node.updateProps` left them: the next render gets them.
  const [props, setProps] = useState<State>(initialProps);
  const render = (body: { props: State; state?: State; action?: ContentKitAction }) =>
    call(
      api.POST('/v1/installations/{id}/components/{componentId}/render', {
        params: { path: { id: installationId, componentId } },
        body,
      }),
    ) as Promise<Rendered>;
  const firstKey = ['render', installationId, componentId, props];
  const first = useQuery({
    queryKey: firstKey,
    queryFn: () => render({ props }),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  const client = useQueryClient();
  const [latest, setLatest] = useState<Tree | undefined>();
  const [edits, setEdits] = useState<State>({});
  const [completions, setCompletions] = useState(0);
  const current = latest ?? (first.data && !isContentKitComplete(first.data) ? first.data : undefined);

  let root: ContentKitRoot | undefined;
  let error: unknown;
  if (current !== undefined) {
    const problems = validateContentKit(current.element);
    if (problems.length === 0) root = current.element as ContentKitRoot;
    else
      error = new InvalidTreeError(
        `The component "${componentId}" rendered an invalid tree: ${problems
          .map((p) => `${p.path || '(root)'}: ${p.message}`)
          .join('; ')}`,
      );
  }
  // What the inputs show before anyone types is state too: bindings and the next action see it.
  const state: State = { ...(root ? initialValues(root) : {}), ...(current?.state ?? {}), ...edits };
  const read = (key: string) => state[key];

  const action = useMutation({
    mutationFn: (pressed: ContentKitAction) => render({ props, state, action: pressed }),
    onSuccess(rendered) {
      setEdits({});
      if (isContentKitComplete(rendered)) {
        setLatest(undefined);
        setCompletions((n) => n + 1);
        void client.invalidateQueries({ queryKey: firstKey });
      } else setLatest(rendered);
      // An action may have changed the installation (its configuration, so its status).
      void client.invalidateQueries({ queryKey: keys.installation(installationId) });
    },
  });
  if (error === undefined) error = action.error ?? first.error ?? undefined;

  return {
    ...(root ? { root } : {}),
    error,
    loading: first.isPending || (latest === undefined && first.isFetching && completions > 0),
    busy: action.isPending,
    completions,
    id,
    value: (key, initial) => (key in state ? state[key] : initial),
    read,
    setValue: (key, value) => setEdits((before) => ({ ...before, [key]: value })),
    press: (pressed) => {
      const resolved = resolveAction(pressed, read);
      const builtin = builtinAction(resolved);
      if (builtin === undefined) return action.mutate(resolved);
      if (builtin.kind === 'open') window.open(builtin.url, '_blank', 'noopener,noreferrer');
      else {
        // The block renders again with its new props (its first render, for them).
        setLatest(undefined);
        setEdits({});
        setProps((before) => ({ ...before, ...builtin.props }));
      }
    },
  };
}

/**
 * The actions GitBook's editor handles itself rather than sending to the integration:
 * `@ui.url.open` opens its `url` (http or https) in a new tab; `@editor.node.updateProps` sets
 * the block's props, and the block renders again with them. Anything else goes to the integration.
 */
export function builtinAction(
  action: ContentKitAction,
): { kind: 'open'; url: string } | { kind: 'props'; props: State } | undefined {
  if (action.action === '@ui.url.open' && typeof action.url === 'string') {
    try {
      const url = new URL(action.url);
      if (url.protocol === 'http:' || url.protocol === 'https:') return { kind: 'open', url: url.toString() };
    } catch {}
    return undefined;
  }
  const props = action.props;
  if (
    action.action === '@editor.node.updateProps' &&
    typeof props === 'object' &&
    props !== null &&
    !Array.isArray(props)
  )
    return { kind: 'props', props: props as State };
  return undefined;
}
