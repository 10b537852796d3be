/**
 * `{ $state: 'name' }` bindings (see @portico/runtime's ContentKit), resolved in the browser from
 * the component's state as it is now (the integration's last state and what was typed since), so
 * text bound to an input follows it without a round trip.
 */
import { type ContentKitAction, isStateBinding } from '@portico/runtime/contentkit';
import { createContext, useContext } from 'react';

export type ReadState = (key: string) => unknown;

export const StateContext = createContext<ReadState>(() => undefined);

/** The state reader of the tree being rendered. */
export function useReadState(): ReadState {
  return useContext(StateContext);
}

/** The value itself, or the state value a binding names. */
export function resolve(value: unknown, read: ReadState): unknown {
  return isStateBinding(value) ? read(value.$state) : value;
}

/** An action with its bound fields replaced by their values at the moment it is sent. */
export function resolveAction(action: ContentKitAction, read: ReadState): ContentKitAction {
  const out: ContentKitAction = { action: action.action };
  for (const [key, value] of Object.entries(action)) if (key !== 'action') out[key] = resolve(value, read);
  return out;
}

/** A bound value as text: strings as they are, nothing as nothing, other values as JSON. */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(', ');
  return JSON.stringify(value);
}
