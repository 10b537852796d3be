/**
 * The configuration form, generated from the JSON Schema of the installation's level (rjsf): text
 * and number fields, a dropdown for `enum`, a dropdown filled by the integration for a completion,
 * a toggle for a boolean, Connect for a button. It checks what it can before sending (a URL field
 * takes an absolute URL of its schemes, a number must be finite, text of only spaces is missing);
 * the server judges again: its errors show beside the fields, and a refused save changes nothing.
 * After a save the form shows what the server stored.
 */
import Form from '@rjsf/core';
import type { ErrorSchema, RJSFSchema, UiSchema } from '@rjsf/utils';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { ApiError, api, call } from '../../api/client';
import { type InstallationPage, keys } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { MessageText, readable } from '../../components/message-text';
import { ClearRequiredDialog } from './clear-required-dialog';
import { MemberNote, useManagePermission } from './manage-permission';
import { CompletionWidget } from './widgets/completion-widget';
import { ConnectField } from './widgets/connect-field';
import { EnumWidget } from './widgets/enum-widget';
import type { FormContext } from './widgets/form-context';
import { schemaValidator } from './widgets/schema-validator';
import { BaseInputTemplate, ConfigurationFormTag, FieldTemplate, ObjectFieldTemplate } from './widgets/templates';
import { TextareaWidget } from './widgets/textarea-widget';
import { ToggleWidget } from './widgets/toggle-widget';

type Values = Record<string, unknown>;

const widgets = { enumSelect: EnumWidget, completion: CompletionWidget, toggle: ToggleWidget, TextareaWidget };
const fields = { connect: ConnectField };
const templates = { FieldTemplate, ObjectFieldTemplate, BaseInputTemplate };

export function ConfigurationForm({ installation }: { installation: InstallationPage }) {
  const permission = useManagePermission();
  const client = useQueryClient();
  const buttons = useMemo(
    () => new Set(installation.fields.filter((f) => f.type === 'button').map((f) => f.name)),
    [installation.fields],
  );
  const [values, setValues] = useState<Values>(() => withoutButtons(installation.configuration, buttons));
  // The configuration this form last took from the server. When the server's changes for another
  // reason (the integration's own screen saved it), the form shows the new one.
  const known = useRef(JSON.stringify(installation.configuration));
  useEffect(() => {
    const current = JSON.stringify(installation.configuration);
    if (current === known.current) return;
    known.current = current;
    setValues(withoutButtons(installation.configuration, buttons));
  }, [installation.configuration, buttons]);
  const schema = useMemo(() => {
    // The server judges (the form's validator only picks among options): the `$schema` marker is left out.
    const { $schema: _draft, ...rest } = installation.configurationSchema;
    // Defaults are the server's to apply (at install): a property that is not stored shows empty,
    // never a default the installation does not have.
    const properties = Object.fromEntries(
      Object.entries((rest.properties ?? {}) as Record<string, Record<string, unknown>>).map(([name, property]) => {
        const { default: _default, ...withoutDefault } = property;
        return [name, withoutDefault];
      }),
    );
    return { ...rest, properties } as RJSFSchema;
  }, [installation.configurationSchema]);
  const titles = useMemo(
    () => new Map(installation.fields.map((field) => [field.name, field.title] as const)),
    [installation.fields],
  );
  const [localErrors, setLocalErrors] = useState<{ path: string; message: string }[]>([]);
  // A save that would empty a required field of an active installation, waiting for the person's answer.
  const [asking, setAsking] = useState<{ patch: Values; titles: string[] } | undefined>();
  const uiSchema = useMemo(() => {
    const ui: UiSchema = { 'ui:submitButtonOptions': { norender: true } };
    for (const field of installation.fields) {
      if (field.type === 'button') ui[field.name] = { 'ui:field': 'connect' };
      else if (field.type === 'boolean') ui[field.name] = { 'ui:widget': 'toggle' };
      else if (field.completion) ui[field.name] = { 'ui:widget': 'completion' };
      else if (field.enum) ui[field.name] = { 'ui:widget': 'enumSelect' };
      else if (field.multiline) ui[field.name] = { 'ui:widget': 'textarea' };
    }
    return ui;
  }, [installation.fields]);
  const save = useMutation({
    mutationFn: (patch: Values) =>
      call(
        api.PATCH('/v1/installations/{id}/configuration', {
          params: { path: { id: installation.id } },
          body: patch,
        }),
      ),
    onSuccess(result) {
      known.current = JSON.stringify(result.configuration);
      setValues(withoutButtons(result.configuration, buttons));
      void client.invalidateQueries({ queryKey: keys.installation(installation.id) });
      // The integration's own screens render from the configuration: draw them again.
      void client.invalidateQueries({ queryKey: ['render', installation.id] });
    },
  });
  // Before this form saved anything, a field left empty is not marked in red: nobody typed yet, and
  // the status panel already lists what is missing. Other stored problems show at once.
  const serverErrors = save.data?.errors ?? installation.errors.filter((error) => !/ is required$/.test(error.message));
  const warnings = save.data?.warnings ?? installation.warnings;
  const refusal = save.error instanceof ApiError ? save.error : undefined;
  // A refused save names its fields: `errors` (wrong values, undeclared properties) or `property`.
  const refusedFields: { path: string; message: string }[] = Array.isArray(refusal?.details.errors)
    ? (refusal.details.errors as { path: string; message: string }[])
    : typeof refusal?.details.property === 'string'
      ? [{ path: refusal.details.property, message: refusal.message }]
      : [];
  const extraErrors: ErrorSchema = {};
  const fieldNames = new Set(installation.fields.map((field) => field.name));
  // What is missing on the server is not said beside a field the person has filled in since.
  const stored = save.data?.configuration ?? installation.configuration;
  const filledSince = (path: string) =>
    values[path] !== undefined && values[path] !== '' && JSON.stringify(values[path]) !== JSON.stringify(stored[path]);
  const current = serverErrors.filter((error) => !filledSince(error.path));
  for (const error of [...current, ...refusedFields, ...localErrors]) {
    if (buttons.has(error.path) || !fieldNames.has(error.path)) continue;
    (extraErrors as Record<string, { __errors: string[] }>)[error.path] = {
      __errors: [readable(error.message, titles)],
    };
  }
  const formContext: FormContext = { installationId: installation.id, fields: installation.fields, values };
  const submit = () => {
    const patch: Values = {};
    const problems: { path: string; message: string }[] = [];
    for (const field of installation.fields) {
      if (field.type === 'button') continue;
      const value = values[field.name];
      const problem = problemOf(field, value);
      if (problem) problems.push({ path: field.name, message: problem });
      // Text of only spaces is missing, as the server counts it.
      if (value !== undefined && !(typeof value === 'string' && value.trim() === ''))
        patch[field.name] = typeof value === 'string' && field.urlSchemes ? value.trim() : value;
      else if (installation.configuration[field.name] !== undefined) patch[field.name] = null;
    }
    setLocalErrors(problems);
    if (problems.length > 0) {
      save.reset();
      return;
    }
    const cleared = installation.fields.filter((field) => field.required && patch[field.name] === null);
    if (installation.status === 'active' && cleared.length > 0) {
      setAsking({ patch, titles: cleared.map((field) => field.title) });
      return;
    }
    save.mutate(patch);
  };
  if (installation.fields.length === 0) {
    return <p className="muted">This integration has no settings at this level.</p>;
  }
  return (
    <div className="configuration-form">
      <MemberNote can="change the configuration" />
      <Form
        schema={schema}
        uiSchema={uiSchema}
        formData={values}
        formContext={formContext}
        validator={schemaValidator}
        widgets={widgets}
        fields={fields}
        templates={templates}
        disabled={!permission.allowed}
        tagName={ConfigurationFormTag}
        extraErrors={extraErrors}
        showErrorList={false}
        noValidate
        noHtml5Validate
        onChange={(event) => {
          const next = (event.formData ?? {}) as Values;
          // An old result ("Saved.", an error) does not stay beside values edited since.
          if (JSON.stringify(next) !== JSON.stringify(values)) {
            if (!save.isPending && (save.isSuccess || save.isError)) save.reset();
            if (localErrors.length > 0) setLocalErrors([]);
          }
          setValues(next);
        }}
        onSubmit={submit}
      >
        <div className="row">
          <Button type="submit" className="button primary" isPending={save.isPending} isDisabled={!permission.allowed}>
            Save
          </Button>
          <span role="status" className="muted">
            {save.isSuccess
              ? save.data.errors.length === 0
                ? 'Saved.'
                : 'Saved. It stays pending until the fields marked are filled in.'
              : ''}
          </span>
        </div>
      </Form>
      <ClearRequiredDialog
        titles={asking?.titles ?? []}
        integration={installation.integrationTitle}
        onCancel={() => setAsking(undefined)}
        onConfirm={() => {
          if (asking) save.mutate(asking.patch);
          setAsking(undefined);
        }}
      />
      {warnings.map((warning) => (
        <p key={warning.message} className="warning-note">
          <MessageText message={warning.message} titles={titles} />
        </p>
      ))}
      {localErrors.length > 0 ? (
        <p role="alert" className="field-error">
          Not saved: correct the fields marked.
        </p>
      ) : null}
      {save.error && refusedFields.length === 0 ? <ErrorNote title="Not saved" error={save.error} /> : null}
      {refusedFields.length > 0 ? (
        <p role="alert" className="field-error">
          Not saved: {readable(save.error?.message ?? '', titles).replace(/^not saved: /, '')}
        </p>
      ) : null}
    </div>
  );
}

/** What the browser can tell is wrong with a value before sending it; undefined when nothing is. */
function problemOf(field: InstallationPage['fields'][number], value: unknown): string | undefined {
  if (field.type === 'number' && typeof value === 'number' && !Number.isFinite(value))
    return `${field.title} is too large to store: enter a number between -1.7e308 and 1.7e308`;
  if (field.type === 'number' && typeof value === 'string' && value.trim() !== '')
    return `${field.title} must be a number, such as 10 or 2.5 (with a dot for decimals)`;
  if (field.urlSchemes && typeof value === 'string' && value.trim() !== '') {
    const schemes = field.urlSchemes.map((scheme) => `${scheme}://`).join(' or ');
    let url: URL;
    try {
      url = new URL(value.trim());
    } catch {
      return `${field.title} must be an absolute URL starting with ${schemes}, such as https://example.com/webhooks`;
    }
    if (!field.urlSchemes.includes(url.protocol.replace(/:$/, '')))
      return `${field.title} must start with ${schemes} (not ${url.protocol}//)`;
  }
  return undefined;
}

function withoutButtons(configuration: Values, buttons: Set<string>): Values {
  return Object.fromEntries(Object.entries(configuration).filter(([key]) => !buttons.has(key)));
}
