/**
 * ContentKit's element trees, as types (spec 2.4): what integrations render. A tree's root is a
 * `block` (a component in a page), a `configuration` (in the installation's settings) or a
 * `modal`. `contentkit.ts` checks trees against these shapes.
 */

/**
 * A value read from the component's state in the browser, without a round trip: `{ $state: 'name' }`
 * stands for the current value of the state key `name` (what an input bound to `name` holds now).
 * Allowed in inline text, in an action's fields (read when the action is sent), in a button's
 * `disabled`, in a stepper's `activeStep` and in a webframe's `data`.
 */
export interface StateBinding {
  $state: string;
}
export type Bindable<T> = T | StateBinding;

/** What a button press or a value change sends to the component's `action`: `action.action` names it. */
export interface ContentKitAction {
  action: string;
  [field: string]: unknown;
}

/** What a component's `ui_render` may answer instead of a tree: the interaction is over (a modal closes). */
export interface ContentKitComplete {
  type: 'complete';
  returnValue?: unknown;
}

/** Inline content: strings, `text` and `link` elements, and state bindings shown as text. */
export type InlineContent = string | TextElement | LinkElement | StateBinding;

export interface TextElement {
  type: 'text';
  children: string | InlineContent[];
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
  disabled?: Bindable<boolean>;
  /** A short help text shown when the button is hovered or focused. */
  tooltip?: string;
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
/** A framed group: a title, an icon, buttons beside the title, the whole card pressable when `onPress` is set. */
export interface CardElement {
  type: 'card';
  title?: string;
  hint?: string | InlineContent[];
  /** An icon's name, or an image. */
  icon?: string | ImageElement;
  onPress?: ContentKitAction;
  buttons?: ButtonElement[];
  /** Missing means none. */
  children?: ContentKitElement[];
}
/** A labelled field: the label names its control, the hint describes it. */
export interface InputElement {
  type: 'input';
  /** May be empty: the control stands alone (it is then named by its state key). */
  label: string;
  hint?: string | InlineContent[];
  /** A control, or a button in its place (GitBook's inputs hold buttons so). */
  element: InputControlElement | ButtonElement;
}
/** A short help text. */
export interface HintElement {
  type: 'hint';
  children: string | InlineContent[];
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
/** One choice of a group: the radios with the same `state` set that key to their `value`. */
export interface RadioElement {
  type: 'radio';
  state: string;
  value: string | number | boolean;
  label?: string;
  disabled?: boolean;
}
/**
 * A checkbox. With a `value`, the checkboxes of one `state` key make a list of the checked values;
 * without, the key is true or false.
 */
export interface CheckboxElement {
  type: 'checkbox';
  state: string;
  value?: string | number | boolean;
  label?: string;
  disabled?: boolean;
}
export type InputControlElement = TextInputElement | SelectElement | SwitchElement | RadioElement | CheckboxElement;
/** Steps of which one shows at a time: `activeStep` names it by `id` (the first when missing). */
export interface StepperElement {
  type: 'stepper';
  activeStep?: Bindable<string>;
  children: StepElement[];
}
export interface StepElement {
  type: 'step';
  id: string;
  title: string;
  children: ContentKitElement[];
}
export interface LinkElement {
  type: 'link';
  target: { url: string };
  children: InlineContent[];
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
  /**
   * Sent to the frame as a message `{ state: data }` when it loads and whenever a bound value
   * changes; values are JSON, or state bindings resolved in the browser.
   */
  data?: Record<string, unknown>;
}
export interface CodeBlockElement {
  type: 'codeblock';
  content: string;
  syntax?: string;
  lineNumbers?: boolean;
  /** Makes the code editable: the edited text is kept under this state key. */
  state?: string;
  /** Run when the edited code changes (after a pause in typing), with the state. */
  onContentChange?: ContentKitAction;
  /** Elements shown under the code. */
  footer?: ContentKitElement[];
}

export type ContentKitElement =
  | TextElement
  | MarkdownElement
  | ButtonElement
  | StackElement
  | BoxElement
  | DividerElement
  | CardElement
  | InputElement
  | HintElement
  | TextInputElement
  | SelectElement
  | SwitchElement
  | RadioElement
  | CheckboxElement
  | StepperElement
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
  subtitle?: string | InlineContent[];
  size?: 'medium' | 'xlarge' | 'fullscreen';
  children: ContentKitElement[];
  /** The button that submits the modal, shown in its footer. */
  submit?: ButtonElement;
  onClose?: ContentKitAction;
}
export type ContentKitRoot = BlockRoot | ConfigurationRoot | ModalRoot;

export interface ContentKitError {
  /** Where the bad node is, e.g. `children[1].onPress.action`. */
  path: string;
  message: string;
}
