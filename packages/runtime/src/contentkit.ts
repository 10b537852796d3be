/**
 * ContentKit: the element trees integrations render (spec 2.4). A tree's root is a `block`
 * (a component in a page), a `configuration` (in the installation's settings) or a `modal`.
 * `validateContentKit` is what the platform runs on every rendered tree.
 */

/** What a button press or a value change sends to the component's `action`: `action.action` names it. */
export interface ContentKitAction {
  action: string;
  [field: string]: unknown;
}

export interface TextElement {
  type: 'text';
  children: string | (string | TextElement)[];
  style?: 'bold' | 'italic' | 'strikethrough' | 'code';
}
export interface MarkdownElement {
  type: 'markdown';
  content: string;
}
export interface ButtonElement {
  type: 'button';
  label: string;
  onPress: ContentKitAction;
  style?: 'primary' | 'secondary' | 'danger';
  icon?: string;
  disabled?: boolean;
}
export interface StackElement {
  type: 'hstack' | 'vstack';
  children: ContentKitElement[];
  align?: 'start' | 'center' | 'end';
}
export interface BoxElement {
  type: 'box';
  children: ContentKitElement[];
  grow?: number;
}
export interface DividerElement {
  type: 'divider';
  size?: 'small' | 'medium' | 'large';
}
export interface TextInputElement {
  type: 'textinput';
  /** The state key that holds the value. */
  state: string;
  initialValue?: string;
  placeholder?: string;
  multiline?: boolean;
}
export interface SelectElement {
  type: 'select';
  state: string;
  options: { id: string; label: string }[];
  initialValue?: string | string[];
  placeholder?: string;
  multiple?: boolean;
}
export interface SwitchElement {
  type: 'switch';
  state: string;
  initialValue?: boolean;
  onValueChange?: ContentKitAction;
}
export interface LinkElement {
  type: 'link';
  target: { url: string };
  children: (string | TextElement)[];
}
export interface ImageElement {
  type: 'image';
  source: { url: string };
  aspectRatio: number;
  alt?: string;
}
export interface WebframeElement {
  type: 'webframe';
  source: { url: string };
  aspectRatio?: number;
}
export interface CodeBlockElement {
  type: 'codeblock';
  content: string;
  syntax?: string;
  lineNumbers?: boolean;
}

export type ContentKitElement =
  | TextElement
  | MarkdownElement
  | ButtonElement
  | StackElement
  | BoxElement
  | DividerElement
  | TextInputElement
  | SelectElement
  | SwitchElement
  | LinkElement
  | ImageElement
  | WebframeElement
  | CodeBlockElement;

export interface BlockRoot {
  type: 'block';
  title?: string;
  children: ContentKitElement[];
}
export interface ConfigurationRoot {
  type: 'configuration';
  children: ContentKitElement[];
}
export interface ModalRoot {
  type: 'modal';
  title?: string;
  children: ContentKitElement[];
  onClose?: ContentKitAction;
}
export type ContentKitRoot = BlockRoot | ConfigurationRoot | ModalRoot;

export interface ContentKitError {
  /** Where the bad node is, e.g. `children[1].onPress.action`. */
  path: string;
  message: string;
}

/** Trees larger or deeper than this are refused: a component is UI, not data. */
export const CONTENTKIT_LIMITS = { maxNodes: 2000, maxDepth: 32 } as const;

type Check = (value: unknown, path: string, errors: ContentKitError[]) => void;
interface NodeSpec {
  required: Record<string, Check>;
  optional?: Record<string, Check>;
}

const ROOT_TYPES = ['block', 'configuration', 'modal'] as const;

const str: Check = (value, path, errors) => {
  if (typeof value !== 'string') errors.push({ path, message: `must be a string, not ${describe(value)}` });
};
const nonEmpty: Check = (value, path, errors) => {
  if (typeof value !== 'string' || value.trim() === '') errors.push({ path, message: 'must be a non-empty string' });
};
const bool: Check = (value, path, errors) => {
  if (typeof value !== 'boolean') errors.push({ path, message: `must be true or false, not ${describe(value)}` });
};
const positive: Check = (value, path, errors) => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    errors.push({ path, message: `must be a positive number, not ${describe(value)}` });
  }
};
const oneOf =
  (...options: string[]): Check =>
  (value, path, errors) => {
    if (typeof value !== 'string' || !options.includes(value)) {
      errors.push({ path, message: `must be one of ${options.join(', ')}, not ${describe(value)}` });
    }
  };
const action: Check = (value, path, errors) => {
  if (!isObject(value))
    return void errors.push({
      path,
      message: `must be an action object like { action: "name" }, not ${describe(value)}`,
    });
  nonEmpty(value.action, `${path}.action`, errors);
};
const httpUrl: Check = (value, path, errors) => {
  if (!isObject(value)) return void errors.push({ path, message: 'must be an object like { url: "https://…" }' });
  const url = value.url;
  let ok = false;
  try {
    ok = typeof url === 'string' && ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {}
  if (!ok) errors.push({ path: `${path}.url`, message: `must be an http(s) URL, not ${describe(url)}` });
};
const options: Check = (value, path, errors) => {
  if (!Array.isArray(value)) return void errors.push({ path, message: 'must be a list of { id, label }' });
  for (const [i, option] of value.entries()) {
    if (!isObject(option)) {
      errors.push({ path: `${path}[${i}]`, message: 'must be { id, label }' });
      continue;
    }
    nonEmpty(option.id, `${path}[${i}].id`, errors);
    str(option.label, `${path}[${i}].label`, errors);
  }
};
const stringOrStrings: Check = (value, path, errors) => {
  if (typeof value === 'string') return;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    errors.push({ path, message: 'must be a string or a list of strings' });
  }
};

/** Marks a field that holds child elements; checked by the walker, not here. */
const CHILDREN: Check = () => {};
/** Text children: strings or `text` elements. */
const INLINE: Check = () => {};

const SPECS: Record<string, NodeSpec> = {
  block: { required: { children: CHILDREN }, optional: { title: str } },
  configuration: { required: { children: CHILDREN } },
  modal: { required: { children: CHILDREN }, optional: { title: str, onClose: action } },
  text: { required: { children: INLINE }, optional: { style: oneOf('bold', 'italic', 'strikethrough', 'code') } },
  markdown: { required: { content: str } },
  button: {
    required: { label: nonEmpty, onPress: action },
    optional: { style: oneOf('primary', 'secondary', 'danger'), icon: str, disabled: bool },
  },
  hstack: { required: { children: CHILDREN }, optional: { align: oneOf('start', 'center', 'end') } },
  vstack: { required: { children: CHILDREN }, optional: { align: oneOf('start', 'center', 'end') } },
  box: { required: { children: CHILDREN }, optional: { grow: positive } },
  divider: { required: {}, optional: { size: oneOf('small', 'medium', 'large') } },
  textinput: { required: { state: nonEmpty }, optional: { initialValue: str, placeholder: str, multiline: bool } },
  select: {
    required: { state: nonEmpty, options },
    optional: { initialValue: stringOrStrings, placeholder: str, multiple: bool },
  },
  switch: { required: { state: nonEmpty }, optional: { initialValue: bool, onValueChange: action } },
  link: { required: { target: httpUrl, children: INLINE } },
  image: { required: { source: httpUrl, aspectRatio: positive }, optional: { alt: str } },
  webframe: { required: { source: httpUrl }, optional: { aspectRatio: positive } },
  codeblock: { required: { content: str }, optional: { syntax: str, lineNumbers: bool } },
};

/**
 * Checks a rendered tree: a known root, known element types with their required fields of the
 * right types, no unknown fields, http(s) URLs only, and bounded size and depth. Answers every
 * problem with the path of the bad node; an empty list means the tree is valid.
 */
export function validateContentKit(tree: unknown): ContentKitError[] {
  const errors: ContentKitError[] = [];
  if (!isObject(tree) || typeof tree.type !== 'string' || !(ROOT_TYPES as readonly string[]).includes(tree.type)) {
    return [
      {
        path: '',
        message: `the root must be an element of type ${ROOT_TYPES.join(', ')}, not ${isObject(tree) ? `type ${describe(tree.type)}` : describe(tree)}`,
      },
    ];
  }
  let nodes = 0;
  const visit = (node: unknown, path: string, depth: number, allowed: 'root' | 'element' | 'inline'): void => {
    if (++nodes > CONTENTKIT_LIMITS.maxNodes) {
      if (nodes === CONTENTKIT_LIMITS.maxNodes + 1) {
        errors.push({ path, message: `the tree has more than ${CONTENTKIT_LIMITS.maxNodes} elements` });
      }
      return;
    }
    if (depth > CONTENTKIT_LIMITS.maxDepth) {
      errors.push({ path, message: `the tree is nested deeper than ${CONTENTKIT_LIMITS.maxDepth} levels` });
      return;
    }
    if (allowed === 'inline' && typeof node === 'string') return;
    if (!isObject(node) || typeof node.type !== 'string') {
      errors.push({ path, message: `must be an element ({ type: … }), not ${describe(node)}` });
      return;
    }
    const type = node.type;
    const spec = SPECS[type];
    const here = path === '' ? 'type' : `${path}.type`;
    if (spec === undefined) {
      errors.push({ path: here, message: `unknown element type ${describe(type)}` });
      return;
    }
    if (allowed !== 'root' && (ROOT_TYPES as readonly string[]).includes(type)) {
      errors.push({ path: here, message: `a ${type} can only be the root of a tree` });
      return;
    }
    if (allowed === 'inline' && type !== 'text') {
      errors.push({ path: here, message: `only strings and text elements may appear here, not ${type}` });
      return;
    }
    const at = (key: string) => (path === '' ? key : `${path}.${key}`);
    for (const [key, check] of Object.entries(spec.required)) {
      if (!(key in node)) errors.push({ path: at(key), message: `a ${type} needs \`${key}\`` });
      else check(node[key], at(key), errors);
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type' || key in spec.required) continue;
      const check = spec.optional?.[key];
      if (check === undefined) errors.push({ path: at(key), message: `unknown field \`${key}\` on a ${type}` });
      else if (value !== undefined) check(value, at(key), errors);
    }
    const inline = spec.required.children === INLINE;
    if ('children' in node && (spec.required.children === CHILDREN || inline)) {
      const children = node.children;
      if (inline && typeof children === 'string') return;
      if (!Array.isArray(children)) {
        errors.push({ path: at('children'), message: `must be a list of elements, not ${describe(children)}` });
        return;
      }
      for (const [i, child] of children.entries()) {
        visit(child, `${at('children')}[${i}]`, depth + 1, inline ? 'inline' : 'element');
      }
    }
  };
  visit(tree, '', 0, 'root');
  return errors;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(value.length > 30 ? `${value.slice(0, 30)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
