import type { ContentKitAction } from '@portico/runtime/contentkit';

/** What a rendered tree can do: read and set input values (kept in the component's state), and press actions. */
export interface Interaction {
  /** Unique to this rendered component: it scopes the names of radio groups. */
  id: string;
  /** The value of a state key, or `initial` when the state has none. */
  value(key: string, initial: unknown): unknown;
  /** The value of a state key as it is now in the browser (what `{ $state }` bindings read). */
  read(key: string): unknown;
  setValue(key: string, value: unknown): void;
  /** Sends an action; its `{ $state }` fields are read at that moment. */
  press(action: ContentKitAction): void;
  /** True while an action is on its way: controls wait. */
  busy: boolean;
}
