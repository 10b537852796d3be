/**
 * The manifest's structure as one Zod schema: the validator uses it, and the editor JSON Schema
 * (`schema/platform-manifest.schema.json`) is generated from it, so the two cannot drift.
 * Rules that relate several fields (unique ids, `required` names, internal scopes, files on
 * disk) live in `manifest-rules.ts` and `manifest-assets.ts`.
 */
import { z } from 'zod';
import { assetPathProblem } from './asset-path.js';
import { SECRET_NAME, SECRET_REFERENCE } from './secret-reference.js';
import {
  CATEGORIES,
  MAX_SUMMARY_CHARACTERS,
  NAME_PATTERN,
  PROPERTY_TYPES,
  SCOPES,
  VISIBILITIES,
} from './vocabulary.js';

const text = (description: string) =>
  z.string().regex(/\S/, { error: 'must not be empty; write some text here' }).describe(description);

const assetPath = (description: string) =>
  z
    .string()
    .check((ctx) => {
      const problem = assetPathProblem(ctx.value);
      if (problem !== undefined) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
    })
    .describe(description);

/** A path served by the integration: starts with a single `/`. */
const integrationPath = (description: string) =>
  z
    .string()
    .regex(/^\/(?!\/)\S*$/, {
      error: 'must be a path served by the integration that starts with `/`, e.g. `/oauth`',
    })
    .describe(description);

const common = {
  title: z.string().describe('Label shown next to the input').optional(),
  description: z.string().describe('Help text shown under the input').optional(),
};

const stringProperty = z.strictObject({
  type: z.literal('string'),
  ...common,
  default: z.string().describe('Initial value').optional(),
  enum: z
    .array(z.string())
    .min(1, { error: 'must list at least one option' })
    .describe('Allowed values; the input becomes a dropdown')
    .optional(),
  completion_url: integrationPath(
    'Path of an endpoint of the integration that returns the options of a dropdown',
  ).optional(),
});

const numberProperty = z.strictObject({
  type: z.literal('number'),
  ...common,
  default: z.number().describe('Initial value').optional(),
});

const booleanProperty = z.strictObject({
  type: z.literal('boolean'),
  ...common,
  default: z.boolean().describe('Initial value').optional(),
});

const buttonProperty = z.strictObject({
  type: z.literal('button'),
  ...common,
  button_text: text('Text on the button'),
  callback_url: integrationPath(
    'Path of the integration that the button starts (usually an OAuth handler, e.g. `/oauth`)',
  ),
});

export const propertySchema = z
  .discriminatedUnion('type', [stringProperty, numberProperty, booleanProperty, buttonProperty])
  .describe(`A configuration property; \`type\` is one of ${PROPERTY_TYPES.join(', ')}`);

const configurationBlock = z
  .strictObject({
    properties: z.record(z.string(), propertySchema).describe('Property name to property definition'),
    required: z.array(z.string()).describe('Names of properties that must be set').optional(),
  })
  .describe('A configuration form');

const block = z.strictObject({
  id: text('Identifier of the component that renders this block (its `componentId`)'),
  title: text('Name shown in the quick insert menu'),
  description: text('Short description shown in the quick insert menu'),
});

const externalLink = z.strictObject({
  label: text('Text of the link'),
  url: z
    .string()
    .check((ctx) => {
      if (!isHttpUrl(ctx.value)) {
        ctx.issues.push({
          code: 'custom',
          message: `"${ctx.value}" is not an http(s) URL; write a full address such as \`https://example.com/docs\``,
          input: ctx.value,
        });
      }
    })
    .meta({ format: 'uri', pattern: '^https?://' })
    .describe('An http or https URL'),
});

const summary = z
  .string()
  .check((ctx) => {
    const length = Array.from(ctx.value).length;
    if (length > MAX_SUMMARY_CHARACTERS) {
      ctx.issues.push({
        code: 'custom',
        message: `it is ${length} characters long; the limit is ${MAX_SUMMARY_CHARACTERS}: shorten it or move details to your documentation`,
        input: ctx.value,
      });
    }
  })
  .meta({ maxLength: MAX_SUMMARY_CHARACTERS })
  .describe(`Markdown shown on the installation page, at most ${MAX_SUMMARY_CHARACTERS} characters`);

const secretReference = z
  .string()
  .regex(SECRET_REFERENCE, {
    error: 'must be an environment reference written `${{ env.NAME }}`; never write a secret value into the manifest',
  })
  .describe('An environment reference: ${{ env.NAME }}');

export const manifestSchema = z
  .strictObject({
    name: z
      .string()
      .regex(NAME_PATTERN, {
        error: 'must be lowercase words of letters and digits joined by single hyphens, e.g. `my-integration`',
      })
      .describe('Unique name of the integration: lowercase words joined by hyphens'),
    title: text('Name shown in the product'),
    description: text('Short description'),
    summary: summary.optional(),
    organization: z
      .string()
      .regex(/^[^\s]+$/, { error: 'must be the id or subdomain of your organization, without spaces' })
      .describe('The id or the subdomain of the owning organization'),
    visibility: z.enum(VISIBILITIES).describe('Who can install: private, unlisted (with the share link) or public'),
    scopes: z.array(z.enum(SCOPES)).describe('Permissions requested'),
    script: assetPath('Entry script that calls createIntegration(), relative to the manifest').optional(),
    blocks: z.array(block).describe('Components registered in the quick insert menu').optional(),
    categories: z.array(z.enum(CATEGORIES)).describe('Marketplace categories').optional(),
    icon: assetPath('Icon file next to the manifest').optional(),
    previewImages: z
      .array(assetPath('Preview image next to the manifest; 1600 x 800 pixels (2:1) is recommended'))
      .describe('Images for the installation page')
      .optional(),
    externalLinks: z.array(externalLink).describe('Links shown on the installation page').optional(),
    configurations: z
      .strictObject({
        account: configurationBlock.describe('Organization-level settings').optional(),
        site: configurationBlock.describe('Space- and site-level settings').optional(),
      })
      .describe('Configuration forms of the installations')
      .optional(),
    secrets: z
      .record(
        z.string().regex(SECRET_NAME, {
          error: 'secret names are letters, digits and underscores, starting with a letter or underscore',
        }),
        secretReference,
      )
      .describe('Secret name to environment reference, e.g. CLIENT_ID: ${{ env.CLIENT_ID }}')
      .optional(),
  })
  .describe('A Portico integration manifest (platform-manifest.yaml)');

export type Manifest = z.output<typeof manifestSchema>;
export type ConfigurationBlock = z.output<typeof configurationBlock>;
export type PropertyDefinition = z.output<typeof propertySchema>;
export type Block = z.output<typeof block>;
export type ExternalLink = z.output<typeof externalLink>;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
