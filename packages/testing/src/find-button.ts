import type { ButtonElement } from '@portico/runtime';

/** The first button in a ContentKit tree whose label is `label`. */
export function findButton(tree: unknown, label: string): ButtonElement | undefined {
  if (Array.isArray(tree)) {
    for (const item of tree) {
      const found = findButton(item, label);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof tree !== 'object' || tree === null) return undefined;
  const node = tree as Record<string, unknown>;
  if (node.type === 'button' && node.label === label) return node as unknown as ButtonElement;
  return findButton(node.children, label);
}

/** Every button label in a tree, for error messages. */
export function buttonLabels(tree: unknown): string[] {
  if (Array.isArray(tree)) return tree.flatMap(buttonLabels);
  if (typeof tree !== 'object' || tree === null) return [];
  const node = tree as Record<string, unknown>;
  return [...(node.type === 'button' ? [String(node.label)] : []), ...buttonLabels(node.children)];
}
