/**
 * A rendered component and its round trips: the first render, then one render per action with the
 * state the integration answered last (and the values typed into its inputs since), so state is
 * kept between presses. The tree is checked before it is shown.
 */
import { type ContentKitAction, type ContentKitRoot, validateContentKit } from '@portico/runtime/contentkit';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../api/client';
import { keys } from '../api/queries';

type State = Record<string, unknown>;
interface Rendered {
  element: unknown;
  state: State;
}

export interface ComponentView {
  root?: ContentKitRoot;
  /** Why there is nothing to show: the server's refusal, or what is wrong with the tree. */
  error?: unknown;
  loading: boolean;
  busy: boolean;
  value(key: string, initial: unknown): unknown;
  setValue(key: string, value: unknown): void;
  press(action: ContentKitAction): void;
}

export class InvalidTreeError extends Error {}

export function useComponent(installationId: string, componentId: string, props: State = {}): ComponentView {
  const render = (body: { props: State; state?: State; action?: ContentKitAction }) =>
    call(
      api.POST('/v1/installations/{id}/components/{componentId}/render', {
        params: { path: { id: installationId, componentId } },
        body,
      }),
    ) as Promise<Rendered>;
  const first = useQuery({
    queryKey: ['render', installationId, componentId, props],
    queryFn: () => render({ props }),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  const client = useQueryClient();
  const [latest, setLatest] = useState<Rendered | undefined>();
  const [edits, setEdits] = useState<State>({});
  const current = latest ?? first.data;
  const state = { ...(current?.state ?? {}), ...edits };
  const action = useMutation({
    mutationFn: (pressed: ContentKitAction) => render({ props, state, action: pressed }),
    onSuccess(rendered) {
      setLatest(rendered);
      setEdits({});
      // An action may have changed the installation (its configuration, so its status).
      void client.invalidateQueries({ queryKey: keys.installation(installationId) });
    },
  });

  let root: ContentKitRoot | undefined;
  let error: unknown = action.error ?? first.error ?? undefined;
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
  return {
    ...(root ? { root } : {}),
    error,
    loading: first.isPending,
    busy: action.isPending,
    value: (key, initial) => (key in state ? state[key] : initial),
    setValue: (key, value) => setEdits((before) => ({ ...before, [key]: value })),
    press: (pressed) => action.mutate(pressed),
  };
}
