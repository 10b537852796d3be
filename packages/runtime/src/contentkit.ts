/**
 * Checking ContentKit trees (spec 2.4): `validateContentKit` is what the platform runs on every
 * rendered tree. The element types are in `contentkit-elements.ts`, exported from here too.
 */
import type { ContentKitComplete, ContentKitError, StateBinding } from './contentkit-elements.js';

export * from './contentkit-elements.js';

/** Trees larger or deeper than this are refused: a component is UI, not data. */
export const CONTENTKIT_LIMITS = { maxNodes: 2000, maxDepth: 32 } as const;

/** Where a node may stand: the root, any element, inline text, or only the listed types. */
type Accepts = 'root' | 'element' | 'inline' | readonly string[];
/** Visits a nested node one level deeper. */
type Walk = (node: unknown, path: string, accepts: Accepts) => void;
type Check = (value: unknown, path: string, errors: ContentKitError[], walk: Walk) => void;
interface NodeSpec {
  required: Record<string, Check>;
  optional?: Record<string, Check>;
}

const ROOT_TYPES = ['block', 'configuration', 'modal'] as const;
/** Elements that only stand inside a given parent. */
const PLACED: Record<string, string> = { step: 'stepper' };
const INPUT_CONTROLS = ['textinput', 'select', 'switch', 'radio', 'checkbox'] as const;

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
const scalar: Check = (value, path, errors) => {
  const ok =
    typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
  if (!ok) errors.push({ path, message: `must be a string, a number or true/false, not ${describe(value)}` });
};
const oneOf =
  (...options: string[]): Check =>
  (value, path, errors) => {
    if (typeof value !== 'string' || !options.includes(value)) {
      errors.push({ path, message: `must be one of ${options.join(', ')}, not ${describe(value)}` });
    }
  };

/** Is this a `{ $state }` binding (well formed or not)? */
export function isStateBinding(value: unknown): value is StateBinding {
  return isObject(value) && '$state' in value;
}
const binding: Check = (value, path, errors) => {
  if (!isObject(value)) return;
  const extra = Object.keys(value).filter((key) => key !== '$state');
  if (typeof value.$state !== 'string' || value.$state.trim() === '') {
    errors.push({
      path: `${path}.$state`,
      message: `a state binding names a state key: { $state: "name" }, not ${describe(value.$state)}`,
    });
  } else if (extra.length > 0) {
    errors.push({
      path,
      message: `a state binding has only \`$state\`; remove ${extra.map((k) => `\`${k}\``).join(', ')}`,
    });
  }
};
/** The value, or a `{ $state }` binding read in the browser. */
const bindable =
  (check: Check): Check =>
  (value, path, errors, walk) =>
    isStateBinding(value) ? binding(value, path, errors, walk) : check(value, path, errors, walk);

const action: Check = (value, path, errors, walk) => {
  if (!isObject(value))
    return void errors.push({
      path,
      message: `must be an action object like { action: "name" }, not ${describe(value)}`,
    });
  nonEmpty(value.action, `${path}.action`, errors, walk);
  for (const [key, field] of Object.entries(value)) {
    if (key !== 'action' && isStateBinding(field)) binding(field, `${path}.${key}`, errors, walk);
  }
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
const options: Check = (value, path, errors, walk) => {
  if (!Array.isArray(value)) return void errors.push({ path, message: 'must be a list of { id, label }' });
  for (const [i, option] of value.entries()) {
    if (!isObject(option)) {
      errors.push({ path: `${path}[${i}]`, message: 'must be { id, label }' });
      continue;
    }
    nonEmpty(option.id, `${path}[${i}].id`, errors, walk);
    str(option.label, `${path}[${i}].label`, errors, walk);
  }
};
const stringOrStrings: Check = (value, path, errors) => {
  if (typeof value === 'string') return;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    errors.push({ path, message: 'must be a string or a list of strings' });
  }
};
const frameData: Check = (value, path, errors, walk) => {
  if (!isObject(value)) {
    return void errors.push({ path, message: `must be an object of values for the frame, not ${describe(value)}` });
  }
  for (const [key, field] of Object.entries(value)) {
    const at = `${path}.${key}`;
    if (isStateBinding(field)) binding(field, at, errors, walk);
    else if (!isJson(field, 0)) errors.push({ path: at, message: 'must be JSON (or a { $state } binding)' });
  }
};

/** Child elements: a list, each walked as `accepts` allows. */
const elements =
  (accepts: Accepts = 'element'): Check =>
  (value, path, errors, walk) => {
    if (!Array.isArray(value)) {
      return void errors.push({ path, message: `must be a list of elements, not ${describe(value)}` });
    }
    for (const [i, child] of value.entries()) walk(child, `${path}[${i}]`, accepts);
  };
/** One child element of the listed types. */
const element =
  (accepts: readonly string[]): Check =>
  (value, path, _errors, walk) =>
    walk(value, path, accepts);
/** Text: a string, or a list of strings, `text` and `link` elements and state bindings. */
const inline: Check = (value, path, errors, walk) => {
  if (typeof value === 'string') return;
  elements('inline')(value, path, errors, walk);
};
const icon: Check = (value, path, errors, walk) => {
  if (typeof value === 'string') return nonEmpty(value, path, errors, walk);
  walk(value, path, ['image']);
};

const SPECS: Record<string, NodeSpec> = {
  block: { required: { children: elements() }, optional: { title: str } },
  configuration: { required: { children: elements() } },
  modal: {
    required: { children: elements() },
    optional: {
      title: str,
      subtitle: inline,
      size: oneOf('medium', 'xlarge', 'fullscreen'),
      submit: element(['button']),
      onClose: action,
    },
  },
  text: { required: { children: inline }, optional: { style: oneOf('bold', 'italic', 'strikethrough', 'code') } },
  markdown: { required: { content: str } },
  button: {
    required: { label: nonEmpty, onPress: action },
    optional: { style: oneOf('primary', 'secondary', 'danger'), icon: str, disabled: bindable(bool), tooltip: str },
  },
  hstack: { required: { children: elements() }, optional: { align: oneOf('start', 'center', 'end') } },
  vstack: { required: { children: elements() }, optional: { align: oneOf('start', 'center', 'end') } },
  box: { required: { children: elements() }, optional: { grow: positive } },
  divider: { required: {}, optional: { size: oneOf('small', 'medium', 'large') } },
  card: {
    required: {},
    optional: {
      title: str,
      hint: inline,
      icon,
      onPress: action,
      buttons: elements(['button']),
      children: elements(),
    },
  },
  // An empty label is GitBook's way to show a control alone; a button may stand in for a control.
  input: { required: { label: str, element: element([...INPUT_CONTROLS, 'button']) }, optional: { hint: inline } },
  hint: { required: { children: inline } },
  textinput: { required: { state: nonEmpty }, optional: { initialValue: str, placeholder: str, multiline: bool } },
  select: {
    required: { state: nonEmpty, options },
    optional: { initialValue: stringOrStrings, placeholder: str, multiple: bool },
  },
  switch: { required: { state: nonEmpty }, optional: { initialValue: bool, onValueChange: action } },
  radio: { required: { state: nonEmpty, value: scalar }, optional: { label: str, disabled: bool } },
  checkbox: { required: { state: nonEmpty }, optional: { value: scalar, label: str, disabled: bool } },
  stepper: { required: { children: elements(['step']) }, optional: { activeStep: bindable(nonEmpty) } },
  step: { required: { id: nonEmpty, title: nonEmpty, children: elements() } },
  link: { required: { target: httpUrl, children: inline } },
  image: { required: { source: httpUrl, aspectRatio: positive }, optional: { alt: str } },
  webframe: { required: { source: httpUrl }, optional: { aspectRatio: positive, data: frameData } },
  codeblock: {
    required: { content: str },
    // Editable code (GitBook's codeblock): the edited text under `state`, `onContentChange` run with it.
    optional: { syntax: str, lineNumbers: bool, state: nonEmpty, onContentChange: action, footer: elements() },
  },
};

/**
 * Checks a rendered tree: a known root, known element types with their required fields of the
 * right types, no unknown fields, elements only where they may stand (a step in a stepper, a
 * control in an input), http(s) URLs only, well-formed `{ $state }` bindings, and bounded size
 * and depth. Answers every problem with the path of the bad node and what to change; an empty
 * list means the tree is valid.
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
  const visit = (node: unknown, path: string, depth: number, accepts: Accepts): void => {
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
    if (accepts === 'inline' && typeof node === 'string') return;
    if (accepts === 'inline' && isStateBinding(node)) {
      binding(node, path, errors, () => {});
      return;
    }
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
    if (accepts !== 'root' && (ROOT_TYPES as readonly string[]).includes(type)) {
      errors.push({ path: here, message: `a ${type} can only be the root of a tree` });
      return;
    }
    if (accepts === 'inline' && type !== 'text' && type !== 'link') {
      errors.push({
        path: here,
        message: `only strings, text and link elements and { $state } bindings may appear here, not ${type}`,
      });
      return;
    }
    if (Array.isArray(accepts) && !accepts.includes(type)) {
      errors.push({ path: here, message: `only ${accepts.join(' or ')} elements may appear here, not ${type}` });
      return;
    }
    const parent = PLACED[type];
    if (parent !== undefined && !Array.isArray(accepts)) {
      errors.push({ path: here, message: `a ${type} can only be a child of a ${parent}` });
      return;
    }
    const walk: Walk = (child, at, childAccepts) => visit(child, at, depth + 1, childAccepts);
    const at = (key: string) => (path === '' ? key : `${path}.${key}`);
    for (const [key, check] of Object.entries(spec.required)) {
      if (!(key in node)) errors.push({ path: at(key), message: `a ${type} needs \`${key}\`` });
      else check(node[key], at(key), errors, walk);
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type' || key in spec.required) continue;
      const check = spec.optional?.[key];
      if (check === undefined) errors.push({ path: at(key), message: `unknown field \`${key}\` on a ${type}` });
      else if (value !== undefined) check(value, at(key), errors, walk);
    }
  };
  visit(tree, '', 0, 'root');
  return errors;
}

/**
 * Whether a `ui_render` answer is `{ type: 'complete', returnValue? }` (the interaction is over)
 * rather than `{ element, state }`, whose tree `validateContentKit` checks.
 */
export function isContentKitComplete(value: unknown): value is ContentKitComplete {
  return isObject(value) && value.type === 'complete';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isJson(value: unknown, depth: number): boolean {
  if (depth > CONTENTKIT_LIMITS.maxDepth) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJson(v, depth + 1));
  if (isObject(value)) return Object.values(value).every((v) => isJson(v, depth + 1));
  return false;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(value.length > 30 ? `${value.slice(0, 30)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
