import { describe, expect, it } from 'vitest';
import { type ContentKitRoot, validateContentKit } from './contentkit.js';

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

describe('validateContentKit', () => {
  it('accepts every element type and the three roots', () => {
    expect(validateContentKit(everyElement)).toEqual([]);
    expect(validateContentKit({ type: 'configuration', children: [{ type: 'markdown', content: 'x' }] })).toEqual([]);
    expect(validateContentKit({ type: 'modal', title: 'T', children: [], onClose: { action: 'close' } })).toEqual([]);
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
      { path: 'children[0].children[0].type', message: /only strings and text elements/ },
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
