/**
 * The configuration form, generated from the JSON Schema of the installation's level (rjsf): text
 * and number fields, a dropdown for `enum`, a dropdown filled by the integration for a completion,
 * a toggle for a boolean, Connect for a button. The server validates; its errors show beside the
 * fields, and a refused save changes nothing.
 */
import Form from '@rjsf/core';
import type { ErrorSchema, RJSFSchema, UiSchema } from '@rjsf/utils';
import validator from '@rjsf/validator-ajv8';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { ApiError, api, call } from '../../api/client';
import { type InstallationPage, keys } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { CompletionWidget } from './widgets/completion-widget';
import { ConnectField } from './widgets/connect-field';
import { EnumWidget } from './widgets/enum-widget';
import type { FormContext } from './widgets/form-context';
import { BaseInputTemplate, ConfigurationFormTag, FieldTemplate, ObjectFieldTemplate } from './widgets/templates';
import { ToggleWidget } from './widgets/toggle-widget';

type Values = Record<string, unknown>;

const widgets = { enumSelect: EnumWidget, completion: CompletionWidget, toggle: ToggleWidget };
const fields = { connect: ConnectField };
const templates = { FieldTemplate, ObjectFieldTemplate, BaseInputTemplate };

export function ConfigurationForm({ installation }: { installation: InstallationPage }) {
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
    // rjsf's validator speaks draft-07; the server judges, so the `$schema` marker is left out.
    const { $schema: _draft, ...rest } = installation.configurationSchema;
    return rest as RJSFSchema;
  }, [installation.configurationSchema]);
  const uiSchema = useMemo(() => {
    const ui: UiSchema = { 'ui:submitButtonOptions': { norender: true } };
    for (const field of installation.fields) {
      if (field.type === 'button') ui[field.name] = { 'ui:field': 'connect' };
      else if (field.type === 'boolean') ui[field.name] = { 'ui:widget': 'toggle' };
      else if (field.completion) ui[field.name] = { 'ui:widget': 'completion' };
      else if (field.enum) ui[field.name] = { 'ui:widget': 'enumSelect' };
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
  const serverErrors = save.data?.errors ?? installation.errors;
  const refusal = save.error instanceof ApiError ? save.error : undefined;
  const extraErrors: ErrorSchema = {};
  for (const error of serverErrors) {
    if (buttons.has(error.path) || error.path === '') continue;
    (extraErrors as Record<string, { __errors: string[] }>)[error.path] = { __errors: [error.message] };
  }
  const refusedProperty = typeof refusal?.details.property === 'string' ? refusal.details.property : undefined;
  if (refusal && refusedProperty)
    (extraErrors as Record<string, { __errors: string[] }>)[refusedProperty] = { __errors: [refusal.message] };
  const formContext: FormContext = { installationId: installation.id, fields: installation.fields, values };
  const submit = () => {
    const patch: Values = {};
    for (const field of installation.fields) {
      if (field.type === 'button') continue;
      const value = values[field.name];
      if (value !== undefined && value !== '') patch[field.name] = value;
      else if (installation.configuration[field.name] !== undefined) patch[field.name] = null;
    }
    save.mutate(patch);
  };
  if (installation.fields.length === 0) {
    return <p className="muted">This integration has no settings at this level.</p>;
  }
  return (
    <div className="configuration-form">
      <Form
        schema={schema}
        uiSchema={uiSchema}
        formData={values}
        formContext={formContext}
        validator={validator}
        widgets={widgets}
        fields={fields}
        templates={templates}
        tagName={ConfigurationFormTag}
        extraErrors={extraErrors}
        showErrorList={false}
        noValidate
        noHtml5Validate
        onChange={(event) => setValues((event.formData ?? {}) as Values)}
        onSubmit={submit}
      >
        <div className="row">
          <Button type="submit" className="button primary" isPending={save.isPending}>
            Save
          </Button>
          {save.isSuccess && save.data.errors.length === 0 ? (
            <span role="status" className="muted">
              Saved.
            </span>
          ) : null}
        </div>
      </Form>
      {save.error && !refusedProperty ? <ErrorNote title="Not saved" error={save.error} /> : null}
      {refusedProperty ? (
        <p role="alert" className="field-error">
          Not saved: {save.error?.message}
        </p>
      ) : null}
    </div>
  );
}

function withoutButtons(configuration: Values, buttons: Set<string>): Values {
  return Object.fromEntries(Object.entries(configuration).filter(([key]) => !buttons.has(key)));
}
