import type { ContentKitElement, ContentKitRoot } from '@portico/runtime/contentkit';

/** The `initialValue` of every input of a tree, by state key: what the inputs show before anyone types. */
export function initialValues(root: ContentKitRoot): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const visit = (element: ContentKitElement): void => {
    switch (element.type) {
      case 'textinput':
      case 'select':
      case 'switch':
        if (element.initialValue !== undefined) values[element.state] = element.initialValue;
        break;
      case 'input':
        visit(element.element);
        break;
      case 'card':
        for (const child of element.children ?? []) visit(child);
        break;
      case 'stepper':
        for (const step of element.children) for (const child of step.children) visit(child);
        break;
      case 'hstack':
      case 'vstack':
      case 'box':
        for (const child of element.children) visit(child);
        break;
      default:
        break;
    }
  };
  for (const child of root.children) visit(child);
  return values;
}
