import { describe, expect, it } from 'vitest';
import { type ContentKitRoot, isContentKitComplete, validateContentKit } from './contentkit.js';

const everyElement: ContentKitRoot = {
  type: 'block',
  title: 'All elements',
  children: [
    { type: 'text', children: ['plain ', { type: 'text', style: 'bold', children: 'bold' }] },
    { type: 'markdown', content: '**hi**' },
    { type: 'button', label: 'Go', onPress: { action: 'go', extra: 1 }, style: 'primary', disabled: false },
    { type: 'hstack', align: 'center', children: [{ type: 'divider', size: 'small' }] },
    { type: 'vstack', children: [{ type: 'box', grow: 1, children: [] }] },
    { type: 'textinput', state: 'name', placeholder: 'Name', multiline: false, initialValue: '' },
    { type: 'select', state: 'color', options: [{ id: 'r', label: 'Red' }], initialValue: 'r', multiple: false },
    { type: 'switch', state: 'on', initialValue: true, onValueChange: { action: 'toggle' } },
    { type: 'link', target: { url: 'https://example.com' }, children: ['a link'] },
    { type: 'image', source: { url: 'https://example.com/a.png' }, aspectRatio: 2, alt: 'A' },
    { type: 'webframe', source: { url: 'https://example.com/embed' }, aspectRatio: 1.5 },
    { type: 'codeblock', content: 'let x = 1;', syntax: 'javascript', lineNumbers: true },
  ],
};

// The elements and properties that integrations written for GitBook's runtime use.
const breadth: ContentKitRoot = {
  type: 'configuration',
  children: [
    {
      type: 'card',
      title: 'Account',
      hint: ['Signed in as ', { $state: 'name' }],
      icon: 'github',
      onPress: { action: 'open' },
      buttons: [{ type: 'button', label: 'Edit', tooltip: 'Edit the account', onPress: { action: 'edit' } }],
      children: [
        {
          type: 'input',
          label: 'Name',
          hint: 'As people will see it',
          element: { type: 'textinput', state: 'name', placeholder: 'Ada' },
        },
        { type: 'input', label: 'Plan', element: { type: 'radio', state: 'plan', value: 'free', label: 'Free' } },
        { type: 'input', label: 'Notify', element: { type: 'checkbox', state: 'notify' } },
        { type: 'checkbox', state: 'topics', value: 'news', label: 'News' },
        { type: 'radio', state: 'plan', value: 2, disabled: true },
        { type: 'hint', children: ['Hello, ', { $state: 'name' }, { type: 'text', style: 'bold', children: '!' }] },
      ],
    },
    { type: 'card', icon: { type: 'image', source: { url: 'https://example.com/i.png' }, aspectRatio: 1 } },
    {
      type: 'stepper',
      activeStep: { $state: 'step' },
      children: [
        { type: 'step', id: 'one', title: 'Connect', children: [{ type: 'text', children: 'first' }] },
        { type: 'step', id: 'two', title: 'Choose', children: [] },
      ],
    },
    {
      type: 'webframe',
      source: { url: 'https://example.com/embed' },
      data: { name: { $state: 'name' }, fixed: { nested: [1, 'a', null, true] } },
    },
    {
      type: 'button',
      label: 'Save',
      disabled: { $state: 'saving' },
      onPress: { action: 'save', name: { $state: 'name' }, plain: 3 },
    },
  ],
};

describe('validateContentKit', () => {
  it('accepts every element type and the three roots', () => {
    expect(validateContentKit(everyElement)).toEqual([]);
    expect(validateContentKit({ type: 'configuration', children: [{ type: 'markdown', content: 'x' }] })).toEqual([]);
    expect(validateContentKit({ type: 'modal', title: 'T', children: [], onClose: { action: 'close' } })).toEqual([]);
  });

  it("accepts GitBook's ContentKit as their integrations use it", () => {
    const tree = {
      type: 'block',
      children: [
        {
          type: 'codeblock',
          content: 'graph TD; A-->B',
          syntax: 'mermaid',
          state: 'content',
          onContentChange: { action: '@editor.node.updateProps', props: { content: { $state: 'content' } } },
          footer: [{ type: 'button', label: 'Preview', onPress: { action: 'preview' } }],
        },
        {
          type: 'text',
          children: [
            'Read ',
            { type: 'link', target: { url: 'https://example.com/docs' }, children: ['the docs'] },
            '.',
          ],
        },
        { type: 'input', label: '', element: { type: 'textinput', state: 'query' } },
        {
          type: 'input',
          label: 'Account',
          element: {
            type: 'button',
            label: 'Connect',
            onPress: { action: '@ui.url.open', url: 'https://example.com' },
          },
        },
      ],
    };
    expect(validateContentKit(tree)).toEqual([]);
  });

  it('accepts cards, inputs, hints, radios, checkboxes, steppers, { $state } bindings and webframe data', () => {
    expect(validateContentKit(breadth)).toEqual([]);
  });

  it('accepts a modal with a size, a subtitle and a submit button', () => {
    const modal = {
      type: 'modal',
      title: 'Review',
      subtitle: ['For ', { $state: 'name' }],
      size: 'xlarge',
      submit: { type: 'button', label: 'Confirm', onPress: { action: 'confirm' } },
      children: [],
    };
    expect(validateContentKit(modal)).toEqual([]);
    expect(validateContentKit({ ...modal, subtitle: 'plain', size: 'fullscreen' })).toEqual([]);
  });

  it('tells a complete answer from a tree', () => {
    expect(isContentKitComplete({ type: 'complete', returnValue: { id: 1 } })).toBe(true);
    expect(isContentKitComplete({ type: 'complete' })).toBe(true);
    expect(isContentKitComplete({ type: 'block', children: [] })).toBe(false);
    expect(isContentKitComplete(null)).toBe(false);
  });

  const cases: [string, unknown, { path: string; message: RegExp }][] = [
    [
      'a non-root at the top',
      { type: 'text', children: 'x' },
      { path: '', message: /root must be an element of type block, configuration, modal, not type "text"/ },
    ],
    ['nothing at all', null, { path: '', message: /not null/ }],
    [
      'a root inside a tree',
      { type: 'block', children: [{ type: 'modal', children: [] }] },
      { path: 'children[0].type', message: /a modal can only be the root/ },
    ],
    [
      'an unknown type',
      { type: 'block', children: [{ type: 'carousel' }] },
      { path: 'children[0].type', message: /unknown element type "carousel"/ },
    ],
    [
      'a button without onPress',
      { type: 'block', children: [{ type: 'button', label: 'x' }] },
      { path: 'children[0].onPress', message: /a button needs `onPress`/ },
    ],
    [
      'an empty label',
      { type: 'block', children: [{ type: 'button', label: ' ', onPress: { action: 'a' } }] },
      { path: 'children[0].label', message: /non-empty string/ },
    ],
    [
      'an unknown field',
      { type: 'block', children: [{ type: 'divider', colour: 'red' }] },
      { path: 'children[0].colour', message: /unknown field `colour` on a divider/ },
    ],
    [
      'a javascript: link',
      { type: 'block', children: [{ type: 'link', target: { url: 'javascript:alert(1)' }, children: ['x'] }] },
      { path: 'children[0].target.url', message: /http\(s\) URL/ },
    ],
    [
      'a bad enum value',
      { type: 'block', children: [{ type: 'hstack', align: 'middle', children: [] }] },
      { path: 'children[0].align', message: /one of start, center, end, not "middle"/ },
    ],
    [
      'a button inside text',
      {
        type: 'block',
        children: [{ type: 'text', children: [{ type: 'button', label: 'x', onPress: { action: 'a' } }] }],
      },
      {
        path: 'children[0].children[0].type',
        message: /only strings, text and link elements and \{ \$state \} bindings may appear here, not button/,
      },
    ],
    [
      'children that are not a list',
      { type: 'block', children: 'hello' },
      { path: 'children', message: /must be a list of elements/ },
    ],
    [
      'a bad select option',
      { type: 'block', children: [{ type: 'select', state: 's', options: [{ label: 'x' }] }] },
      { path: 'children[0].options[0].id', message: /non-empty string/ },
    ],
    [
      'a negative aspect ratio',
      { type: 'block', children: [{ type: 'image', source: { url: 'https://x.test/a.png' }, aspectRatio: -1 }] },
      { path: 'children[0].aspectRatio', message: /positive number/ },
    ],
    [
      'a step outside a stepper',
      { type: 'block', children: [{ type: 'step', id: 'a', title: 'A', children: [] }] },
      { path: 'children[0].type', message: /a step can only be a child of a stepper/ },
    ],
    [
      'a stepper holding something other than steps',
      { type: 'block', children: [{ type: 'stepper', children: [{ type: 'divider' }] }] },
      { path: 'children[0].children[0].type', message: /only step elements may appear here, not divider/ },
    ],
    [
      'a step without a title',
      { type: 'block', children: [{ type: 'stepper', children: [{ type: 'step', id: 'a', children: [] }] }] },
      { path: 'children[0].children[0].title', message: /a step needs `title`/ },
    ],
    [
      'an input around something that is not a control',
      { type: 'block', children: [{ type: 'input', label: 'Name', element: { type: 'markdown', content: 'x' } }] },
      {
        path: 'children[0].element.type',
        message:
          /only textinput or select or switch or radio or checkbox or button elements may appear here, not markdown/,
      },
    ],
    [
      'an input without a label',
      { type: 'block', children: [{ type: 'input', element: { type: 'textinput', state: 's' } }] },
      { path: 'children[0].label', message: /an? input needs `label`/ },
    ],
    [
      'a bad control inside an input',
      { type: 'block', children: [{ type: 'input', label: 'Name', element: { type: 'textinput' } }] },
      { path: 'children[0].element.state', message: /a textinput needs `state`/ },
    ],
    [
      'a card button that is not a button',
      {
        type: 'block',
        children: [{ type: 'card', buttons: [{ type: 'link', target: { url: 'https://x.test' }, children: [] }] }],
      },
      { path: 'children[0].buttons[0].type', message: /only button elements may appear here, not link/ },
    ],
    [
      'a card icon that is neither a name nor an image',
      { type: 'block', children: [{ type: 'card', icon: { type: 'text', children: 'x' } }] },
      { path: 'children[0].icon.type', message: /only image elements/ },
    ],
    [
      'a card with a bad onPress',
      { type: 'block', children: [{ type: 'card', title: 'A', onPress: 'open' }] },
      { path: 'children[0].onPress', message: /action object like \{ action: "name" \}, not "open"/ },
    ],
    [
      'a radio without a value',
      { type: 'block', children: [{ type: 'radio', state: 'plan' }] },
      { path: 'children[0].value', message: /a radio needs `value`/ },
    ],
    [
      'a checkbox value that is an object',
      { type: 'block', children: [{ type: 'checkbox', state: 'a', value: { x: 1 } }] },
      { path: 'children[0].value', message: /a string, a number or true\/false, not an object/ },
    ],
    [
      'a hint holding a button',
      {
        type: 'block',
        children: [{ type: 'hint', children: [{ type: 'button', label: 'x', onPress: { action: 'a' } }] }],
      },
      {
        path: 'children[0].children[0].type',
        message: /only strings, text and link elements and \{ \$state \} bindings/,
      },
    ],
    [
      'a state binding without a key',
      { type: 'block', children: [{ type: 'text', children: ['Hi ', { $state: '' }] }] },
      { path: 'children[0].children[1].$state', message: /names a state key: \{ \$state: "name" \}/ },
    ],
    [
      'a state binding with extra fields',
      {
        type: 'block',
        children: [{ type: 'button', label: 'x', onPress: { action: 'a', v: { $state: 'v', or: 1 } } }],
      },
      { path: 'children[0].onPress.v', message: /only `\$state`; remove `or`/ },
    ],
    [
      'a binding where a value may not come from state',
      { type: 'block', children: [{ type: 'textinput', state: 'a', placeholder: { $state: 'p' } }] },
      { path: 'children[0].placeholder', message: /must be a string, not an object/ },
    ],
    [
      'an unknown modal size',
      { type: 'modal', size: 'huge', children: [] },
      { path: 'size', message: /one of medium, xlarge, fullscreen, not "huge"/ },
    ],
    [
      'a modal submit that is not a button',
      { type: 'modal', submit: { type: 'text', children: 'OK' }, children: [] },
      { path: 'submit.type', message: /only button elements may appear here, not text/ },
    ],
    [
      'a tooltip that is not text',
      { type: 'block', children: [{ type: 'button', label: 'x', tooltip: 3, onPress: { action: 'a' } }] },
      { path: 'children[0].tooltip', message: /must be a string, not number 3/ },
    ],
    [
      'webframe data that is not an object',
      { type: 'block', children: [{ type: 'webframe', source: { url: 'https://x.test' }, data: 'x' }] },
      { path: 'children[0].data', message: /object of values for the frame/ },
    ],
    [
      'webframe data that is not JSON',
      {
        type: 'block',
        children: [{ type: 'webframe', source: { url: 'https://x.test' }, data: { n: Number.NaN } }],
      },
      { path: 'children[0].data.n', message: /must be JSON/ },
    ],
    [
      'a bad element deep inside a card and a step',
      {
        type: 'configuration',
        children: [
          {
            type: 'card',
            children: [
              {
                type: 'stepper',
                children: [
                  {
                    type: 'step',
                    id: 'a',
                    title: 'A',
                    children: [{ type: 'image', source: { url: 'x' }, aspectRatio: 1 }],
                  },
                ],
              },
            ],
          },
        ],
      },
      { path: 'children[0].children[0].children[0].children[0].source.url', message: /http\(s\) URL, not "x"/ },
    ],
  ];
  for (const [label, tree, expected] of cases) {
    it(`refuses ${label}, naming the path`, () => {
      const errors = validateContentKit(tree);
      expect(errors[0], JSON.stringify(errors)).toMatchObject({ path: expected.path });
      expect(errors[0]?.message).toMatch(expected.message);
    });
  }

  it('refuses trees that are too deep or too large, without recursing without end', () => {
    let deep: Record<string, unknown> = { type: 'divider' };
    for (let i = 0; i < 10_000; i++) deep = { type: 'vstack', children: [deep] };
    expect(validateContentKit({ type: 'block', children: [deep] })[0]?.message).toMatch(/nested deeper than 32 levels/);
    const wide = { type: 'block', children: Array.from({ length: 5000 }, () => ({ type: 'divider' })) };
    expect(validateContentKit(wide)).toEqual([
      { path: 'children[1999]', message: 'the tree has more than 2000 elements' },
    ]);
  });
});
