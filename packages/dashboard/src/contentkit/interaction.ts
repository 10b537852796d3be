import type { ContentKitAction } from '@portico/runtime/contentkit';

/** What a rendered tree can do: read and set input values (kept in the component's state), and press actions. */
export interface Interaction {
  value(key: string, initial: unknown): unknown;
  setValue(key: string, value: unknown): void;
  press(action: ContentKitAction): void;
  /** True while an action is on its way: controls wait. */
  busy: boolean;
}
